"""TD101-TD120: a tool's `parameters` (a request: the model writes, the tool reads) and its
`outputSchema` (a response: the tool writes, the agent reads), compared keyword by keyword.

One walk serves both directions: each difference carries its class for a request and for a
response, because what narrows a request (breaking) narrows a response (safe), and the
other way round. Under `strict` (OpenAI's structured outputs) every property is required
and no other key is allowed, so both sides are normalised that way before the walk.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from toolsel.diff.canonical import canonical_text
from toolsel.diff.model import ChangeClass
from toolsel.registry.pointer import escape_token, split_pointer

B, R, S = ChangeClass.BREAKING, ChangeClass.RISKY, ChangeClass.SAFE

#: Keywords the walk understands; a difference in any other keyword is TD119 (risky).
HANDLED = frozenset(
    {
        "type", "nullable", "properties", "required", "additionalProperties", "enum",
        "const", "default", "pattern", "format", "description", "title", "examples", "items",
        "anyOf", "oneOf", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "minItems", "maxItems", "minProperties", "maxProperties",
    }
)  # fmt: skip
#: Keywords no validator acts on and no model reads as an instruction.
IGNORED = frozenset({"$schema", "$comment"})
UPPER_BOUNDS = ("maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties")
LOWER_BOUNDS = ("minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties")
TEXT_KEYWORDS = ("description", "title", "examples")
#: Deeper schemas are compared as a whole (TD119), so no input can exhaust the stack.
MAX_DEPTH = 64


@dataclass(frozen=True, slots=True)
class SchemaDelta:
    """One difference between two schemas, at `pointer` (relative to the schema root)."""

    rule: str
    request: ChangeClass
    response: ChangeClass
    message: str
    pointer: str
    old: Any = None
    new: Any = None
    #: what tells this change from another of the same rule at the same pointer (the
    #: parameter a `required` list gained or lost), for its fingerprint
    subject: str = ""


def compare_schemas(old: Any, new: Any, *, old_strict: bool, new_strict: bool) -> list[SchemaDelta]:
    """Every difference between two JSON Schemas, OLD to NEW (each normalised for strict)."""
    if old_strict:
        old = strict_form(old)
    if new_strict:
        new = strict_form(new)
    return list(_walk(old, new, "", 0))


def strict_form(schema: Any, depth: int = 0) -> Any:
    """`schema` as strict mode reads it: every object's properties required, nothing else."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return schema
    out = {key: _strict_child(key, value, depth) for key, value in schema.items()}
    properties = out.get("properties")
    if isinstance(properties, dict):
        out["required"] = list(properties)
        out["additionalProperties"] = False
    return out


def _strict_child(key: str, value: Any, depth: int) -> Any:
    if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
        return {name: strict_form(sub, depth + 1) for name, sub in value.items()}
    if key in ("anyOf", "oneOf", "allOf") and isinstance(value, list):
        return [strict_form(sub, depth + 1) for sub in value]
    if key in ("items", "additionalProperties"):
        return strict_form(value, depth + 1)
    return value


def describe(pointer: str) -> str:
    """A schema pointer in words: /properties/a/items/properties/b -> `a[].b`."""
    parts: list[str] = []
    tokens = split_pointer(pointer)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "properties" and i + 1 < len(tokens):
            parts.append(("." if parts else "") + tokens[i + 1])
            i += 2
            continue
        parts.append("[]" if token == "items" else f"/{token}")
        i += 1
    return "".join(parts) or "(root)"


def _child(pointer: str, *tokens: str | int) -> str:
    return pointer + "".join("/" + escape_token(str(t)) for t in tokens)


