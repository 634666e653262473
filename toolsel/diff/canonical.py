"""Canonical JSON and the hashes built on it: the same value always gives the same bytes
(sorted keys, compact separators, UTF-8), whatever the key order it was written in."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

#: Each hash names what it is a hash of, so equal bytes hashed for two purposes differ.
DEFINITION_DOMAIN = "toolsel.tool.definition/v1"
GOVERNANCE_DOMAIN = "toolsel.tool.governance/v1"
FINGERPRINT_DOMAIN = "toolsel.diff.fingerprint/v1"


def canonical_bytes(value: Any) -> bytes:
    """`value` as compact JSON with sorted keys, in UTF-8 (non-ASCII kept as is)."""
    import orjson

    from toolsel.jsontext import dumps

    return dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def canonical_text(value: Any) -> str:
    return canonical_bytes(value).decode("utf-8")


def domain_hash(domain: str, fields: Sequence[Any]) -> str:
    """SHA-256 of `domain` and `fields` as one canonical JSON array: every field keeps its
    own place (no separator can be forged inside a field, none can move into another)."""
    return hashlib.sha256(canonical_bytes([domain, *fields])).hexdigest()
