"""What several decoders share: ids read as text, and calls whose arguments may be
JSON-encoded."""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import Call


def text_id(value: Any) -> str:
    """An id as a string ("" when the record has none): ids are compared as strings."""
    if type(value) is str:
        return value
    if value is None or type(value) is bool or isinstance(value, (dict, list)):
        return ""
    return str(value)


def arguments_call(
    call_id: str, tool: str, raw: Any, timestamp: str | None = None, *, kind: str = ""
) -> Call:
    """A call whose arguments may be a JSON-encoded string: kept encoded, decoded on use. A
    `custom_tool_call`'s input (`kind`) is text under a grammar, kept as it is."""
    if kind == "custom_tool_call" and type(raw) is str:
        return Call(call_id, tool, raw, timestamp=timestamp, freeform=True)
    if type(raw) is str:
        return Call(call_id, tool, raw, timestamp=timestamp, encoded=True)
    return Call(call_id, tool, raw if raw is not None else {}, timestamp=timestamp)
