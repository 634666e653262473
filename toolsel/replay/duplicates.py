"""How a call seen again under an id that is still open compares with the first: an
`identical` repeat, an `enriched` one (richer input, which is taken), or a `conflicting`
one (another tool, or input that contradicts it)."""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import Call

#: When one id is reported as several kinds of duplicate call, the most severe wins.
DUPLICATE_SEVERITY = {"conflicting": 3, "enriched": 2, "identical": 1, "reused": 0}


def duplicate_kind(earlier: Call, later: Call) -> str:
    """How `later`, a call with `earlier`'s id, differs from it."""
    if earlier.tool != later.tool:
        return "conflicting"
    before, after = earlier.arguments, later.arguments
    if before == after:
        return "identical"
    if _is_empty(before) and not _is_empty(after):
        return "enriched"
    if isinstance(before, dict) and isinstance(after, dict):
        shared = before.keys() & after.keys()
        if all(before[k] == after[k] for k in shared) and len(after) > len(before):
            return "enriched"
    return "conflicting"


def enrich(existing: Call, call: Call) -> bool:
    """Take the later line's input when it is richer; whether it was taken."""
    before, after = existing.arguments, call.arguments
    if (_is_empty(before) and not _is_empty(after)) or (
        isinstance(before, dict) and isinstance(after, dict) and len(after) > len(before)
    ):
        existing.input, existing.encoded = call.input, call.encoded
        return True
    return False


def _is_empty(value: Any) -> bool:
    return value is None or value == {} or value == "" or value == []
