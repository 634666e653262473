"""TS214 (lint/rules/guidance.py): "use this when" guidance is not copied between tools."""

from __future__ import annotations

from tests.lint.helpers import assert_findings

COPIED = "Use this tool when the user asks about their account."


def test_guidance_copied_word_for_word_is_reported_on_each_copy() -> None:
    """Issue 34's miss: a 'use this when...' sentence copied from another tool sends the
    model to both; case and punctuation do not hide the copy."""
    text = (
        f"- {{name: get_balance, description: 'Returns the balance. {COPIED}'}}\n"
        f"- {{name: get_invoices, description: 'Lists invoices. {COPIED.upper()}'}}\n"
        f"- {{name: get_address, description: 'Returns the address.  {COPIED[:-1]}!'}}\n"
    )
    assert_findings(
        text, ["TS214 /tools/1/description", "TS214 /tools/2/description"], rule="TS214"
    )


def test_own_guidance_headings_and_negations_are_not_copies() -> None:
    own = (
        "- {name: get_balance, description: 'Returns the balance. Use this when the user asks how much money is left.'}\n"
        "- {name: get_invoices, description: 'Lists invoices. Use this when the user asks what they were billed.'}\n"
    )
    assert_findings(own, [], rule="TS214")
    headings = (
        '- name: a_tool\n  description: "Plans.\\n## When to Use This Tool\\nWhen not to use this tool"\n'
        '- name: b_tool\n  description: "Lists.\\n## When to Use This Tool\\nWhen not to use this tool"\n'
    )
    assert_findings(headings, [], rule="TS214")
    short = "- {name: a, description: 'Reads. Use it to read.'}\n- {name: b, description: 'Reads too. Use it to read.'}\n"
    assert_findings(short, [], rule="TS214")  # too short to tell anything apart


def test_a_lead_in_is_compared_with_the_list_after_it() -> None:
    """Sentry's MCP tools open their own lists with the same lead-in, "Use this tool
    when you need to:"; the list is the guidance, so only a copied list is a copy."""
    lead_in = "Use this tool when you need to:"
    own = (
        f'- name: find_projects\n  description: "Finds projects.\\n\\n{lead_in}\\n'
        '- View projects in an organization\\n- Find a project slug"\n'
        f'- name: find_teams\n  description: "Finds teams.\\n\\n{lead_in}\\n'
        '- View teams in an organization\\n- Find a team slug"\n'
    )
    assert_findings(own, [], rule="TS214")
    copied = own.replace(
        "teams in an organization\\n- Find a team", "projects in an organization\\n- Find a project"
    )
    assert_findings(copied, ["TS214 /tools/1/description"], rule="TS214")


def test_the_guidance_of_one_action_is_not_a_copy_between_tools() -> None:
    """GitLab's meta-tools (docker/mcp-registry gitlab-mcp-server) each list a
    `note_update` action ending "Use when the task asks to edit, fix, or amend a
    comment.": it picks the action once the tool is chosen by its object."""
    action = (
        "Only the author can edit a note. Use when the task asks to edit, fix, or amend a comment."
    )
    text = (
        f'- name: gitlab_issue\n  description: "Issues.\\n- note_update: Replace an issue note. {action}"\n'
        f'- name: gitlab_snippet\n  description: "Snippets.\\n- note_update: Replace a snippet note. {action}"\n'
    )
    assert_findings(text, [], rule="TS214")
    outside = text.replace("\\n- note_update: Replace an issue note. ", " ").replace(
        "\\n- note_update: Replace a snippet note. ", " "
    )
    assert_findings(outside, ["TS214 /tools/1/description"], rule="TS214")


def test_templated_guidance_that_names_each_tools_own_object_is_not_a_copy() -> None:
    """Autotask's and Okta's servers (docker/mcp-registry) write their guidance from one
    template with the tool's own object in it; one word apart, each fits only its tool."""
    text = (
        "- {name: list_ticket_statuses, description: 'Lists statuses. Use this to find status values for filtering or creating tickets.'}\n"
        "- {name: list_ticket_priorities, description: 'Lists priorities. Use this to find priority values for filtering or creating tickets.'}\n"
    )
    assert_findings(text, [], rule="TS214")
