"""TD101-TD120: a tool's `parameters` (a request: the model writes, the tool reads) and its
`outputSchema` (a response: the tool writes, the agent reads), compared keyword by keyword.

One walk serves both directions: each difference carries its class for a request and for a
response, because what narrows a request (breaking) narrows a response (safe), and the
other way round. Under `strict` (OpenAI's structured outputs) every property is required
and no other key is allowed, so both sides are normalised that way before the walk.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from toolsel.diff.canonical import canonical_text
from toolsel.diff.model import ChangeClass, SchemaDelta
from toolsel.diff.rules.keywords import bound_changes, text_changes, type_changes, value_changes
from toolsel.registry.pointer import join_pointer, split_pointer

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
#: Deeper schemas are compared as a whole (TD119), so no input can exhaust the stack.
MAX_DEPTH = 64


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


def _walk(old: Any, new: Any, pointer: str, depth: int) -> Iterator[SchemaDelta]:
    if old == new:
        return
    where = describe(pointer)
    if not isinstance(old, dict) or not isinstance(new, dict) or depth > MAX_DEPTH:
        yield SchemaDelta(
            "TD119", R, R, f"{where}: schema changed; review by hand", pointer, old, new
        )
        return
    if (yield from type_changes(old, new, pointer, where)):
        return  # a type changed outright: the keywords under it no longer compare
    yield from value_changes(old, new, pointer, where)
    yield from bound_changes(old, new, pointer, where)
    yield from text_changes(old, new, pointer, where)
    yield from _object(old, new, pointer, depth)
    yield from _nested(old, new, pointer, depth, where)
    for key in sorted((old.keys() | new.keys()) - HANDLED - IGNORED, key=str):
        if str(key).startswith("x-") or old.get(key) == new.get(key):
            continue
        yield SchemaDelta(
            "TD119", R, R,
            f"{where}: `{key}` changed (not compared keyword by keyword); review by hand",
            join_pointer(pointer, key), old.get(key), new.get(key),
        )  # fmt: skip


# -- objects --------------------------------------------------------------------------------
def _closed(schema: Mapping[str, Any]) -> bool:
    return schema.get("additionalProperties") is False


def _object(
    old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, depth: int
) -> Iterator[SchemaDelta]:
    old_props, new_props = _properties(old), _properties(new)
    old_required, new_required = _required(old), _required(new)
    for name in old_props:
        at = join_pointer(pointer, "properties", name)
        if name in new_props:
            yield from _walk(old_props[name], new_props[name], at, depth + 1)
            continue
        request = B if _closed(new) else R
        response = B if name in old_required else R
        message = f"parameter {describe(at)} removed"
        yield SchemaDelta("TD101", request, response, message, at, old_props[name], None)
    for name in new_props:
        if name in old_props:
            continue
        at = join_pointer(pointer, "properties", name)
        if name in new_required:
            message = f"required parameter {describe(at)} added"
            yield SchemaDelta("TD102", B, S, message, at, None, new_props[name])
        else:
            response = R if _closed(old) else S
            message = f"optional parameter {describe(at)} added"
            yield SchemaDelta("TD103", S, response, message, at, None, new_props[name])
    yield from _required_changes(old_required, new_required, old_props, new_props, pointer)
    yield from _additional(old, new, pointer, depth)


def _required_changes(
    old_required: set[str],
    new_required: set[str],
    old_props: Mapping[str, Any],
    new_props: Mapping[str, Any],
    pointer: str,
) -> Iterator[SchemaDelta]:
    """TD104/TD105 for properties on both sides; TD102 for a required key with no property
    (a required property that is new is TD102 already)."""
    at = join_pointer(pointer, "required")
    for name in sorted(new_required - old_required):
        if name in old_props:
            what = describe(join_pointer(pointer, "properties", name))
            rule, message = "TD104", f"parameter {what} became required"
        elif name not in new_props:
            rule, message = "TD102", f"required key {name!r} added at {describe(pointer)}"
        else:
            continue
        yield SchemaDelta(rule, B, S, message, at, sorted(old_required), sorted(new_required), name)
    for name in sorted(old_required - new_required):
        if name in new_props:
            what = describe(join_pointer(pointer, "properties", name))
            message = f"parameter {what} became optional"
            yield SchemaDelta(
                "TD105", S, B, message, at, sorted(old_required), sorted(new_required), name
            )


def _properties(schema: Mapping[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties")
    return properties if isinstance(properties, dict) else {}


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
    at = join_pointer(pointer, "additionalProperties")
    where = describe(pointer)
    if isinstance(before, dict) and isinstance(after, dict):
        yield from _walk(before, after, at, depth + 1)
        return
    if not isinstance(before, bool | dict) or not isinstance(after, bool | dict):
        # null, a string, a number: no schema, so neither tighter nor looser
        message = f"{where}: additionalProperties changed to or from a value that is no schema; review by hand"  # fmt: skip
        yield SchemaDelta("TD119", R, R, message, at, before, after)
        return
    if _openness(after) < _openness(before):
        message = f"{where}: additionalProperties tightened (extra keys now rejected)"
        yield SchemaDelta("TD112", B, S, message, at, before, after)
    else:
        message = f"{where}: additionalProperties loosened"
        yield SchemaDelta("TD112", S, B, message, at, before, after)


# -- items and branches ---------------------------------------------------------------------
def _nested(
    old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, depth: int, where: str
) -> Iterator[SchemaDelta]:
    if old.get("items") != new.get("items"):
        at = join_pointer(pointer, "items")
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
        at = join_pointer(pointer, key)
        if not isinstance(before, list) or not isinstance(after, list):
            yield SchemaDelta(
                "TD119", R, R, f"{where}: {key} changed; review by hand", at, before, after
            )
        elif len(before) == len(after):
            for i, (b, a) in enumerate(zip(before, after, strict=True)):
                yield from _walk(b, a, join_pointer(at, i), depth + 1)
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
