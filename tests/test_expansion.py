"""toolsel/expansion.py: the subschemas one value can be checked against are counted exactly,
in time linear in the schema, and in-place loops are found."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from tests.fan_out import KINDS, branching, descending, fan_out, hard_timeout, reference_dags
from toolsel.expansion import CAP, MAX_APPLIED, measure


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_of_fan_out_is_too_costly_and_names_the_ref(kind: str) -> None:
    with hard_timeout(60):
        expansion = measure(fan_out(40, kind))
    assert expansion.too_costly and expansion.loop is None
    assert expansion.applied > 2**40 and expansion.pointer == "/properties/x"
    assert expansion.where == "/properties/x/$ref"
    assert expansion.repeats >= 2**40
    assert "applies" in expansion.reason() and f"limit {MAX_APPLIED:,}" in expansion.reason()


def test_the_figures_for_allof_are_exact() -> None:
    expansion = measure(fan_out(40))
    # level i applies itself, its two `{$ref}` items and level i+1 twice: c(i) = 3 + 2c(i+1),
    # c(40) = 1, so c(0) = 2^42 - 3; and `x` applies itself and level 0
    assert expansion.applied == 2**42 - 2
    assert (expansion.repeated, expansion.repeats) == ("/$defs/l40", 2**40)
    assert "#/$defs/l40 alone 1,099,511,627,776 times" in expansion.reason()


def test_counts_stop_at_the_cap_and_measuring_stays_linear() -> None:
    """4,000 levels: 2^4000 subschemas, counted in one pass over the schema."""
    with hard_timeout(60):
        expansion = measure(fan_out(4000))
    assert expansion.applied == CAP and f"over {CAP:,} subschemas" in expansion.reason()


@pytest.mark.parametrize("make", [branching, descending])
def test_work_that_follows_the_input_is_not_counted_here(make: Any) -> None:
    expansion = measure(make(40))
    assert not expansion.too_costly and expansion.applied <= 5


@pytest.mark.parametrize(
    ("schema", "loop"),
    [
        ({"allOf": [{"$ref": "#"}]}, "/allOf/0/$ref"),
        (
            {
                "properties": {"p": {"$ref": "#/$defs/a"}},
                "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"anyOf": [{"$ref": "#/$defs/a"}]}},
            },
            "/$defs/b/anyOf/0/$ref",
        ),
        ({"$defs": {"a": {"not": {"$ref": "#"}}}, "$ref": "#/$defs/a"}, "/$defs/a/not/$ref"),
    ],
)
def test_in_place_loops_are_found(schema: dict[str, Any], loop: str) -> None:
    expansion = measure(schema)
    assert expansion.too_costly and expansion.loop == loop and expansion.where == loop
    assert "never ends" in expansion.reason()


def test_recursion_through_properties_and_items_is_fine() -> None:
    tree = {
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$ref": "#"}}},
        "additionalProperties": {"$ref": "#/$defs/leaf"},
        "$defs": {"leaf": {"anyOf": [{"type": "string"}, {"$ref": "#"}]}},
    }
    assert not measure(tree).too_costly


def test_references_resolve_inside_embedded_resources() -> None:
    """`#/$defs/x` inside a resource with its own `$id` means that resource's `$defs`: the
    fan-out lives there, and the root's own `$defs/x` is harmless."""
    inner = fan_out(30)
    inner["$id"] = "https://example.com/inner"
    harmless = {
        "$defs": {"l0": {"type": "string"}},
        "properties": {"y": {"$ref": "#/$defs/l0"}, "z": {"$ref": "#/$defs/inner"}},
    }
    assert not measure(harmless).too_costly
    harmless["$defs"]["inner"] = inner
    assert measure(harmless).too_costly


def test_draft_07_ignores_what_sits_beside_a_ref() -> None:
    schema = fan_out(40, "ref-and-allOf")
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    assert not measure(schema).too_costly  # draft-07 applies only the `$ref`


# -- the count equals a naive expansion ---------------------------------------------------
def naive(schema: Any, root: dict[str, Any]) -> int:
    """Subschemas applied in place, by expanding every reference (exponential)."""
    total = 1
    for keyword in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(keyword, []):
            total += naive(sub, root)
    if "not" in schema:
        total += naive(schema["not"], root)
    if "$ref" in schema:
        total += naive(root["$defs"][schema["$ref"].rsplit("/", 1)[-1]], root)
    return total


@settings(max_examples=150, deadline=None)
@given(reference_dags())
def test_the_count_equals_the_naive_expansion(schema: dict[str, Any]) -> None:
    assert measure(schema).applied == naive(schema, schema)
