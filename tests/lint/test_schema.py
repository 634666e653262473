"""TS3xx validity (lint/rules/schema.py): valid, self-contained parameter schemas."""

from __future__ import annotations

import json

import pytest

from tests.fan_out import KINDS, branching, descending, fan_out, hard_timeout
from tests.lint.helpers import assert_findings, lint_text


def test_root_must_be_an_object_without_a_union() -> None:
    assert_findings(
        "- {name: a, description: d, parameters: {type: string}}\n",
        ["TS301 /tools/0/parameters"],
        rule="TS301",
    )
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, anyOf: [{}]}}\n",
        ["TS301 /tools/0/parameters/anyOf"],
        rule="TS301",
    )


def test_invalid_schema_points_into_the_schema() -> None:
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: {n: {type: integr}}}}\n",
        ["TS302 /tools/0/parameters/properties/n/type"],
        rule="TS302",
    )


def test_a_schema_with_integers_beyond_64_bits_is_still_checked() -> None:
    """orjson refuses such integers; the check used to skip the whole schema."""
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: "
        "{n: {type: integr, maximum: 18446744073709551616}}}}\n",
        ["TS302 /tools/0/parameters/properties/n/type"],
        rule="TS302",
    )
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: "
        "{n: {type: integer, maximum: 18446744073709551616, minimum: -9223372036854775809}}}}\n",
        [],
        rule="TS302",
    )


def test_required_enum_default_and_draft3() -> None:
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: {}, required: [pth]}}\n",
        ["TS303 /tools/0/parameters/required/0"],
        rule="TS303",
    )
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: {m: {type: string, enum: [x, y, x]}}}}\n",
        ["TS310 /tools/0/parameters/properties/m/enum/2"],
        rule="TS310",
    )
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: {n: {type: integer, default: x}}}}\n",
        ["TS311 /tools/0/parameters/properties/n/default"],
        rule="TS311",
    )
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: {p: {type: string, required: true}}}}\n",
        ["TS314 /tools/0/parameters/properties/p/required"],
        rule="TS314",
    )


def test_references_stay_local_and_finite() -> None:
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: {p: {$ref: 'https://x/s.json'}}}}\n",
        ["TS315 /tools/0/parameters/properties/p/$ref"],
        rule="TS315",
    )
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: {c: {$ref: '#'}}}}\n",
        ["TS316 /tools/0/parameters/properties/c/$ref"],
        rule="TS316",
    )


def test_catastrophic_patterns_and_patterns_re2_cannot_run() -> None:
    text = (
        "- {name: a, description: d, parameters: {type: object, properties: {"
        "p: {type: string, pattern: '^(a+)+$'}, q: {type: string, pattern: '^[a-z]+$'},"
        " r: {type: string, pattern: '(?=x)x'}}, patternProperties: {'^(x|xx)*$': {}}}}\n"
    )
    findings = lint_text(text)
    got = [(f.rule, f.pointer, f.severity.value) for f in findings if f.rule == "TS319"]
    assert got == [
        ("TS319", "/tools/0/parameters/properties/p/pattern", "error"),
        ("TS319", "/tools/0/parameters/properties/r/pattern", "warning"),
        ("TS319", "/tools/0/parameters/patternProperties/^(x|xx)*$", "error"),
    ]


def test_dynamic_refs_outside_the_schema_are_external_too() -> None:
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: {p: {$dynamicRef: 'https://x/s'}}}}\n",
        ["TS315 /tools/0/parameters/properties/p/$dynamicRef"],
        rule="TS315",
    )


def test_enum_duplicates_follow_json_equality() -> None:
    # 1 and 1.0 are one JSON value; true and 1 are two; objects compare in any key order
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: {m: {enum: [1, true, 1.0, {x: 1, y: [2]}, {y: [2], x: 1}, [1], [true]]}}}}\n",
        [
            "TS310 /tools/0/parameters/properties/m/enum/2",
            "TS310 /tools/0/parameters/properties/m/enum/4",
        ],
        rule="TS310",
    )


def test_a_long_enum_is_checked_in_one_pass() -> None:
    """40,000 values (a pairwise `in list` check took minutes; benchmarks/hostile.py times it)."""
    values = [f"v{i}" for i in range(40_000)] + ["v7"]
    findings = lint_text(
        "- {name: a, description: d, parameters: {type: object, properties: {m: {type: string, enum: ["
        + ", ".join(values)
        + "]}}}}\n",
        select=("TS310",),
    )
    assert [f.pointer for f in findings if f.rule == "TS310"] == [
        "/tools/0/parameters/properties/m/enum/40000"
    ]


