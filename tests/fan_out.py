"""Schemas that cost exponential work to validate (issue 17), and a hard guard for tests that
must finish even if that work comes back.

`fan_out(levels, kind)`: L levels of definitions, each applying the next level twice to the
same value, so a validator that expands references visits the leaf 2^L times. With 40 levels
that is 10^12 visits: a regression cannot pass by luck, and `hard_timeout` stops it.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import strategies as st

DRAFT_07 = "http://json-schema.org/draft-07/schema#"

#: each kind -> (level i's schema given the reference to level i+1, the leaf)
_LEVELS: dict[str, Any] = {
    "allOf": lambda ref: {"allOf": [{"$ref": ref}, {"$ref": ref}]},
    "anyOf": lambda ref: {"anyOf": [{"$ref": ref}, {"$ref": ref}]},
    "oneOf": lambda ref: {"oneOf": [{"$ref": ref}, {"$ref": ref}]},
    "if-then-else": lambda ref: {"if": {"$ref": ref}, "then": {"$ref": ref}, "else": {"$ref": ref}},
    "ref-and-allOf": lambda ref: {"$ref": ref, "allOf": [{"$ref": ref}]},
    "dependentSchemas": lambda ref: {"dependentSchemas": {"x": {"$ref": ref}, "y": {"$ref": ref}}},
    "dynamicRef": lambda ref: {"allOf": [{"$dynamicRef": ref}, {"$dynamicRef": ref}]},
    "not-not": lambda ref: {"allOf": [{"not": {"not": {"$ref": ref}}}, {"$ref": ref}]},
}
KINDS = (*_LEVELS, "anchor", "draft-07")


def fan_out(levels: int, kind: str = "allOf") -> dict[str, Any]:
    """A tool's parameters: `x` refers to level 0; each level applies the next one twice."""
    shape = _LEVELS.get(kind, _LEVELS["allOf"])
    defs_key = "definitions" if kind == "draft-07" else "$defs"

    def ref(level: int) -> str:
        return f"#l{level}" if kind == "anchor" else f"#/{defs_key}/l{level}"

    defs: dict[str, Any] = {f"l{i}": shape(ref(i + 1)) for i in range(levels)}
    defs[f"l{levels}"] = {"type": "object"} if kind == "dependentSchemas" else {"type": "string"}
    if kind == "anchor":
        for level, definition in defs.items():
            definition["$anchor"] = level
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"x": {"$ref": ref(0)}},
        defs_key: defs,
    }
    if kind == "draft-07":
        schema["$schema"] = DRAFT_07
    return schema


def fan_out_value(kind: str = "allOf") -> dict[str, Any]:
    """An input that makes every level's subschemas apply (anyOf stops at a valid branch)."""
    if kind == "dependentSchemas":
        return {"x": {"x": 1, "y": 2}}
    return {"x": 1 if kind == "anyOf" else "v"}


def descending(levels: int) -> dict[str, Any]:
    """Each level applies the next one twice, but to the value's property `a`: every place
    applies a handful of subschemas, yet a value nested L levels deep gets 2^L."""
    defs: dict[str, Any] = {
        f"l{i}": {
            "allOf": [
                {"properties": {"a": {"$ref": f"#/$defs/l{i + 1}"}}},
                {"properties": {"a": {"$ref": f"#/$defs/l{i + 1}"}}},
            ]
        }
        for i in range(levels)
    }
    defs[f"l{levels}"] = {"type": "string"}
    return {"type": "object", "properties": {"x": {"$ref": "#/$defs/l0"}}, "$defs": defs}


def chain(levels: int, leaf: Any = "v") -> Any:
    """{"a": {"a": ... leaf}}, `levels` deep."""
    value = leaf
    for _ in range(levels):
        value = {"a": value}
    return value


def branching(levels: int) -> dict[str, Any]:
    """Definitions that each refer to the next level twice, under two properties: the work
    follows the input, which may be big (a full binary tree of `levels` levels)."""
    defs: dict[str, Any] = {
        f"l{i}": {
            "type": "object",
            "properties": {"a": {"$ref": f"#/$defs/l{i + 1}"}, "b": {"$ref": f"#/$defs/l{i + 1}"}},
            "additionalProperties": False,
        }
        for i in range(levels)
    }
    defs[f"l{levels}"] = {"type": "string", "pattern": "^[a-z]+$"}
    return {"type": "object", "properties": {"x": {"$ref": "#/$defs/l0"}}, "$defs": defs}


def tree(levels: int, leaf: Any = "v") -> Any:
    """A full binary tree of objects {"a": ..., "b": ...}, 2^levels leaves."""
    if levels == 0:
        return leaf
    child = tree(levels - 1, leaf)
    return {"a": child, "b": child}


class Hung(BaseException):
    """The guarded block ran past its hard timeout: the exponential work is back."""


@contextmanager
def hard_timeout(seconds: int) -> Iterator[None]:
    """Interrupt the block (a SIGALRM raising Hung in the main thread) after `seconds`:
    not a timing assertion, a guard so that a regression fails instead of hanging."""

    def expire(signum: int, frame: Any) -> None:
        raise Hung(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@st.composite
def reference_dags(draw: st.DrawFn) -> dict[str, Any]:
    """Up to 8 definitions, each applying a few later ones in place (a DAG, so the naive
    expansion ends), through allOf/anyOf/oneOf/not/$ref."""
    count = draw(st.integers(1, 8))
    defs: dict[str, Any] = {}
    for index in range(count):
        later = st.sampled_from(
            [f"#/$defs/d{j}" for j in range(index + 1, count)] or ["#/$defs/none"]
        )
        refs = draw(st.lists(later, max_size=3)) if index + 1 < count else []
        definition: dict[str, Any] = {"type": "string"}
        keyword = draw(st.sampled_from(["allOf", "anyOf", "oneOf", "not", "$ref"]))
        if refs and keyword == "not":
            definition["not"] = {"$ref": refs[0]}
        elif refs and keyword == "$ref":
            definition["$ref"] = refs[0]
        elif refs:
            definition[keyword] = [{"$ref": ref} for ref in refs]
        defs[f"d{index}"] = definition
    defs["none"] = {}
    return {"allOf": [{"$ref": "#/$defs/d0"}], "$defs": defs}