def _walk(old: Any, new: Any, pointer: str, depth: int) -> Iterator[SchemaDelta]:
    if old == new:
        return
    where = describe(pointer)
    if not isinstance(old, dict) or not isinstance(new, dict) or depth > MAX_DEPTH:
        yield SchemaDelta(
            "TD119", R, R, f"{where}: schema changed; review by hand", pointer, old, new
        )
        return
    if (yield from _types(old, new, pointer, where)):
        return  # a type changed outright: the keywords under it no longer compare
    yield from _values(old, new, pointer, where)
    yield from _bounds(old, new, pointer, where)
    yield from _texts(old, new, pointer, where)
    yield from _object(old, new, pointer, depth)
    yield from _nested(old, new, pointer, depth, where)
    for key in sorted((old.keys() | new.keys()) - HANDLED - IGNORED, key=str):
        if str(key).startswith("x-") or old.get(key) == new.get(key):
            continue
        yield SchemaDelta(
            "TD119", R, R,
            f"{where}: `{key}` changed (not compared keyword by keyword); review by hand",
            _child(pointer, key), old.get(key), new.get(key),
        )  # fmt: skip


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


def _types(
    old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, where: str
) -> Generator[SchemaDelta, None, bool]:
    """TD106/TD107/TD117; returns True (through StopIteration) when the types are disjoint."""
    before, after = _type_set(old), _type_set(new)
    if before == after:
        return False
    at = _child(pointer, "type")
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
def _values(
    old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, where: str
) -> Iterator[SchemaDelta]:
    yield from _enum(old.get("enum"), new.get("enum"), _child(pointer, "enum"), where)
    at = _child(pointer, "const")
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
            _child(pointer, "default"), old.get("default"), new.get("default"),
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
    at = _child(pointer, key)
    if before is None:
        yield SchemaDelta(rule, *added, f"{where}: {key} {after!r} added", at, before, after)
    elif after is None:
        yield SchemaDelta(rule, *removed, f"{where}: {key} {before!r} removed", at, before, after)
    else:
        yield SchemaDelta(
            rule,
            *changed,
            f"{where}: {key} changed from {before!r} to {after!r}",
            at,
            before,
            after,
        )


# -- bounds -------------------------------------------------------------------------------
def _number(value: Any) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


#: 2**53 - 1: a bound at or past it limits nothing a JSON number can say exactly (zod 4
#: writes it on every `.int()`), so it counts as no bound.
MAX_SAFE_INTEGER = 9007199254740991


def _effective(value: float | None, upper: bool) -> float | None:
    if value is None:
        return None
    return None if (value >= MAX_SAFE_INTEGER if upper else value <= -MAX_SAFE_INTEGER) else value


def _bounds(
    old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, where: str
) -> Iterator[SchemaDelta]:
    for key in (*UPPER_BOUNDS, *LOWER_BOUNDS):
        before, after = old.get(key), new.get(key)
        if before == after:
            continue
        at = _child(pointer, key)
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
def _texts(
    old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, where: str
) -> Iterator[SchemaDelta]:
    for key in TEXT_KEYWORDS:
        if old.get(key) != new.get(key):
            yield SchemaDelta(
                "TD118", R, S, f"{where}: {key} changed (it steers how the model fills arguments)",
                _child(pointer, key), old.get(key), new.get(key),
            )  # fmt: skip


# -- objects --------------------------------------------------------------------------------
def _closed(schema: Mapping[str, Any]) -> bool:
    return schema.get("additionalProperties") is False


