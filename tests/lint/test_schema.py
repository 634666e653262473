"""TS3xx validity (lint/rules/schema.py): valid, self-contained parameter schemas."""

from __future__ import annotations

from tests.lint.helpers import assert_findings


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
