"""TS40x (lint/rules/openai.py): OpenAI function calling and strict mode."""

from __future__ import annotations

import pytest

from tests.lint.helpers import assert_findings, lint_text

STRICT = ("openai-strict",)


def test_strict_mode_needs_closed_objects_and_every_property_required() -> None:
    text = (
        "- {name: a, description: d, parameters: {type: object, properties: {p: {type: string}}}}\n"
    )
    assert_findings(text, ["TS401 /tools/0/parameters"], rule="TS401", targets=STRICT)
    assert_findings(text, ["TS402 /tools/0/parameters/properties/p"], rule="TS402", targets=STRICT)
    assert_findings(text, [], rule="TS40")  # only under an OpenAI target


def test_unsupported_keywords_and_formats() -> None:
    text = (
        "- {name: a, description: d, parameters: {type: object, additionalProperties: false, required: [p, q],"
        " properties: {p: {allOf: [{type: string}]}, q: {type: string, format: ipv5}}}}\n"
    )
    assert_findings(
        text,
        [
            "TS403 /tools/0/parameters/properties/p/allOf",
            "TS403 /tools/0/parameters/properties/q/format",
        ],
        rule="TS403",
        targets=STRICT,
    )


def test_strict_is_also_checked_on_strict_tools_under_the_base_target() -> None:
    text = "- {name: a, description: d, strict: true, parameters: {type: object, properties: {}}}\n"
    assert_findings(text, ["TS401 /tools/0/parameters"], rule="TS401", targets=("openai",))


def test_tool_count() -> None:
    text = "".join(f"- {{name: t{i}, description: d}}\n" for i in range(21))
    assert_findings(text, ["TS406 /tools"], rule="TS406", targets=("openai",))


@pytest.mark.parametrize(("rule", "target"), [("TS406", "openai"), ("TS446", "gemini")])
def test_a_recommended_tool_count_is_advice_and_a_hard_limit_an_error(
    rule: str, target: str
) -> None:
    """Over the soft count (20) is info: a registry is what a client selects a request's
    tools from; over the API's hard limit (128, 512) is an error."""
    soft = "".join(f"- {{name: t{i}, description: d}}\n" for i in range(21))
    hard = "".join(f"- {{name: t{i}, description: d}}\n" for i in range(513))
    for text, severity in ((soft, "info"), (hard, "error")):
        found = [f.severity.value for f in lint_text(text, targets=(target,)) if f.rule == rule]
        assert found == [severity]


def test_strict_mode_refuses_one_of_and_default() -> None:
    from tests.lint.helpers import assert_findings

    assert_findings(
        "- name: a\n  description: d\n  parameters: {type: object, additionalProperties: false, required: [p, q], properties: {p: {oneOf: [{type: string}, {type: integer}]}, q: {type: string, default: x}}}\n",
        [
            "TS403 /tools/0/parameters/properties/p/oneOf",
            "TS403 /tools/0/parameters/properties/q/default",
        ],
        rule="TS403",
        targets=("openai-strict",),
    )
