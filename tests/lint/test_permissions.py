"""TS501-TS503, TS513 (lint/rules/permissions.py): permissions, annotations, side effects."""

from __future__ import annotations

import pytest

from tests.lint.helpers import assert_findings


def test_permissions() -> None:
    assert_findings(
        "- {name: a, description: d, permission: superuser}\n",
        ["TS501 /tools/0/permission"],
        rule="TS501",
    )
    assert_findings(
        "- {name: a, description: d, permission: write, annotations: {readOnlyHint: true}}\n",
        ["TS502 /tools/0/annotations/readOnlyHint"],
        rule="TS502",
    )
    assert_findings(
        "- {name: a, description: Handles the cluster., permission: dangerous}\n",
        ["TS503 /tools/0/description"],
        rule="TS503",
    )


MCP_READER = (
    "- name: get_pod\n  description: Returns one pod by name.\n  inputSchema: {type: object}\n"
)


def test_side_effects_read_plain_statements_of_change() -> None:
    """Issue 18's false alarms: plain statements of the change count."""
    for description in (
        "Creates a new page in the workspace.",
        "Uninstall a Helm release.",
        "Close the browser page.",
        "Make selective edits to a text file.",
    ):
        assert_findings(
            f"- {{name: a, description: '{description}', permission: dangerous}}\n",
            [],
            rule="TS503",
        )


def test_mcp_defaults_are_not_a_fault_of_the_description() -> None:
    """An MCP tool without annotations is `dangerous` by the protocol's defaults: TS503 does
    not fault what it says; TS513 says the annotations are missing when it only reads."""
    assert_findings(MCP_READER, [], rule="TS503")
    assert_findings(MCP_READER, ["TS513 /tools/0/name"], rule="TS513")
    annotated = MCP_READER + "  annotations: {readOnlyHint: true}\n"
    assert_findings(annotated, [], rule="TS513")
    writer = "- name: delete_pod\n  description: Deletes one pod.\n  inputSchema: {type: object}\n"
    assert_findings(writer, [], rule="TS513")  # the default (destructive) is right for it
    wrong = MCP_READER + "  annotations: {readOnlyHint: false, destructiveHint: true}\n"
    assert_findings(wrong, [], rule="TS503")
    assert_findings(wrong, [], rule="TS513")  # the annotations are there, and wrong: TS514
    # a destructive MCP tool that does not say what it changes is still reported
    silent = (
        "- name: handle_cluster\n  description: Handles the cluster.\n"
        "  inputSchema: {type: object}\n  annotations: {destructiveHint: true}\n"
    )
    assert_findings(silent, ["TS503 /tools/0/description"], rule="TS503")


@pytest.mark.parametrize(
    "description",
    [
        "Press mouse down",
        "Press the left mouse button",
        "Select an option in a dropdown",
        "Open a new tab and load a URL.",
        "Manage Kubernetes nodes with cordon, drain, and uncordon operations",
        "Notion | Append block children",
    ],
)
def test_a_description_stating_the_input_it_performs_says_what_it_changes(
    description: str,
) -> None:
    """Round four (Playwright MCP): pressing a mouse button or selecting an option is the
    change itself, stated plainly, as "Click an element" is."""
    text = f"- name: browser_act\n  description: {description}\n  permission: dangerous\n"
    assert_findings(text, [], rule="TS503")
    vague = "- name: browser_act\n  description: Handle a dialog\n  permission: dangerous\n"
    assert_findings(vague, ["TS503 /tools/0/description"], rule="TS503")
