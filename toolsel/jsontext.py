"""JSON text of anything toolsel writes, exact for every integer a registry may hold.

orjson writes integers only from -2**63 to 2**64 - 1, and a registry may hold larger ones
(`maximum: 18446744073709551616` is valid YAML and valid JSON Schema). When orjson refuses
one, those integers are written with Python's digits and everything else still by orjson,
so the layout (indent, key order, floats, escapes) is orjson's either way.
"""

from __future__ import annotations

import re
from typing import Any

#: The integers orjson writes itself.
_ORJSON_INTEGERS = range(-(2**63), 2**64)
#: The largest integer a double (JavaScript's number, Go's float64) holds exactly.
MAX_SAFE_INTEGER = 2**53 - 1


def dumps(data: Any, *, option: int = 0) -> bytes:
    """`orjson.dumps(data, option=option)`, with integers beyond 64 bits written exactly
    instead of refused. Any other refusal is orjson's own `JSONEncodeError`."""
    import orjson

    try:
        return orjson.dumps(data, option=option)
    except orjson.JSONEncodeError:
        written = _with_big_integers(data, option)
        if written is None:  # no big integer: the refusal was for something else
            raise
        return written


def _with_big_integers(data: Any, option: int) -> bytes | None:
    """Each big integer goes to orjson as a string no input can hold (a fresh random
    token), then that string, quotes and all, is swapped for the integer's digits; None
    when there is no big integer."""
    import secrets

    import orjson

    token = secrets.token_hex(16)
    big: list[int] = []

    def swapped(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: swapped(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [swapped(item) for item in value]
        if isinstance(value, int) and value not in _ORJSON_INTEGERS:  # bool is never out
            big.append(value)
            return f"{token}:{len(big) - 1}"
        return value

    try:
        stand_in = swapped(data)
    except RecursionError:  # deeper than orjson writes anyway: its own refusal stands
        return None
    if not big:
        return None
    written = orjson.dumps(stand_in, option=option)
    placeholder = re.compile(rb'"' + token.encode() + rb':(\d+)"')
    return placeholder.sub(lambda match: str(big[int(match[1])]).encode(), written)


def json_text(value: Any, limit: int = 80) -> str:
    """A value as JSON writes it (`null`, `true`, `"a"`), cut to `limit` characters."""
    import json

    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError, RecursionError):
        text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
