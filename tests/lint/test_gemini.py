"""TS44x (lint/rules/gemini.py): Gemini function declarations."""

from __future__ import annotations

from tests.lint.helpers import assert_findings

GEMINI = ("gemini",)


def test_names_keywords_and_enums() -> None:
    assert_findings(
        "- {name: 1st_tool, description: d}\n",
        ["TS441 /tools/0/name"],
        rule="TS441",
        targets=GEMINI,
    )
    text = (
        "- {name: a, description: d, parameters: {type: object, properties:"
        " {p: {oneOf: [{type: string}]}, n: {type: integer, enum: [1, 2]}}}}\n"
    )
    assert_findings(
        text, ["TS442 /tools/0/parameters/properties/p/oneOf"], rule="TS442", targets=GEMINI
    )
    assert_findings(
        text, ["TS443 /tools/0/parameters/properties/n/enum"], rule="TS443", targets=GEMINI
    )


def test_properties_only_on_objects_and_ref_rules() -> None:
    text = "- {name: a, description: d, parameters: {type: object, properties: {p: {type: string, properties: {}}}}}\n"
    assert_findings(
        text, ["TS444 /tools/0/parameters/properties/p/properties"], rule="TS444", targets=GEMINI
    )
    ref = "- {name: a, description: d, parameters: {type: object, properties: {p: {$ref: '#/$defs/p', type: string}}, $defs: {p: {type: string}}}}\n"
    assert_findings(
        ref, ["TS445 /tools/0/parameters/properties/p/$ref"], rule="TS445", targets=GEMINI
    )


def test_tool_count() -> None:
    text = "".join(f"- {{name: t{i}, description: d}}\n" for i in range(21))
    assert_findings(text, ["TS446 /tools"], rule="TS446", targets=GEMINI)


def test_only_keywords_the_file_holds_are_reported() -> None:
    """A property with a `default` is validated (TS311) before the Gemini rules run; that
    check must not leave the metaschema's defaults (`uniqueItems`, `patternProperties`,
    `definitions`, `properties`) in the schema for TS442/TS444/TS445 to find."""
    text = (
        "- {name: a, description: d, parameters: {type: object, properties:"
        " {pages: {type: array, default: [Home], items: {type: string, minLength: 1}}}}}\n"
    )
    assert_findings(text, [], rule="TS44", targets=GEMINI)


def test_gemini_s_own_upper_case_object_may_hold_properties() -> None:
    text = (
        "- {name: a, description: d, category: c, parameters: {type: object, properties:"
        " {p: {type: OBJECT, properties: {q: {type: STRING, properties: {}}}}}}}\n"
    )
    assert_findings(
        text,
        ["TS444 /tools/0/parameters/properties/p/properties/q/properties"],
        rule="TS444",
        targets=GEMINI,
    )