def _object(
    old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, depth: int
) -> Iterator[SchemaDelta]:
    old_props = old.get("properties") if isinstance(old.get("properties"), dict) else {}
    new_props = new.get("properties") if isinstance(new.get("properties"), dict) else {}
    old_required = _required(old)
    new_required = _required(new)
    assert isinstance(old_props, dict) and isinstance(new_props, dict)
    for name in old_props:
        at = _child(pointer, "properties", name)
        what = describe(at)
        if name not in new_props:
            request = B if _closed(new) else R
            response = B if name in old_required else R
            yield SchemaDelta(
                "TD101", request, response, f"parameter {what} removed", at, old_props[name], None
            )
            continue
        yield from _walk(old_props[name], new_props[name], at, depth + 1)
    for name in new_props:
        if name in old_props:
            continue
        at = _child(pointer, "properties", name)
        what = describe(at)
        if name in new_required:
            yield SchemaDelta(
                "TD102", B, S, f"required parameter {what} added", at, None, new_props[name]
            )
        else:
            response = R if _closed(old) else S
            yield SchemaDelta(
                "TD103", S, response, f"optional parameter {what} added", at, None, new_props[name]
            )
    at = _child(pointer, "required")
    for name in sorted(new_required - old_required):
        if name in old_props:
            what = describe(_child(pointer, "properties", name))
            yield SchemaDelta(
                "TD104",
                B,
                S,
                f"parameter {what} became required",
                at,
                sorted(old_required),
                sorted(new_required),
                name,
            )
        elif name not in new_props:
            yield SchemaDelta(
                "TD102",
                B,
                S,
                f"required key {name!r} added at {describe(pointer)}",
                at,
                sorted(old_required),
                sorted(new_required),
                name,
            )
    for name in sorted(old_required - new_required):
        if name in new_props:
            what = describe(_child(pointer, "properties", name))
            yield SchemaDelta(
                "TD105",
                S,
                B,
                f"parameter {what} became optional",
                at,
                sorted(old_required),
                sorted(new_required),
                name,
            )
    yield from _additional(old, new, pointer, depth)


def _openness(value: Any) -> int:
    """Closed (false) < a schema for extra keys < open (true, or absent)."""
    return 0 if value is False else 2 if value is True else 1


def _required(schema: Mapping[str, Any]) -> set[str]:
    required = schema.get("required")
    return {r for r in required if isinstance(r, str)} if isinstance(required, list) else set()


def _additional(
    old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, depth: int
) -> Iterator[SchemaDelta]:
    before, after = old.get("additionalProperties", True), new.get("additionalProperties", True)
    if before == after:
        return
    at = _child(pointer, "additionalProperties")
    where = describe(pointer)
    if isinstance(before, dict) and isinstance(after, dict):
        yield from _walk(before, after, at, depth + 1)
        return
    tighter = _openness(after) < _openness(before)
    if tighter:
        yield SchemaDelta(
            "TD112",
            B,
            S,
            f"{where}: additionalProperties tightened (extra keys now rejected)",
            at,
            before,
            after,
        )
    else:
        yield SchemaDelta(
            "TD112", S, B, f"{where}: additionalProperties loosened", at, before, after
        )


# -- items and branches ---------------------------------------------------------------------
def _nested(
    old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, depth: int, where: str
) -> Iterator[SchemaDelta]:
    if old.get("items") != new.get("items"):
        at = _child(pointer, "items")
        before, after = old.get("items"), new.get("items")
        if isinstance(before, dict) and isinstance(after, dict):
            yield from _walk(before, after, at, depth + 1)
        else:
            yield SchemaDelta(
                "TD119", R, R, f"{where}: items changed; review by hand", at, before, after
            )
    for key in ("anyOf", "oneOf"):
        before, after = old.get(key), new.get(key)
        if before == after:
            continue
        at = _child(pointer, key)
        if not isinstance(before, list) or not isinstance(after, list):
            yield SchemaDelta(
                "TD119", R, R, f"{where}: {key} changed; review by hand", at, before, after
            )
        elif len(before) == len(after):
            for i, (b, a) in enumerate(zip(before, after, strict=True)):
                yield from _walk(b, a, _child(at, i), depth + 1)
        else:
            yield from _branches(before, after, at, where, key)


def _branches(
    before: list[Any], after: list[Any], at: str, where: str, key: str
) -> Iterator[SchemaDelta]:
    old_keys = [canonical_text(b) for b in before]
    new_keys = [canonical_text(a) for a in after]
    removed = [b for b, k in zip(before, old_keys, strict=True) if k not in new_keys]
    added = [a for a, k in zip(after, new_keys, strict=True) if k not in old_keys]
    if removed:
        yield SchemaDelta(
            "TD116", B, S, f"{where}: {len(removed)} {key} branch(es) removed", at, before, after
        )
    if added:
        yield SchemaDelta(
            "TD116", S, B, f"{where}: {len(added)} {key} branch(es) added", at, before, after
        )