def test_integers_a_double_cannot_hold_are_a_warning_where_they_sit() -> None:
    findings = lint_text(
        "- name: a\n  description: d\n  parameters:\n    type: object\n    properties:\n"
        "      id: {type: integer, minimum: 0, maximum: 18446744073709551615, default: 9007199254740993}\n"
        "      safe: {type: integer, maximum: 9007199254740991, minimum: -9007199254740991}\n"
        "      big_float: {type: number, maximum: 1.0e+300}\n"
        "      pick: {enum: [1, -9007199254740992, {deep: [12345678901234567890]}], const: 2e3}\n"
    )
    got = [(f.pointer, f.line, f.severity.value) for f in findings if f.rule == "TS320"]
    assert got == [
        ("/tools/0/parameters/properties/id/maximum", 7, "warning"),
        ("/tools/0/parameters/properties/id/default", 7, "warning"),
        ("/tools/0/parameters/properties/pick/enum/1", 10, "warning"),
        ("/tools/0/parameters/properties/pick/enum/2/deep/0", 10, "warning"),
    ]
    (first,) = [f for f in findings if f.rule == "TS320" and f.pointer.endswith("/maximum")]
    assert "18446744073709551615" in first.message and "18446744073709552000" in first.message


def test_unused_definitions_and_the_tools_that_repeat_them() -> None:
    from tests.lint.helpers import lint_text

    defs = "$defs: {Used: {type: string}, Chain: {$ref: '#/$defs/Used'}, Dead: {type: object}}"
    tool = (
        "- {name: NAME, description: d, parameters: {type: object, "
        "properties: {x: {$ref: '#/$defs/Chain'}}, " + defs + "}}\n"
    )
    text = tool.replace("NAME", "a") + tool.replace("NAME", "b")
    findings = [f for f in lint_text(text) if f.rule == "TS322"]
    assert [(f.pointer, f.severity.value) for f in findings] == [
        ("/tools/0/parameters/$defs", "info"),
        ("/tools/1/parameters/$defs", "info"),
    ]
    assert "'Dead' is not used" in findings[0].message
    assert "the same unused definitions ship with 2 tools" in findings[0].message


@pytest.mark.parametrize("kind", KINDS)
def test_a_schema_that_fans_out_is_an_error_at_its_ref(kind: str) -> None:
    tool = {"name": "a", "description": "d", "parameters": fan_out(40, kind)}
    with hard_timeout(60):
        findings = [f for f in lint_text(json.dumps([tool])) if f.rule == "TS321"]
    assert [(f.pointer, f.severity.value) for f in findings] == [
        ("/tools/0/parameters/properties/x/$ref", "error")
    ]
    assert "subschemas to one value (limit 5,000)" in findings[0].message
    assert "reference each shared definition once per level" in findings[0].message


def test_an_in_place_loop_is_an_error_and_recursion_through_properties_is_not() -> None:
    loop = {"type": "object", "properties": {"p": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/a"}]}}}  # fmt: skip
    assert_findings(
        json.dumps([{"name": "a", "description": "d", "parameters": loop}]),
        ["TS321 /tools/0/parameters/$defs/a/anyOf/1/$ref"],
        rule="TS321",
    )
    for schema in (branching(40), descending(40), fan_out(8)):
        assert_findings(
            json.dumps([{"name": "a", "description": "d", "parameters": schema}]), [], rule="TS321"
        )


def test_an_invalid_or_external_schema_is_left_to_ts302_and_ts315() -> None:
    for schema in (
        {"type": "object", "properties": {"p": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"$id": 5}}},
        {"type": "object", "properties": {"p": {"$ref": "https://x/s.json"}}},
    ):
        assert_findings(
            json.dumps([{"name": "a", "description": "d", "parameters": schema}]), [], rule="TS321"
        )


def test_an_integer_beyond_a_double_is_checked_not_a_crash() -> None:
    """orjson reads integers beyond 64 bits as doubles and refuses those beyond a double's
    range (1.8e308): TS302 raised out of `toolsel lint` on such a schema."""
    vast = "1" + "0" * 400
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: "
        f"{{n: {{type: integer, maximum: {vast}}}, m: {{type: integr, minimum: -{vast}}}}}}}}}\n",
        ["TS302 /tools/0/parameters/properties/m/type"],
        rule="TS302",
    )
