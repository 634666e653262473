"""TD101-TD120: each schema rule in both directions (the change and its reverse), for a
request (`parameters`) and a response (`outputSchema`, the same walk with classes flipped),
and the walk's independence of key order."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolsel.diff.model import ChangeClass
from toolsel.diff.rules.schema import MAX_DEPTH, compare_schemas, describe, strict_form

B, R, S = "breaking", "risky", "safe"


def obj(properties: dict[str, Any], required: list[str] = (), **extra: Any) -> dict[str, Any]:  # type: ignore[assignment]
    return {"type": "object", "properties": properties, "required": list(required), **extra}


def prop(**schema: Any) -> dict[str, Any]:
    return obj({"x": schema})


STR = {"type": "string"}

#: (case id, OLD, NEW, forward (rule, request class, response class), reverse (...))
CASES: list[tuple[str, Any, Any, tuple[str, str, str], tuple[str, str, str]]] = [
    ("TD101/TD103 optional", obj({"a": STR, "b": STR}), obj({"a": STR}), ("TD101", R, R), ("TD103", S, S)),
    ("TD101 closed", obj({"a": STR, "b": STR}, additionalProperties=False),
     obj({"a": STR}, additionalProperties=False), ("TD101", B, R), ("TD103", S, R)),
    ("TD102/TD101 required", obj({"a": STR}), obj({"a": STR, "b": STR}, ["b"]), ("TD102", B, S), ("TD101", R, B)),
    ("TD104/TD105", obj({"a": STR}), obj({"a": STR}, ["a"]), ("TD104", B, S), ("TD105", S, B)),
    ("TD106/TD107 narrowed", prop(type=["string", "integer"]), prop(type="string"), ("TD106", B, S), ("TD107", S, B)),
    ("TD106/TD107 number", prop(type="number"), prop(type="integer"), ("TD106", B, S), ("TD107", S, B)),
    ("TD106 disjoint", prop(type="string"), prop(type="integer"), ("TD106", B, B), ("TD106", B, B)),
    ("TD108/TD109 enum values", prop(enum=["a", "b"]), prop(enum=["a"]), ("TD108", B, S), ("TD109", S, R)),
    ("TD110/TD109 enum", prop(type="string"), prop(type="string", enum=["a"]), ("TD110", B, S), ("TD109", S, B)),
    ("TD110/TD109 const", prop(type="string"), prop(type="string", const="a"), ("TD110", B, S), ("TD109", S, B)),
    ("TD110 const changed", prop(const="a"), prop(const="b"), ("TD110", B, B), ("TD110", B, B)),
    ("TD111 default", prop(type="string"), prop(type="string", default="a"), ("TD111", R, S), ("TD111", R, S)),
    ("TD112 closed", obj({"a": STR}), obj({"a": STR}, additionalProperties=False), ("TD112", B, S), ("TD112", S, B)),
    ("TD112 schema", obj({}, additionalProperties={"type": "string"}), obj({}, additionalProperties=False),
     ("TD112", B, S), ("TD112", S, B)),
    ("TD113 pattern added", prop(type="string"), prop(type="string", pattern="^a"), ("TD113", B, S), ("TD113", S, B)),
    ("TD113 pattern changed", prop(pattern="^a"), prop(pattern="^b"), ("TD113", R, R), ("TD113", R, R)),
    ("TD114 max lowered", prop(maxLength=10), prop(maxLength=5), ("TD114", B, S), ("TD114", S, B)),
    ("TD114 max set", prop(type="string"), prop(type="string", maxLength=5), ("TD114", B, S), ("TD114", S, B)),
    ("TD114 min raised", prop(minimum=1), prop(minimum=2), ("TD114", B, S), ("TD114", S, B)),
    ("TD114 items", prop(minItems=0), prop(minItems=1), ("TD114", B, S), ("TD114", S, B)),
    ("TD115 format", prop(type="string"), prop(type="string", format="uri"), ("TD115", B, S), ("TD115", S, R)),
    ("TD115 format changed", prop(format="uri"), prop(format="email"), ("TD115", B, B), ("TD115", B, B)),
    ("TD116 branch", prop(anyOf=[STR, {"type": "integer"}]), prop(anyOf=[STR]), ("TD116", B, S), ("TD116", S, B)),
    ("TD117 nullable", prop(type=["string", "null"]), prop(type="string"), ("TD117", B, S), ("TD117", S, B)),
    ("TD117 openapi", prop(type="string", nullable=True), prop(type="string"), ("TD117", B, S), ("TD117", S, B)),
    ("TD118 description", prop(type="string", description="a"), prop(type="string", description="b"),
     ("TD118", R, S), ("TD118", R, S)),
    ("TD119 additionalProperties no schema", obj({}, additionalProperties={"type": "string"}),
     obj({}, additionalProperties=None), ("TD119", R, R), ("TD119", R, R)),
    ("TD119 unknown", prop(**{"$ref": "#/$defs/a"}), prop(**{"$ref": "#/$defs/b"}), ("TD119", R, R), ("TD119", R, R)),
    ("TD119 not", prop(type="string"), prop(type="string", **{"not": {"const": "a"}}), ("TD119", R, R), ("TD119", R, R)),
    ("nested items", prop(type="array", items=prop(enum=["a", "b"])), prop(type="array", items=prop(enum=["a"])),
     ("TD108", B, S), ("TD109", S, R)),
]  # fmt: skip


def _found(old: Any, new: Any) -> set[tuple[str, str, str]]:
    return {
        (d.rule, d.request.value, d.response.value)
        for d in compare_schemas(old, new, old_strict=False, new_strict=False)
    }


@pytest.mark.parametrize(
    ("old", "new", "forward", "reverse"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_each_rule_both_directions(old: Any, new: Any, forward: Any, reverse: Any) -> None:
    assert forward in _found(old, new)
    assert reverse in _found(new, old)


def test_equal_schemas_have_no_changes() -> None:
    for _, old, _, _, _ in CASES:
        assert _found(old, old) == set()


def test_strict_makes_every_property_required_and_closed() -> None:
    """Under strict, an 'optional' added property is a required one: breaking."""
    old, new = obj({"a": STR}), obj({"a": STR, "b": STR})
    assert ("TD103", S, S) in _found(old, new)
    rules = {d.rule for d in compare_schemas(old, new, old_strict=True, new_strict=True)}
    assert rules == {"TD102"}
    turned_on = {d.rule for d in compare_schemas(old, old, old_strict=False, new_strict=True)}
    assert turned_on == {"TD104", "TD112"}
    assert strict_form(obj({"a": obj({"b": STR})}))["properties"]["a"]["required"] == ["b"]


def test_pointers_are_in_words() -> None:
    assert describe("/properties/a/items/properties/b") == "a[].b"
    assert describe("") == "(root)"


def test_hostile_depth_is_compared_as_a_whole() -> None:
    deep_old: Any = {"type": "string"}
    deep_new: Any = {"type": "integer"}
    for _ in range(MAX_DEPTH * 2):  # the loader reads at most 128 levels
        deep_old, deep_new = {"items": deep_old}, {"items": deep_new}
    deltas = compare_schemas(deep_old, deep_new, old_strict=True, new_strict=True)
    assert [d.rule for d in deltas] == ["TD119"]


def test_non_object_schemas_and_odd_values_do_not_crash() -> None:
    assert {
        d.rule
        for d in compare_schemas(True, {"type": "string"}, old_strict=False, new_strict=False)
    } == {"TD119"}
    odd = _found(prop(maxLength="10", type=3, enum="a"), prop(maxLength=5, type=["x"], enum=None))
    assert odd


def _reordered(value: Any, data: st.DataObject) -> Any:
    if isinstance(value, dict):
        keys = data.draw(st.permutations(list(value)))
        return {k: _reordered(value[k], data) for k in keys}
    if isinstance(value, list):
        return [_reordered(v, data) for v in value]
    return value


@given(case=st.sampled_from(CASES), data=st.data())
def test_key_order_does_not_change_the_result(case: Any, data: st.DataObject) -> None:
    _, old, new, _, _ = case
    before = compare_schemas(old, new, old_strict=False, new_strict=False)
    after = compare_schemas(
        _reordered(old, data), _reordered(new, data), old_strict=False, new_strict=False
    )
    assert [(d.rule, d.pointer, d.message) for d in before] == [
        (d.rule, d.pointer, d.message) for d in after
    ]


def test_classes_are_change_classes() -> None:
    for d in compare_schemas(*CASES[0][1:3], old_strict=False, new_strict=False):
        assert isinstance(d.request, ChangeClass)


def test_nullable_without_a_type_changes_nothing() -> None:
    """OpenAPI's `nullable` adds null to a declared type; with none, any value already goes
    (a real registry added it to a typeless parameter: that was called "narrowed to nothing")."""
    for old, new in [(prop(), prop(nullable=True)), (prop(nullable=True), prop())]:
        assert compare_schemas(old, new, old_strict=False, new_strict=False) == []
    typed = compare_schemas(
        prop(type="string"), prop(type="string", nullable=True), old_strict=False, new_strict=False
    )
    assert [(d.rule, d.request) for d in typed] == [("TD117", ChangeClass.SAFE)]


@pytest.mark.parametrize(
    ("key", "value"),
    [("maximum", 9007199254740991), ("maximum", 2**60), ("minimum", -9007199254740991),
     ("maxLength", 9007199254740991), ("exclusiveMaximum", 9007199254740991)],
)  # fmt: skip
def test_a_bound_at_the_largest_safe_integer_limits_nothing(key: str, value: int) -> None:
    """zod 4 writes `maximum: 9007199254740991` on every `.int()`: adding it is safe."""
    added = compare_schemas(
        prop(type="integer"),
        prop(type="integer", **{key: value}),
        old_strict=False,
        new_strict=False,
    )
    assert [(d.rule, d.request.value) for d in added] == [("TD114", S)]
    assert "no limit" in added[0].message
    tighter = compare_schemas(
        prop(type="integer", **{key: value}), prop(type="integer", **{key: 10 if key.startswith(("max", "exclusiveMax")) else -10}),
        old_strict=False, new_strict=False,
    )  # fmt: skip
    assert [(d.rule, d.request.value) for d in tighter] == [("TD114", B)]


def test_changes_to_one_required_list_have_a_fingerprint_each(tmp_path: Any) -> None:
    from tests.diff.helpers import changes

    old = """
    - name: get
      description: Get one project item by its number.
      parameters: {type: object, properties: {owner: {type: string}, n: {type: integer}}, required: [owner, n]}
    """
    new = old.replace("required: [owner, n]", "required: []")
    found = changes(old, new, tmp_path)
    assert [c.rule for c in found] == ["TD105", "TD105"]
    assert len({c.fingerprint for c in found}) == 2


# -- each keyword's whole result: rule, both classes, pointer and message ------------------
def walk(before: Any, after: Any, **strict: bool) -> list[tuple[str, str, str, str, str]]:
    return [
        (d.rule, d.request.value, d.response.value, d.pointer, d.message)
        for d in compare_schemas(
            before, after, old_strict=strict.get("old", False), new_strict=strict.get("new", False)
        )
    ]


def values(old: Any, new: Any) -> list[tuple[Any, Any, str]]:
    return [
        (d.old, d.new, d.subject)
        for d in compare_schemas(old, new, old_strict=False, new_strict=False)
    ]


def test_strict_form_requires_and_closes_every_object_it_reaches() -> None:
    def props(name: str) -> dict[str, Any]:
        return {"properties": {name: {}}}

    def closed(name: str) -> dict[str, Any]:
        return {"properties": {name: {}}, "required": [name], "additionalProperties": False}

    schema = {
        "type": "object", "properties": {"a": props("b")}, "$defs": {"d": props("x")},
        "definitions": {"e": props("y")}, "anyOf": [props("z")], "oneOf": [props("o")],
        "allOf": [props("l")], "items": props("i"), "additionalProperties": props("k"),
        "not": props("n"), "else": [props("m")],
    }  # fmt: skip
    assert strict_form(schema) == {
        "type": "object", "properties": {"a": closed("b")}, "$defs": {"d": closed("x")},
        "definitions": {"e": closed("y")}, "anyOf": [closed("z")], "oneOf": [closed("o")],
        "allOf": [closed("l")], "items": closed("i"), "additionalProperties": False,
        "not": props("n"), "else": [props("m")], "required": ["a"],
    }  # fmt: skip
    # with no `properties`, a schema for extra keys is itself made strict
    assert strict_form({"additionalProperties": props("k"), "items": props("i")}) == {
        "additionalProperties": closed("k"),
        "items": closed("i"),
    }
    odd = {"properties": [1], "anyOf": {"x": props("p")}, "$defs": [props("q")]}
    assert strict_form(odd) == odd
    assert strict_form(True) is True


def test_strict_form_stops_past_the_depth_limit() -> None:
    schema: Any = props_chain(MAX_DEPTH + 1)
    normalised = strict_form(schema)
    for _ in range(MAX_DEPTH):
        assert normalised["required"] == ["p"]
        normalised = normalised["items"]
    assert normalised["required"] == ["p"]  # depth 64: still normalised
    assert "required" not in normalised["items"]  # depth 65: left as it is


def props_chain(levels: int) -> Any:
    """`levels` + 1 objects, each the `items` of the one before, each with property p."""
    schema: Any = {"properties": {"p": {}}}
    for _ in range(levels):
        schema = {"properties": {"p": {}}, "items": schema}
    return schema


def items_chain(levels: int, inner: Any) -> Any:
    for _ in range(levels):
        inner = {"items": inner}
    return inner


def test_the_walk_compares_keyword_by_keyword_up_to_the_depth_limit() -> None:
    at_limit = walk(
        items_chain(MAX_DEPTH, {"type": "string"}), items_chain(MAX_DEPTH, {"type": "integer"})
    )
    pointer = "/items" * MAX_DEPTH
    assert at_limit == [
        (
            "TD106",
            B,
            B,
            pointer + "/type",
            "[]" * MAX_DEPTH + ": type changed from string to integer",
        )
    ]
    past = walk(
        items_chain(MAX_DEPTH + 1, {"type": "string"}),
        items_chain(MAX_DEPTH + 1, {"type": "integer"}),
    )
    pointer = "/items" * (MAX_DEPTH + 1)
    assert past == [
        ("TD119", R, R, pointer, "[]" * (MAX_DEPTH + 1) + ": schema changed; review by hand")
    ]


@pytest.mark.parametrize(
    ("pointer", "words"),
    [("", "(root)"), ("/properties/a/items/properties/b", "a[].b"), ("/items", "[]"),
     ("/properties/a/anyOf/0/properties/b", "a/anyOf/0.b"), ("/anyOf/1", "/anyOf/1"),
     ("/properties", "/properties"), ("/properties/a~1b/properties/c~0d", "a/b.c~d"),
     ("/additionalProperties/properties/x", "/additionalProperties.x"),
     ("/properties/properties/properties/items", "properties.items")],
)  # fmt: skip
def test_describe(pointer: str, words: str) -> None:
    assert describe(pointer) == words


def test_a_schema_that_is_no_object_is_compared_whole() -> None:
    assert walk(True, {"type": "string"}) == [
        ("TD119", R, R, "", "(root): schema changed; review by hand")
    ]
    assert walk({"type": "string"}, False) == [
        ("TD119", R, R, "", "(root): schema changed; review by hand")
    ]
    assert values(True, {"type": "string"}) == [(True, {"type": "string"}, "")]
    assert walk(prop(type="string"), obj({"x": True})) == [
        ("TD119", R, R, "/properties/x", "x: schema changed; review by hand")
    ]


def test_types_narrowed_widened_changed_and_nullability() -> None:
    assert walk(prop(), prop(type="string")) == [
        ("TD106", B, S, "/properties/x/type", "x: type narrowed to string")
    ]
    assert walk(prop(type=["integer", "string"]), prop(type="integer")) == [
        ("TD106", B, S, "/properties/x/type", "x: type narrowed to integer")
    ]
    assert walk(prop(type="number"), prop(type=["integer"])) == [
        ("TD106", B, S, "/properties/x/type", "x: type narrowed to integer")
    ]
    assert walk(prop(type="integer"), prop(type=["string", "number"])) == [
        ("TD107", S, B, "/properties/x/type", "x: type widened to number | string")
    ]
    assert walk(prop(type="string"), prop()) == [
        ("TD107", S, B, "/properties/x/type", "x: type widened to any type")
    ]
    assert walk(prop(type="string"), prop(type=["integer", "boolean"])) == [
        ("TD106", B, B, "/properties/x/type", "x: type changed from string to boolean | integer")
    ]
    assert values(prop(type="string"), prop(type=["integer"])) == [("string", ["integer"], "")]
    assert walk(prop(type=["string", "null"]), prop(type="string")) == [
        ("TD117", B, S, "/properties/x/type", "x: no longer accepts null")
    ]
    assert walk(prop(type="string"), prop(type="string", nullable=True)) == [
        ("TD117", S, B, "/properties/x/type", "x: now accepts null")
    ]
    assert values(prop(type="string"), prop(type="string", nullable=True)) == [
        ("string", "string", "")
    ]
    assert walk(prop(type="string"), prop(type=["null", "integer"])) == [
        ("TD106", B, B, "/properties/x/type", "x: type changed from string to integer")
    ]
    # from any type to nullable: narrowed, and null was accepted already
    assert walk(prop(), prop(type=["string", "null"])) == [
        ("TD106", B, S, "/properties/x/type", "x: type narrowed to string")
    ]
    assert walk(prop(type="string", nullable="yes"), prop(type="string")) == []
    assert walk(prop(type="string"), prop(type=3)) == [
        ("TD107", S, B, "/properties/x/type", "x: type widened to any type")
    ]


def test_a_type_that_admits_nothing() -> None:
    assert walk(prop(type="string"), prop(type=[])) == [
        ("TD106", B, S, "/properties/x/type", "x: type narrowed to nothing")
    ]
    assert walk(prop(type=[]), prop(type="string")) == [
        ("TD107", S, B, "/properties/x/type", "x: type widened to string")
    ]


def test_a_disjoint_type_stops_the_walk_of_that_schema() -> None:
    old = prop(type="string", maxLength=3, pattern="^a")
    new = prop(type="integer", maximum=3)
    assert walk(old, new) == [
        ("TD106", B, B, "/properties/x/type", "x: type changed from string to integer")
    ]


def test_enum_introduced_dropped_values_removed_and_added() -> None:
    at = "/properties/x/enum"
    assert walk(prop(), prop(enum=["a"])) == [("TD110", B, S, at, "x: enum introduced")]
    assert walk(prop(enum=["a"]), prop()) == [("TD109", S, B, at, "x: enum dropped")]
    assert walk(prop(enum="a"), prop(enum="b")) == []  # neither is a list: no enum to compare
    assert walk(prop(enum=list("abcdefg")), prop(enum=["a", "h"])) == [
        ("TD108", B, S, at, "x: enum values removed: 'b', 'c', 'd', 'e', 'f' and 1 more"),
        ("TD109", S, R, at, "x: enum values added: 'h'"),
    ]
    assert walk(prop(enum=["a", "b"]), prop(enum=list("abcdefg"))) == [
        ("TD109", S, R, at, "x: enum values added: 'c', 'd', 'e', 'f', 'g'"),
    ]
    assert walk(prop(enum=[1, "1", None]), prop(enum=["1", None, 1])) == []
    assert walk(prop(enum=[{"a": 1, "b": 2}]), prop(enum=[{"b": 2, "a": 1}, 2])) == [
        ("TD109", S, R, at, "x: enum values added: 2")
    ]
    assert values(prop(enum=["a"]), prop(enum=["b"])) == [(["a"], ["b"], "")] * 2


def test_const_introduced_dropped_changed() -> None:
    at = "/properties/x/const"
    assert walk(prop(), prop(const="a")) == [("TD110", B, S, at, "x: const 'a' introduced")]
    assert walk(prop(const="a"), prop()) == [("TD109", S, B, at, "x: const 'a' dropped")]
    assert walk(prop(const="a"), prop(const=["a"])) == [("TD110", B, B, at, "x: const changed")]
    assert walk(prop(const=None), prop()) == [("TD109", S, B, at, "x: const None dropped")]
    assert walk(prop(), prop(const=None)) == [("TD110", B, S, at, "x: const None introduced")]
    assert walk(prop(const={"a": 1, "b": 2}, title="t"), prop(const={"b": 2, "a": 1}, title="u")) == [
        ("TD118", R, S, "/properties/x/title", "x: title changed (it steers how the model fills arguments)")
    ]  # fmt: skip
    assert values(prop(), prop(const=0)) == [(None, 0, "")]
    assert values(prop(const=0), prop()) == [(0, None, "")]


def test_default_added_removed_changed() -> None:
    at, why = "/properties/x/default", "(calls that omit it now behave differently)"
    assert walk(prop(), prop(default=1)) == [("TD111", R, S, at, f"x: default added {why}")]
    assert walk(prop(default=1), prop()) == [("TD111", R, S, at, f"x: default removed {why}")]
    assert walk(prop(default=1), prop(default=2)) == [
        ("TD111", R, S, at, f"x: default changed {why}")
    ]
    assert walk(prop(), prop(default=None)) == [("TD111", R, S, at, f"x: default added {why}")]
    assert walk(prop(default=None), prop()) == [("TD111", R, S, at, f"x: default removed {why}")]
    assert values(prop(default=1), prop(default=2)) == [(1, 2, "")]


def test_pattern_and_format_added_changed_removed() -> None:
    p, f = "/properties/x/pattern", "/properties/x/format"
    assert walk(prop(), prop(pattern="^a")) == [("TD113", B, S, p, "x: pattern '^a' added")]
    assert walk(prop(pattern="^a"), prop(pattern="^b")) == [
        ("TD113", R, R, p, "x: pattern changed from '^a' to '^b'")
    ]
    assert walk(prop(pattern="^a"), prop()) == [("TD113", S, B, p, "x: pattern '^a' removed")]
    assert walk(prop(), prop(format="uri")) == [("TD115", B, S, f, "x: format 'uri' added")]
    assert walk(prop(format="uri"), prop(format="email")) == [
        ("TD115", B, B, f, "x: format changed from 'uri' to 'email'")
    ]
    assert walk(prop(format="uri"), prop()) == [("TD115", S, R, f, "x: format 'uri' removed")]
    assert values(prop(pattern="^a"), prop()) == [("^a", None, "")]


@pytest.mark.parametrize(
    ("key", "looser", "tighter", "upper"),
    [("maxLength", 10, 5, True), ("maximum", 1.5, 1, True), ("exclusiveMaximum", 0, -1, True),
     ("maxItems", 3, 2, True), ("maxProperties", 9, 8, True), ("minLength", 1, 2, False),
     ("minimum", -1, 0, False), ("exclusiveMinimum", 0, 0.5, False), ("minItems", 0, 1, False),
     ("minProperties", 2, 3, False)],
)  # fmt: skip
def test_each_bound_tightened_loosened_set_removed(
    key: str, looser: float, tighter: float, upper: bool
) -> None:
    at = f"/properties/x/{key}"
    assert walk(prop(**{key: looser}), prop(**{key: tighter})) == [
        ("TD114", B, S, at, f"x: {key} {'lowered' if upper else 'raised'} to {tighter!r}")
    ]
    assert walk(prop(**{key: tighter}), prop(**{key: looser})) == [
        ("TD114", S, B, at, f"x: {key} {'raised' if upper else 'lowered'}")
    ]
    assert walk(prop(), prop(**{key: tighter})) == [
        ("TD114", B, S, at, f"x: {key} set to {tighter!r}")
    ]
    assert walk(prop(**{key: tighter}), prop()) == [("TD114", S, B, at, f"x: {key} removed")]
    assert values(prop(**{key: looser}), prop(**{key: tighter})) == [(looser, tighter, "")]


def test_a_bound_that_is_no_number_is_reviewed_by_hand() -> None:
    at = "/properties/x/maximum"
    message = "x: maximum changed; review by hand"
    assert walk(prop(maximum=5), prop(maximum="5")) == [("TD119", R, R, at, message)]
    assert walk(prop(maximum="5"), prop(maximum=5)) == [("TD119", R, R, at, message)]
    assert walk(prop(maximum=5), prop(maximum=True)) == [("TD119", R, R, at, message)]
    assert walk(prop(), prop(maximum=False)) == [("TD119", R, R, at, message)]
    assert walk(prop(maximum=5), prop(maximum=5.0)) == []


def test_bounds_at_and_past_the_largest_safe_integer() -> None:
    big, at = 9007199254740991, "/properties/x/maximum"
    assert walk(prop(), prop(maximum=big - 1)) == [
        ("TD114", B, S, at, f"x: maximum set to {big - 1}")
    ]
    assert walk(prop(maximum=big), prop()) == [
        ("TD114", S, S, at, f"x: maximum removed {big} (beyond the largest safe integer: no limit)")
    ]
    assert walk(prop(maximum=big), prop(maximum=big + 1)) == [
        (
            "TD114",
            S,
            S,
            at,
            f"x: maximum set to {big + 1} (beyond the largest safe integer: no limit)",
        )
    ]
    assert walk(prop(maximum=big), prop(maximum=100)) == [
        ("TD114", B, S, at, "x: maximum set to 100")
    ]
    assert walk(prop(maximum=100), prop(maximum=big)) == [("TD114", S, B, at, "x: maximum removed")]
    low = "/properties/x/minimum"
    assert walk(prop(), prop(minimum=-big + 1)) == [
        ("TD114", B, S, low, f"x: minimum set to {-big + 1}")
    ]
    assert walk(prop(minimum=-big), prop(minimum=big)) == [
        ("TD114", B, S, low, f"x: minimum set to {big}")
    ]
    assert walk(prop(minimum=big), prop()) == [("TD114", S, B, low, "x: minimum removed")]
    assert walk(prop(maxLength=-big), prop()) == [
        ("TD114", S, B, "/properties/x/maxLength", "x: maxLength removed")
    ]


def test_texts_steer_the_model() -> None:
    why = "(it steers how the model fills arguments)"
    assert walk(prop(description="a", title="t", examples=[1]), prop(description="b", title="u", examples=[2])) == [
        ("TD118", R, S, "/properties/x/description", f"x: description changed {why}"),
        ("TD118", R, S, "/properties/x/title", f"x: title changed {why}"),
        ("TD118", R, S, "/properties/x/examples", f"x: examples changed {why}"),
    ]  # fmt: skip
    assert values(prop(), prop(title="t")) == [(None, "t", "")]


def test_properties_removed_added_required_and_optional() -> None:
    assert walk(obj({"a": STR, "b": STR}, ["b"]), obj({"a": STR})) == [
        ("TD101", R, B, "/properties/b", "parameter b removed")
    ]
    assert walk(obj({"a": STR, "b": STR}, additionalProperties=False), obj({"a": STR}, additionalProperties=False)) == [
        ("TD101", B, R, "/properties/b", "parameter b removed")
    ]  # fmt: skip
    assert values(obj({"b": STR}), obj({})) == [(STR, None, "")]
    assert walk(obj({}), obj({"b": STR}, ["b"])) == [
        ("TD102", B, S, "/properties/b", "required parameter b added")
    ]
    assert walk(
        obj({}, additionalProperties=False), obj({"b": STR}, additionalProperties=False)
    ) == [("TD103", S, R, "/properties/b", "optional parameter b added")]
    assert walk(obj({}), obj({"b": STR})) == [
        ("TD103", S, S, "/properties/b", "optional parameter b added")
    ]
    assert values(obj({}), obj({"b": STR})) == [(None, STR, "")]


def test_required_lists_gained_and_lost() -> None:
    old = obj({"a": STR, "b": STR, "c": STR}, ["c"])
    new = obj({"a": STR, "b": STR, "c": STR}, ["b", "a", "k"])
    assert walk(old, new) == [
        ("TD104", B, S, "/required", "parameter a became required"),
        ("TD104", B, S, "/required", "parameter b became required"),
        ("TD102", B, S, "/required", "required key 'k' added at (root)"),
        ("TD105", S, B, "/required", "parameter c became optional"),
    ]
    assert values(old, new) == [(["c"], ["a", "b", "k"], name) for name in "abkc"]
    nested = walk(
        prop(type="object", properties={"y": STR}),
        prop(type="object", properties={"y": STR}, required=["y", "z"]),
    )
    assert nested == [
        ("TD104", B, S, "/properties/x/required", "parameter x.y became required"),
        ("TD102", B, S, "/properties/x/required", "required key 'z' added at x"),
    ]  # fmt: skip
    # a property removed while required is TD101 alone; text in `required` is all it reads
    assert walk(obj({"a": STR}, ["a"]), obj({})) == [
        ("TD101", R, B, "/properties/a", "parameter a removed")
    ]
    assert walk(obj({"a": STR}, [1, "a"]), obj({"a": STR}, ["a", 2])) == []
    assert walk(
        {"properties": {"a": STR}, "required": "a"}, {"properties": {"a": STR}, "required": ["a"]}
    ) == [("TD104", B, S, "/required", "parameter a became required")]


def test_properties_that_are_no_mapping_count_as_none() -> None:
    assert walk({"properties": ["a"]}, {"properties": {"a": STR}}) == [
        ("TD103", S, S, "/properties/a", "optional parameter a added"),
    ]
    assert walk({"properties": {"a": STR}}, {"properties": "a"}) == [
        ("TD101", R, R, "/properties/a", "parameter a removed"),
    ]


@pytest.mark.parametrize(
    ("before", "after", "tighter"),
    [(None, False, True), (True, False, True), (None, STR, True), (STR, False, True),
     (False, STR, False), (STR, True, False), (False, None, False)],
)  # fmt: skip
def test_additional_properties_tightened_or_loosened(
    before: Any, after: Any, tighter: bool
) -> None:
    def schema(value: Any) -> dict[str, Any]:
        return obj({"a": STR}) if value is None else obj({"a": STR}, additionalProperties=value)

    at = "/additionalProperties"
    expected = (
        ("TD112", B, S, at, "(root): additionalProperties tightened (extra keys now rejected)")
        if tighter
        else ("TD112", S, B, at, "(root): additionalProperties loosened")
    )
    assert walk(schema(before), schema(after)) == [expected]
    assert values(schema(before), schema(after)) == [
        (True if before is None else before, True if after is None else after, "")
    ]


def test_additional_properties_absent_is_true_and_schemas_are_walked() -> None:
    assert walk(obj({}), obj({}, additionalProperties=True)) == []
    assert walk(obj({}, additionalProperties={"type": "string"}), obj({}, additionalProperties={"type": "integer"})) == [
        ("TD106", B, B, "/additionalProperties/type", "/additionalProperties: type changed from string to integer")
    ]  # fmt: skip


def test_items_walked_or_reviewed_by_hand() -> None:
    assert walk(prop(items={"type": "string"}), prop(items={"type": "string", "maxLength": 2})) == [
        ("TD114", B, S, "/properties/x/items/maxLength", "x[]: maxLength set to 2")
    ]
    for before, after in (({"type": "string"}, [{"type": "string"}]), (None, STR), (STR, None)):
        old = prop() if before is None else prop(items=before)
        new = prop() if after is None else prop(items=after)
        assert walk(old, new) == [
            ("TD119", R, R, "/properties/x/items", "x: items changed; review by hand")
        ]
        assert values(old, new) == [(before, after, "")]


@pytest.mark.parametrize("key", ["anyOf", "oneOf"])
def test_branches_walked_in_place_or_added_and_removed(key: str) -> None:
    at = f"/properties/x/{key}"
    same_count = walk(
        prop(**{key: [STR, {"type": "integer"}]}), prop(**{key: [STR, {"type": "number"}]})
    )
    assert same_count == [("TD107", S, B, f"{at}/1/type", f"x/{key}/1: type widened to number")]
    old = prop(**{key: [STR, {"type": "integer"}, {"type": "boolean"}]})
    new = prop(**{key: [{"type": "boolean"}, STR]})
    assert walk(old, new) == [("TD116", B, S, at, f"x: 1 {key} branch(es) removed")]
    assert walk(new, old) == [("TD116", S, B, at, f"x: 1 {key} branch(es) added")]
    swapped = prop(**{key: [{"type": "null"}, {"type": "array"}, {"type": "object"}, STR]})
    assert walk(old, swapped) == [
        ("TD116", B, S, at, f"x: 2 {key} branch(es) removed"),
        ("TD116", S, B, at, f"x: 3 {key} branch(es) added"),
    ]
    assert values(old, new) == [(old["properties"]["x"][key], new["properties"]["x"][key], "")]
    assert values(new, old) == [(new["properties"]["x"][key], old["properties"]["x"][key], "")]
    assert walk(prop(**{key: STR}), prop(**{key: [STR]})) == [
        ("TD119", R, R, at, f"x: {key} changed; review by hand")
    ]
    assert walk(prop(**{key: [STR]}), prop()) == [
        ("TD119", R, R, at, f"x: {key} changed; review by hand")
    ]


def test_unknown_keywords_are_reviewed_ignored_or_extensions() -> None:
    assert walk(prop(**{"$ref": "#/a", "x-note": 1, "$comment": "a", "$schema": "s", "zeta": 1, "alpha": 2}),
                prop(**{"$ref": "#/b", "x-note": 2, "$comment": "b", "$schema": "t", "zeta": 1, "alpha": 3})) == [
        ("TD119", R, R, "/properties/x/$ref", "x: `$ref` changed (not compared keyword by keyword); review by hand"),
        ("TD119", R, R, "/properties/x/alpha", "x: `alpha` changed (not compared keyword by keyword); review by hand"),
    ]  # fmt: skip
    assert values(prop(**{"$ref": "#/a"}), prop()) == [("#/a", None, "")]
    assert walk(prop(**{"a/b": 1}), prop(**{"a/b": 2}))[0][3] == "/properties/x/a~1b"


def test_keywords_are_reported_in_one_order() -> None:
    old = obj({"a": STR}, enum=[1], default=1, pattern="a", format="f", maxLength=1, minLength=1,
              description="d", items=STR, anyOf=[STR], zz=1)  # fmt: skip
    new = obj({"b": STR}, enum=[2], default=2, pattern="b", format="g", maxLength=2, minLength=2,
              description="e", items={"type": "integer"}, anyOf=[{"type": "integer"}], zz=2)  # fmt: skip
    assert [(rule, pointer) for rule, _, _, pointer, _ in walk(old, new)] == [
        ("TD108", "/enum"), ("TD109", "/enum"), ("TD111", "/default"), ("TD113", "/pattern"),
        ("TD115", "/format"), ("TD114", "/maxLength"), ("TD114", "/minLength"),
        ("TD118", "/description"), ("TD101", "/properties/a"), ("TD103", "/properties/b"),
        ("TD106", "/items/type"), ("TD106", "/anyOf/0/type"), ("TD119", "/zz"),
    ]  # fmt: skip


#: How each kind of subschema nests one level deeper: (wrap, pointer step, words step).
NESTINGS = {
    "items": (lambda s: {"items": s}, "/items", "[]"),
    "properties": (lambda s: {"properties": {"p": s}}, "/properties/p", ".p"),
    "anyOf": (lambda s: {"anyOf": [s]}, "/anyOf/0", "/anyOf/0"),
    "additionalProperties": (
        lambda s: {"additionalProperties": s},
        "/additionalProperties",
        "/additionalProperties",
    ),
}


def nested(kind: str, levels: int, inner: Any) -> Any:
    wrap = NESTINGS[kind][0]
    for _ in range(levels):
        inner = wrap(inner)
    return inner


@pytest.mark.parametrize("kind", list(NESTINGS))
def test_the_depth_limit_holds_through_every_kind_of_subschema(kind: str) -> None:
    _, step, words = NESTINGS[kind]
    where = (words * MAX_DEPTH).removeprefix(".")
    assert walk(nested(kind, MAX_DEPTH, {"type": "string"}), nested(kind, MAX_DEPTH, {"type": "integer"})) == [
        ("TD106", B, B, step * MAX_DEPTH + "/type", f"{where}: type changed from string to integer")
    ]  # fmt: skip
    where = (words * (MAX_DEPTH + 1)).removeprefix(".")
    assert walk(
        nested(kind, MAX_DEPTH + 1, {"type": "string"}),
        nested(kind, MAX_DEPTH + 1, {"type": "integer"}),
    ) == [("TD119", R, R, step * (MAX_DEPTH + 1), f"{where}: schema changed; review by hand")]


@pytest.mark.parametrize(
    "kind", ["items", "properties", "anyOf", "$defs", "definitions", "oneOf", "allOf"]
)
def test_strict_form_s_depth_limit_holds_through_every_kind_of_subschema(kind: str) -> None:
    def wrap(schema: Any) -> Any:
        if kind in ("anyOf", "oneOf", "allOf"):
            return {kind: [schema]}
        if kind == "items":
            return {kind: schema}
        return {kind: {"p": schema}}

    def unwrap(schema: Any) -> Any:
        inner = schema[kind]
        return inner[0] if isinstance(inner, list) else inner if kind == "items" else inner["p"]

    chain: Any = {"properties": {"q": {}}}
    for _ in range(MAX_DEPTH + 1):
        chain = wrap(chain)
    normalised = strict_form(chain)
    for _ in range(MAX_DEPTH):
        normalised = unwrap(normalised)
    assert unwrap(normalised) == {"properties": {"q": {}}}  # depth 65: left as it is
    chain = {"properties": {"q": {}}}
    for _ in range(MAX_DEPTH):
        chain = wrap(chain)
    normalised = strict_form(chain)
    for _ in range(MAX_DEPTH):
        normalised = unwrap(normalised)
    assert normalised == {"properties": {"q": {}}, "required": ["q"], "additionalProperties": False}


def test_strict_applies_to_the_side_that_is_strict() -> None:
    schema = obj({"a": STR})
    assert walk(schema, schema, old=True) == [
        ("TD105", S, B, "/required", "parameter a became optional"),
        ("TD112", S, B, "/additionalProperties", "(root): additionalProperties loosened"),
    ]
    assert walk(schema, schema, new=True) == [
        ("TD104", B, S, "/required", "parameter a became required"),
        ("TD112", B, S, "/additionalProperties", "(root): additionalProperties tightened (extra keys now rejected)"),
    ]  # fmt: skip
    assert walk(schema, schema, old=True, new=True) == []


@pytest.mark.parametrize(
    ("old", "new", "rule", "values"),
    [
        (prop(type=["string", "integer"]), prop(type="string"), "TD106",
         (["string", "integer"], "string")),
        (prop(type="string"), prop(type=["string", "integer"]), "TD107",
         ("string", ["string", "integer"])),
        (prop(type=["string", "null"]), prop(type="string"), "TD117", (["string", "null"], "string")),
        (prop(**{"$ref": "#/$defs/a"}), prop(**{"$ref": "#/$defs/b"}), "TD119",
         ("#/$defs/a", "#/$defs/b")),
        (prop(oneOf=[STR]), prop(oneOf="string"), "TD119", ([STR], "string")),
        (prop(type="string", default="a"), prop(type="string", default="b"), "TD111", ("a", "b")),
    ],
)  # fmt: skip
def test_each_change_carries_the_value_before_and_after(
    old: Any, new: Any, rule: str, values: tuple[Any, Any]
) -> None:
    [delta] = compare_schemas(old, new, old_strict=False, new_strict=False)
    assert (delta.rule, (delta.old, delta.new)) == (rule, values)


def test_a_default_kept_is_no_change_beside_another() -> None:
    old = prop(type="string", default="a", pattern="^a")
    new = prop(type="string", default="a", pattern="^b")
    assert [d.rule for d in compare_schemas(old, new, old_strict=False, new_strict=False)] == [
        "TD113"
    ]


#: (case id, OLD, NEW, every change as (rule, value before, value after)): the values a
#: node's own keywords carry into `toolsel diff` (its `before` and `after`), both directions
#: where the reverse is another change.
KEYWORD_VALUES: list[tuple[str, Any, Any, list[tuple[str, Any, Any]]]] = [
    ("const introduced", prop(type="string"), prop(type="string", const="a"), [("TD110", None, "a")]),
    ("const dropped", prop(type="string", const="a"), prop(type="string"), [("TD109", "a", None)]),
    ("const changed", prop(const="a"), prop(const="b"), [("TD110", "a", "b")]),
    ("enum introduced", prop(type="string"), prop(type="string", enum=["a"]), [("TD110", None, ["a"])]),
    ("enum dropped", prop(type="string", enum=["a"]), prop(type="string"), [("TD109", ["a"], None)]),
    # an enum that is no list counts as no enum, but its value is still shown
    ("enum no list to a list", prop(enum="a"), prop(enum=["a"]), [("TD110", "a", ["a"])]),
    ("enum a list to no list", prop(enum=["a"]), prop(enum="a"), [("TD109", ["a"], "a")]),
    ("pattern added", prop(type="string"), prop(type="string", pattern="^a"), [("TD113", None, "^a")]),
    ("pattern removed", prop(type="string", pattern="^a"), prop(type="string"), [("TD113", "^a", None)]),
    ("pattern changed", prop(pattern="^a"), prop(pattern="^b"), [("TD113", "^a", "^b")]),
    ("format changed", prop(format="uri"), prop(format="email"), [("TD115", "uri", "email")]),
    ("bound raised", prop(maxLength=5), prop(maxLength=10), [("TD114", 5, 10)]),
    ("bound removed", prop(type="number", minimum=1), prop(type="number"), [("TD114", 1, None)]),
    ("description changed", prop(description="a"), prop(description="b"), [("TD118", "a", "b")]),
    # a bound reviewed by hand, or beyond any limit, and the next bound still compared
    ("bound not a number", prop(maxLength="5", minimum=1), prop(maxLength=5, minimum=2),
     [("TD119", "5", 5), ("TD114", 1, 2)]),
    ("bound beyond the safe integers", prop(maximum=2**53 - 1, minLength=1), prop(minLength=2),
     [("TD114", 2**53 - 1, None), ("TD114", 1, 2)]),
    ("bound moved beyond the safe integers", prop(maximum=2**53 - 1), prop(maximum=2**60),
     [("TD114", 2**53 - 1, 2**60)]),
    # a type narrowed (not changed outright): the node's other keywords are still compared
    ("type narrowed and more", prop(type=["string", "integer"], maxLength=10),
     prop(type="string", maxLength=5), [("TD106", ["string", "integer"], "string"), ("TD114", 10, 5)]),
    # a text kept is no change beside another
    ("description kept", prop(description="a", maxLength=10), prop(description="a", maxLength=5),
     [("TD114", 10, 5)]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("old", "new", "changes"), [c[1:] for c in KEYWORD_VALUES], ids=[c[0] for c in KEYWORD_VALUES]
)
def test_each_keyword_change_carries_its_values(
    old: Any, new: Any, changes: list[tuple[str, Any, Any]]
) -> None:
    found = compare_schemas(old, new, old_strict=False, new_strict=False)
    assert [(d.rule, d.old, d.new) for d in found] == changes


@pytest.mark.parametrize(
    ("old", "new", "changes"),
    [
        # a key that is no string (YAML allows it) is sorted as text, beside the others
        ({1: "a", "y": 1}, {1: "b", "y": 1}, [("TD119", "/1", "(root): `1` changed (not compared keyword by keyword); review by hand", "a", "b")]),
        # an extension changed first, then an unknown keyword: the second is still reviewed
        ({"x-a": 1, "y": 1}, {"x-a": 2, "y": 2}, [("TD119", "/y", "(root): `y` changed (not compared keyword by keyword); review by hand", 1, 2)]),
        # a required property that is new, then one that became required: both said
        (obj({"b": STR}), obj({"a": STR, "b": STR}, ["a", "b"]), [
            ("TD102", "/properties/a", "required parameter a added", None, STR),
            ("TD104", "/required", "parameter b became required", [], ["a", "b"])]),
        # a nested object closed: said where it is
        (prop(type="object"), prop(type="object", additionalProperties=False), [
            ("TD112", "/properties/x/additionalProperties", "x: additionalProperties tightened (extra keys now rejected)", True, False)]),
    ],
    ids=["a key that is no string", "an extension then a keyword", "required: new then existing", "a nested object closed"],
)  # fmt: skip
def test_the_walk_says_each_change_where_it_is_with_its_values(
    old: Any, new: Any, changes: list[tuple[str, str, str, Any, Any]]
) -> None:
    found = compare_schemas(old, new, old_strict=False, new_strict=False)
    assert [(d.rule, d.pointer, d.message, d.old, d.new) for d in found] == changes


@pytest.mark.parametrize(("before", "after"), [("x", True), (STR, None), (None, False), (1, STR)])
def test_additional_properties_that_are_no_schema_are_reviewed_by_hand(
    before: Any, after: Any
) -> None:
    # null, a string or a number is no schema: neither tighter nor looser than one
    old, new = obj({}, additionalProperties=before), obj({}, additionalProperties=after)
    message = "(root): additionalProperties changed to or from a value that is no schema; review by hand"  # fmt: skip
    assert walk(old, new) == [("TD119", R, R, "/additionalProperties", message)]
