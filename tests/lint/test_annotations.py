"""TS514 (lint/rules/annotations.py): annotations agree with the tool's own words."""

from __future__ import annotations

import pytest

from tests.lint.helpers import assert_findings


def mcp_tool(name: str, description: str, annotations: str) -> str:
    return (
        f"- name: {name}\n  description: {description!r}\n  inputSchema: {{type: object}}\n"
        f"  annotations: {annotations}\n"
    )


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("browser_hover", "Hover over an element on the page."),
        ("browser_take_screenshot", "Take a screenshot of the current page."),
        ("browser_navigate", "Navigate to a URL."),
        ("browser_resize", "Resize the browser window."),
        ("list_issues", "Lists the open issues of a repository."),
    ],
)
def test_a_destructive_label_on_a_tool_that_only_looks_blames_the_annotation(
    name: str, description: str
) -> None:
    """Issue 34: TS503 said hover, resize, screenshot and navigate did not say what they
    change, because their server annotates them destructive. The annotation is wrong."""
    explicit = mcp_tool(name, description, "{readOnlyHint: false, destructiveHint: true}")
    assert_findings(explicit, ["TS514 /tools/0/annotations/destructiveHint"], rule="TS5")
    defaulted = mcp_tool(name, description, "{readOnlyHint: false}")
    assert_findings(defaulted, ["TS514 /tools/0/annotations/readOnlyHint"], rule="TS5")
    right = mcp_tool(name, description, "{readOnlyHint: false, destructiveHint: false}")
    assert_findings(right, [], rule="TS5")


def test_a_destructive_tool_that_says_what_it_changes_is_not_a_contradiction() -> None:
    text = mcp_tool(
        "browser_close", "Close the page.", "{readOnlyHint: false, destructiveHint: true}"
    )
    assert_findings(text, [], rule="TS514")
    vague = mcp_tool("handle_cluster", "Handles the cluster.", "{destructiveHint: true}")
    assert_findings(vague, ["TS503 /tools/0/description"], rule="TS5")  # its words are vague


def test_read_only_on_a_tool_that_writes_or_deletes() -> None:
    by_name = mcp_tool("delete_branch", "Removes a branch.", "{readOnlyHint: true}")
    assert_findings(by_name, ["TS514 /tools/0/annotations/readOnlyHint"], rule="TS514")
    by_text = mcp_tool(
        "sync_notes", "Copies notes; older notes are overwritten.", "{readOnlyHint: true}"
    )
    assert_findings(by_text, ["TS514 /tools/0/annotations/readOnlyHint"], rule="TS514")
    reader = mcp_tool("list_deleted", "Lists deleted branches.", "{readOnlyHint: true}")
    assert_findings(reader, [], rule="TS514")


def test_not_destructive_on_a_tool_that_overwrites() -> None:
    """Round three's miss: a file 'with the same name is replaced' under destructiveHint
    false; a negated statement ('never replaces') is not one."""
    replaces = mcp_tool(
        "send_file",
        "Puts a text file on the desktop. A file with the same name is replaced.",
        "{readOnlyHint: false, destructiveHint: false}",
    )
    assert_findings(replaces, ["TS514 /tools/0/annotations/destructiveHint"], rule="TS514")
    never = mcp_tool(
        "prepare_upload",
        "Creates an upload URL; the upload never replaces the current version.",
        "{readOnlyHint: false, destructiveHint: false}",
    )
    assert_findings(never, [], rule="TS514")


def test_a_browser_input_that_only_scrolls_is_read_by_its_description() -> None:
    """Round four (Playwright MCP): `browser_mouse_wheel` names no verb, its description
    opens with one ("Scroll mouse wheel"): the destructive label is TS514's, not a
    description that hides its effects (TS503)."""
    wheel = mcp_tool("browser_mouse_wheel", "Scroll mouse wheel", "{readOnlyHint: false, destructiveHint: true}")  # fmt: skip
    assert_findings(wheel, ["TS514 /tools/0/annotations/destructiveHint"], rule="TS5")
    refresher = mcp_tool("cache_flush", "Flush the cache.", "{destructiveHint: true}")
    assert_findings(refresher, [], rule="TS514")  # no looking verb: not TS514's


@pytest.mark.parametrize(
    ("name", "flagged"),
    [
        ("browser_pdf_save", True),  # a namespaced name ends with its verb
        ("save_page", True),
        ("notes_delete", False),  # two words: `notes` could be the verb's object or a verb
        ("page_save_status", False),  # the verb is not last
        ("browser_pdf_preview", False),
        ("get_latest_commit", False),  # a reading verb makes the last word a noun
        ("list_blog_post", False),
        ("browser_snapshot_save", True),  # a looking word is no reading verb
    ],
)
def test_read_only_on_a_namespaced_name_that_ends_with_a_writing_verb(
    name: str, flagged: bool
) -> None:
    text = mcp_tool(name, "Page as PDF.", "{readOnlyHint: true}")
    assert_findings(text, ["TS514 /tools/0/annotations/readOnlyHint"] if flagged else [], rule="TS514")  # fmt: skip


def test_a_hyphenated_header_name_is_not_a_change_verb() -> None:
    """Round four (Chrome DevTools MCP): "Set-Cookie" in a reader's description is a
    header, not the verb "set": the tool still only reads."""
    getter = mcp_tool(
        "get_network_request",
        "Gets a network request; shows its 'Cookie' and 'Set-Cookie' headers.",
        "{readOnlyHint: false}",
    )
    assert_findings(getter, ["TS514 /tools/0/annotations/readOnlyHint"], rule="TS514")
    setter = mcp_tool("get_token", "Gets a token and sets the session cookie.", "{readOnlyHint: false}")  # fmt: skip
    assert_findings(setter, [], rule="TS514")  # it says it changes something


def test_a_reading_verb_after_a_namespace_word_is_the_name_s_verb() -> None:
    """Round four (Notion MCP, generated from OpenAPI): `API-query-data-source` is a read
    that its POST method made destructive; the annotation is wrong, not the description."""
    query = mcp_tool("API-query-data-source", "Notion | Query a data source", "{destructiveHint: true}")  # fmt: skip
    assert_findings(query, ["TS514 /tools/0/annotations/destructiveHint"], rule="TS5")
    two_words = mcp_tool("data_query", "Notion | Query a data source", "{destructiveHint: true}")
    assert_findings(two_words, ["TS514 /tools/0/annotations/destructiveHint"], rule="TS514")
    writer = mcp_tool("API-patch-page", "Notion | Update page properties", "{destructiveHint: true}")  # fmt: skip
    assert_findings(writer, [], rule="TS514")
