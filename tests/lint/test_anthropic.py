"""TS42x (lint/rules/anthropic.py): Anthropic tools and strict tool use."""

from __future__ import annotations

from tests.lint.helpers import assert_findings

STRICT = ("anthropic-strict",)


def test_names() -> None:
    assert_findings(
        "- {name: files.read, description: d}\n",
        ["TS421 /tools/0/name"],
        rule="TS421",
        targets=("anthropic",),
    )
    assert_findings(
        "- {name: files_read, description: d}\n", [], rule="TS421", targets=("anthropic",)
    )


def test_strict_features_that_answer_400() -> None:
    text = (
        "- {name: a, description: d, parameters: {type: object, additionalProperties: false, properties:"
        " {n: {type: integer, minimum: 1}, l: {type: array, minItems: 2}}}}\n"
    )
    assert_findings(
        text,
        [
            "TS422 /tools/0/parameters/properties/n/minimum",
            "TS422 /tools/0/parameters/properties/l/minItems",
        ],
        rule="TS422",
        targets=STRICT,
    )


def test_strict_limits_and_regex() -> None:
    text = "".join(
        f"- {{name: t{i}, description: d, strict: true, parameters: {{type: object, properties: {{}}, additionalProperties: false}}}}\n"
        for i in range(21)
    )
    assert_findings(text, ["TS423 /tools"], rule="TS423", targets=STRICT)
    regex = "- {name: a, description: d, parameters: {type: object, additionalProperties: false, properties: {p: {type: string, pattern: '(?=x)'}}}}\n"
    assert_findings(
        regex, ["TS424 /tools/0/parameters/properties/p/pattern"], rule="TS424", targets=STRICT
    )
