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
    if same_value(before, after):
        return "identical"
    if _is_empty(before) and not _is_empty(after):
        return "enriched"
    if isinstance(before, dict) and isinstance(after, dict):
        shared = before.keys() & after.keys()
        if all(same_value(before[k], after[k]) for k in shared) and len(after) > len(before):
            return "enriched"
    return "conflicting"


def same_value(one: Any, other: Any) -> bool:
    """`one == other` for JSON values, also when they nest deeper than Python compares (a
    line may hold 1,000 levels; `==` fails with a RecursionError past about 900)."""
    try:
        return bool(one == other)
    except RecursionError:
        pass
    pairs = [(one, other)]
    while pairs:
        a, b = pairs.pop()
        if type(a) is list and type(b) is list:
            if len(a) != len(b):
                return False
            pairs += zip(a, b, strict=True)
        elif type(a) is dict and type(b) is dict:
            if a.keys() != b.keys():
                return False
            pairs += ((a[key], b[key]) for key in a)
        elif type(a) in (list, dict) or type(b) in (list, dict) or a != b:
            return False
    return True


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
