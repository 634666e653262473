"""TD106-TD118 (and TD119 for a value no rule reads) on one schema node's own keywords:
its types, its values (enum, const, default, pattern, format), its bounds and its texts.
`schema` applies them at each node before it descends into properties, items and branches.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Mapping
from typing import Any

from toolsel.diff.canonical import canonical_text
from toolsel.diff.model import ChangeClass, SchemaDelta
from toolsel.jsontext import MAX_SAFE_INTEGER
from toolsel.registry.pointer import join_pointer

B, R, S = ChangeClass.BREAKING, ChangeClass.RISKY, ChangeClass.SAFE
UPPER_BOUNDS = ("maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties")
LOWER_BOUNDS = ("minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties")
TEXT_KEYWORDS = ("description", "title", "examples")


# -- type and nullability ----------------------------------------------------------------
def _type_set(schema: Mapping[str, Any]) -> frozenset[str] | None:
    """The schema's types, `null` included when nullable; None when any type goes."""
    declared = schema.get("type")
    if declared is None:  # OpenAPI's `nullable` adds null to a declared type, or does nothing
        return None
    names = [declared] if isinstance(declared, str) else declared
    if not isinstance(names, list):
        return None
    types = frozenset(str(n) for n in names)
    return types | {"null"} if schema.get("nullable") is True else types


def _accepts(types: frozenset[str], kind: str) -> bool:
    return kind in types or (kind == "integer" and "number" in types)


def type_changes(
    old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, where: str
) -> Generator[SchemaDelta, None, bool]:
    """TD106/TD107/TD117; returns True (through StopIteration) when the types are disjoint."""
    before, after = _type_set(old), _type_set(new)
    if before == after:
        return False
    at = join_pointer(pointer, "type")
    shown_old, shown_new = old.get("type"), new.get("type")
    o = None if before is None else before - {"null"}
    n = None if after is None else after - {"null"}
    if o != n:
        if o is None or (n is not None and all(_accepts(o, k) for k in n)):
            yield SchemaDelta(
                "TD106", B, S, f"{where}: type narrowed to {_names(n)}", at, shown_old, shown_new
            )
        elif n is None or all(_accepts(n, k) for k in o):
            yield SchemaDelta(
                "TD107", S, B, f"{where}: type widened to {_names(n)}", at, shown_old, shown_new
            )
        else:
            message = f"{where}: type changed from {_names(o)} to {_names(n)}"
            yield SchemaDelta("TD106", B, B, message, at, shown_old, shown_new)
            return True
    was_null = before is not None and "null" in before
    is_null = after is not None and "null" in after
    if was_null and not is_null:
        yield SchemaDelta(
            "TD117", B, S, f"{where}: no longer accepts null", at, shown_old, shown_new
        )
    elif is_null and not was_null and before is not None:
        yield SchemaDelta("TD117", S, B, f"{where}: now accepts null", at, shown_old, shown_new)
    return False


def _names(types: frozenset[str] | None) -> str:
    return "any type" if types is None else " | ".join(sorted(types)) or "nothing"


# -- enum, const, default, pattern, format ------------------------------------------------
def value_changes(
    old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, where: str
) -> Iterator[SchemaDelta]:
    yield from _enum(old.get("enum"), new.get("enum"), join_pointer(pointer, "enum"), where)
    at = join_pointer(pointer, "const")
    before, after = old.get("const"), new.get("const")
    if "const" in old or "const" in new:
        if "const" not in old:
            yield SchemaDelta(
                "TD110", B, S, f"{where}: const {after!r} introduced", at, None, after
            )
        elif "const" not in new:
            yield SchemaDelta("TD109", S, B, f"{where}: const {before!r} dropped", at, before, None)
        elif canonical_text(before) != canonical_text(after):
            yield SchemaDelta("TD110", B, B, f"{where}: const changed", at, before, after)
    if old.get("default") != new.get("default") or ("default" in old) != ("default" in new):
        verb = "added" if "default" not in old else "removed" if "default" not in new else "changed"
        yield SchemaDelta(
            "TD111", R, S, f"{where}: default {verb} (calls that omit it now behave differently)",
            join_pointer(pointer, "default"), old.get("default"), new.get("default"),
        )  # fmt: skip
    yield from _added_changed_removed(
        old, new, "pattern", "TD113", pointer, where,
        added=(B, S), changed=(R, R), removed=(S, B),
    )  # fmt: skip
    yield from _added_changed_removed(
        old, new, "format", "TD115", pointer, where,
        added=(B, S), changed=(B, B), removed=(S, R),
    )  # fmt: skip


