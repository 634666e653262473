"""`diff_registries`: every change from OLD to NEW, classed and sorted (breaking first)."""

from __future__ import annotations

from toolsel.diff.context import DiffContext
from toolsel.diff.match import match_tools
from toolsel.diff.model import Change
from toolsel.registry.model import Registry


def diff_registries(old: Registry, new: Registry) -> tuple[Change, ...]:
    """Each change, breaking first, then risky, then safe; within a class by tool and rule."""
    from toolsel.diff.rules import FAMILIES

    context = DiffContext(old, new, match_tools(old, new))
    changes = [change for family in FAMILIES for change in family(context)]
    return tuple(sort_changes(distinct_fingerprints(changes)))


def distinct_fingerprints(changes: list[Change]) -> list[Change]:
    """One ignore entry must never silence two changes: a fingerprint that two different
    changes share (no rule should make one) also hashes in each one's message."""
    from collections import Counter
    from dataclasses import replace

    from toolsel.diff.canonical import FINGERPRINT_DOMAIN, domain_hash

    shared = Counter(c.fingerprint for c in changes)
    return [
        replace(c, fingerprint=domain_hash(FINGERPRINT_DOMAIN, [c.fingerprint, c.message])[:16])
        if shared[c.fingerprint] > 1
        else c
        for c in changes
    ]


def sort_changes(changes: list[Change]) -> list[Change]:
    return sorted(changes, key=lambda c: (-c.change_class.level, c.tool, c.rule, c.pointer))
