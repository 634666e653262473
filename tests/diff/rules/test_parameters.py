"""TD101-TD120 on matched tools: `parameters` (a request, under `strict` when set) and
`outputSchema` (the same walk read as a response: TD120, with the class flipped)."""

from __future__ import annotations

from pathlib import Path

from tests.diff.helpers import changes, rows
from toolsel.diff.context import fingerprint

A = "- name: a\n  description: Reads a.\n"
PARAMETERS = "  parameters: {type: object, properties: {q: {type: string}}}\n"


def test_strict_turned_on_alone_requires_every_property_and_closes_the_object(
    tmp_path: Path,
) -> None:
    assert rows(A + PARAMETERS, A + PARAMETERS + "  strict: true\n", tmp_path) == [
        ("TD104", "breaking", "a", "/parameters/required", "parameter q became required"),
        ("TD112", "breaking", "a", "/parameters/additionalProperties",
         "(root): additionalProperties tightened (extra keys now rejected)"),
    ]  # fmt: skip
    assert rows(A + PARAMETERS + "  strict: true\n", A + PARAMETERS, tmp_path) == [
        ("TD105", "safe", "a", "/parameters/required", "parameter q became optional"),
        ("TD112", "safe", "a", "/parameters/additionalProperties", "(root): additionalProperties loosened"),
    ]  # fmt: skip


def test_a_parameter_change_is_located_and_fingerprinted_with_its_subject(tmp_path: Path) -> None:
    old = (
        A
        + "  parameters: {type: object, properties: {q: {type: string}, n: {type: integer}}, required: [q, n]}\n"
    )
    new = old.replace("required: [q, n]", "required: []")
    found = changes(old, new, tmp_path)
    assert [(c.rule, c.change_class.value, c.pointer, c.message) for c in found] == [
        ("TD105", "safe", "/parameters/required", "parameter n became optional"),
        ("TD105", "safe", "/parameters/required", "parameter q became optional"),
    ]
    assert [c.fingerprint for c in found] == [
        fingerprint("TD105", "a", "/parameters/required", ["n", "q"], [], "n"),
        fingerprint("TD105", "a", "/parameters/required", ["n", "q"], [], "q"),
    ]
    assert (found[0].old.pointer, found[0].old.value, found[0].new.value) == (  # type: ignore[union-attr]
        "/tools/0/parameters/required", ["n", "q"], []
    )  # fmt: skip


def test_a_nested_pointer_is_split_into_the_tool_s_position(tmp_path: Path) -> None:
    old = A + "  parameters: {type: object, properties: {'a/b': {type: string, maxLength: 9}}}\n"
    new = old.replace("maxLength: 9", "maxLength: 5")
    (change,) = changes(old, new, tmp_path)
    assert (change.rule, change.pointer, change.message) == (
        "TD114", "/parameters/properties/a~1b/maxLength", "a/b: maxLength lowered to 5"
    )  # fmt: skip
    assert (change.new.pointer, change.new.line, change.old.value, change.new.value) == (  # type: ignore[union-attr]
        "/tools/0/parameters/properties/a~1b/maxLength", 4, 9, 5
    )  # fmt: skip


OUTPUT = "  output_schema: {type: object, properties: {n: {type: integer}}, required: [n]}\n"


def test_an_output_schema_is_read_as_a_response(tmp_path: Path) -> None:
    assert rows(A, A + OUTPUT, tmp_path) == [
        ("TD120", "safe", "a", "/output_schema/properties/n",
         "outputSchema: required property n added (TD102, read as a response)"),
        ("TD120", "safe", "a", "/output_schema/type",
         "outputSchema: (root): type narrowed to object (TD106, read as a response)"),
    ]  # fmt: skip
    assert rows(A + OUTPUT, A, tmp_path) == [
        ("TD120", "breaking", "a", "/output_schema/properties/n",
         "outputSchema: property n removed (TD101, read as a response)"),
        ("TD120", "breaking", "a", "/output_schema/type",
         "outputSchema: (root): type widened to any type (TD107, read as a response)"),
    ]  # fmt: skip
    optional = A + OUTPUT.replace("required: [n]", "required: []")
    found = changes(A + OUTPUT, optional, tmp_path)
    assert [(c.rule, c.change_class.value, c.pointer, c.message) for c in found] == [
        ("TD120", "breaking", "/output_schema/required",
         "outputSchema: property n became optional (TD105, read as a response)"),
    ]  # fmt: skip
    assert found[0].fingerprint == fingerprint(
        "TD120/TD105", "a", "/output_schema/required", ["n"], [], "n"
    )


def test_strict_does_not_apply_to_the_output_schema(tmp_path: Path) -> None:
    open_output = (
        A + "  strict: true\n  output_schema: {type: object, properties: {n: {type: integer}}}\n"
    )
    closed = open_output.replace(
        "properties: {n: {type: integer}}", "properties: {n: {type: integer}, m: {type: string}}"
    )
    assert rows(open_output, closed, tmp_path) == [
        ("TD120", "safe", "a", "/output_schema/properties/m",
         "outputSchema: optional property m added (TD103, read as a response)"),
    ]  # fmt: skip