def _enum(before: Any, after: Any, at: str, where: str) -> Iterator[SchemaDelta]:
    if before == after:
        return
    if not isinstance(before, list) and isinstance(after, list):
        yield SchemaDelta("TD110", B, S, f"{where}: enum introduced", at, before, after)
        return
    if isinstance(before, list) and not isinstance(after, list):
        yield SchemaDelta("TD109", S, B, f"{where}: enum dropped", at, before, after)
        return
    if not isinstance(before, list) or not isinstance(after, list):
        return
    old_values = {canonical_text(v): v for v in before}
    new_values = {canonical_text(v): v for v in after}
    removed = [v for k, v in old_values.items() if k not in new_values]
    added = [v for k, v in new_values.items() if k not in old_values]
    if removed:
        yield SchemaDelta(
            "TD108", B, S, f"{where}: enum values removed: {_list(removed)}", at, before, after
        )
    if added:
        yield SchemaDelta(
            "TD109", S, R, f"{where}: enum values added: {_list(added)}", at, before, after
        )


def _list(values: list[Any]) -> str:
    shown = ", ".join(repr(v) for v in values[:5])
    return shown + (f" and {len(values) - 5} more" if len(values) > 5 else "")


def _added_changed_removed(
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    key: str,
    rule: str,
    pointer: str,
    where: str,
    *,
    added: tuple[ChangeClass, ChangeClass],
    changed: tuple[ChangeClass, ChangeClass],
    removed: tuple[ChangeClass, ChangeClass],
) -> Iterator[SchemaDelta]:
    before, after = old.get(key), new.get(key)
    if before == after:
        return
    at = join_pointer(pointer, key)
    if before is None:
        yield SchemaDelta(rule, *added, f"{where}: {key} {after!r} added", at, before, after)
    elif after is None:
        yield SchemaDelta(rule, *removed, f"{where}: {key} {before!r} removed", at, before, after)
    else:
        message = f"{where}: {key} changed from {before!r} to {after!r}"
        yield SchemaDelta(rule, *changed, message, at, before, after)


# -- bounds -------------------------------------------------------------------------------
def _number(value: Any) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _effective(value: float | None, upper: bool) -> float | None:
    """The bound, or None when it is at or past 2**53 - 1: it limits nothing a JSON number can
    say exactly (zod 4 writes it on every `.int()`), so it counts as no bound."""
    if value is None:
        return None
    return None if (value >= MAX_SAFE_INTEGER if upper else value <= -MAX_SAFE_INTEGER) else value


def bound_changes(
    old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, where: str
) -> Iterator[SchemaDelta]:
    for key in (*UPPER_BOUNDS, *LOWER_BOUNDS):
        before, after = old.get(key), new.get(key)
        if before == after:
            continue
        at = join_pointer(pointer, key)
        b, a = _number(before), _number(after)
        if (before is not None and b is None) or (after is not None and a is None):
            yield SchemaDelta(
                "TD119", R, R, f"{where}: {key} changed; review by hand", at, before, after
            )
            continue
        upper = key in UPPER_BOUNDS
        if _effective(b, upper) is None and _effective(a, upper) is None:
            yield SchemaDelta(
                "TD114", S, S,
                f"{where}: {key} {'set to' if a is not None else 'removed'} "
                f"{a if a is not None else b!r} (beyond the largest safe integer: no limit)",
                at, before, after,
            )  # fmt: skip
            continue
        b, a = _effective(b, upper), _effective(a, upper)
        if b is None:
            tighter = True
        elif a is None:
            tighter = False
        else:
            tighter = a < b if upper else a > b
        if tighter:
            verb = "set" if b is None else ("lowered" if upper else "raised")
            yield SchemaDelta(
                "TD114", B, S, f"{where}: {key} {verb} to {after!r}", at, before, after
            )
        else:
            verb = "removed" if a is None else ("raised" if upper else "lowered")
            yield SchemaDelta("TD114", S, B, f"{where}: {key} {verb}", at, before, after)


# -- descriptions -------------------------------------------------------------------------
def text_changes(
    old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, where: str
) -> Iterator[SchemaDelta]:
    for key in TEXT_KEYWORDS:
        if old.get(key) != new.get(key):
            yield SchemaDelta(
                "TD118", R, S, f"{where}: {key} changed (it steers how the model fills arguments)",
                join_pointer(pointer, key), old.get(key), new.get(key),
            )  # fmt: skip
