"""TS0xx (lint/rules/structure.py): the file parses and has the registry's shape."""

from __future__ import annotations

from tests.lint.helpers import assert_findings


def test_loader_problems_are_reported_by_kind() -> None:
    assert_findings("- name: a\n  description: [unclosed\n", ["TS001 "], rule="TS00")
    assert_findings(
        "- name: a\n  description: x\n  description: y\n",
        ["TS002 /tools/0/description"],
        rule="TS002",
    )
    assert_findings(
        "- name: a\n  description: d\n  tags: one\n  deprecated: 'yes'\n",
        ["TS003 /tools/0/tags", "TS003 /tools/0/deprecated"],
        rule="TS003",
    )
    assert_findings(
        "- description: d\n- name: b\n", ["TS004 /tools/0", "TS004 /tools/1"], rule="TS004"
    )
    assert_findings(
        "- name: a\n  description: d\n  requries: [b]\n", ["TS006 /tools/0/requries"], rule="TS006"
    )


def test_missing_parameters_points_at_the_name() -> None:
    assert_findings("- name: a\n  description: d\n", ["TS005 /tools/0/name"], rule="TS005")
    assert_findings(
        "- name: a\n  description: d\n  parameters: {type: object, properties: {}}\n",
        [],
        rule="TS005",
    )


def test_duplicate_and_near_duplicate_names() -> None:
    text = (
        "- {name: get_user, description: d}\n- {name: getUser, description: d}\n"
        "- {name: get_user, description: d}\n"
    )
    assert_findings(text, ["TS007 /tools/2/name"], rule="TS007")
    assert_findings(text, ["TS008 /tools/1/name"], rule="TS008")


def test_built_in_tools_are_noted_not_errors() -> None:
    from tests.lint.helpers import lint_text

    text = "- type: file_search\n- type: web_search_20250305\n  name: web_search\n" + (
        "- name: a\n  description: Reads a file.\n"
    )
    found = [
        (f.rule, f.severity.value, f.pointer)
        for f in lint_text(text)
        if f.rule in ("TS004", "TS010", "TS006")
    ]
    assert found == [("TS010", "info", "/tools/0"), ("TS010", "info", "/tools/1")]
