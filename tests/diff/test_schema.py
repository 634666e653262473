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
