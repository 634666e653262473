"""`--method cc` reproduces Claude Code's ToolSearch: the reference's worked examples, exactly."""

from __future__ import annotations

import pytest

from toolsel.ranking import cc
from toolsel.ranking.index import ToolMeta


def meta(name: str, description: str, hint: str | None = None) -> ToolMeta:
    return ToolMeta(
        name, None, "read", False, None, False, True, (), (), (), (), None, hint, description
    )


DEFERRED = (
    meta("NotebookEdit", "Edit cells of a Jupyter notebook (.ipynb)."),
    meta("Read", "Read a file from the local filesystem."),
    meta("mcp__slack__send_message", "Send a message to a Slack channel."),
    meta("mcp__slack__list_channels", "List channels in the Slack workspace."),
    meta(
        "mcp__github__create_issue",
        "Create an issue in a GitHub repository.",
        "file a bug report ticket",
    ),
    meta("WebFetch", "Fetch a URL and return its content as markdown."),
    meta("mcp__email__send_message", "Send an email message to a recipient."),
)

WORKED_EXAMPLES = {
    "notebook jupyter": [("NotebookEdit", 14)],
    "slack send": [
        ("mcp__slack__send_message", 28),
        ("mcp__slack__list_channels", 14),
        ("mcp__email__send_message", 14),
    ],
    "+slack send": [("mcp__slack__send_message", 28), ("mcp__slack__list_channels", 14)],
    "send message": [("mcp__slack__send_message", 28), ("mcp__email__send_message", 28)],
    "bug report": [("mcp__github__create_issue", 8)],
    "Read": [("Read", 0)],
    "read": [("Read", 0)],
    "mcp__slack": [("mcp__slack__send_message", 0), ("mcp__slack__list_channels", 0)],
    "fetch": [("WebFetch", 12)],
    "web": [("WebFetch", 10)],
    "issue github": [("mcp__github__create_issue", 28)],
    "+github send": [("mcp__github__create_issue", 14)],
    "chan": [("mcp__slack__list_channels", 6)],
}


@pytest.mark.parametrize("query", list(WORKED_EXAMPLES))
def test_worked_example(query: str) -> None:
    got = [(DEFERRED[m.index].name, m.score) for m in cc.search(DEFERRED, query)]
    assert got == WORKED_EXAMPLES[query]


def test_name_parsing() -> None:
    assert cc.parse_tool_name("mcp__oh-my-claudecode__ask_codex").parts == (
        "oh-my-claudecode",
        "ask",
        "codex",
    )
    assert cc.parse_tool_name("NotebookEdit").parts == ("notebook", "edit")
    assert cc.parse_tool_name("getHTTPStatus").parts == ("get", "httpstatus")


def test_query_terms_split_on_whitespace_only() -> None:
    # the known Claude Code miss (oh-my-claudecode#814): `ask_codex` is one term, and it is
    # neither a name part, nor inside one, nor in the space-joined `full` name
    tools = (meta("mcp__plugin_x__ask_codex", "Ask Codex a question."),)
    assert cc.search(tools, "ask_codex") == []
    assert [m.score for m in cc.search(tools, "codex")] == [14]


def test_default_max_results_is_five() -> None:
    tools = tuple(meta(f"Tool{i}", "send things") for i in range(9))
    assert len(cc.search(tools, "send")) == cc.DEFAULT_MAX_RESULTS == 5


def test_cc_method_through_the_cli(cli, write) -> None:
    import json

    lines = ["tools:"] + [
        f"  - name: {t.name}\n    description: {json.dumps(t.description)}"
        + (f"\n    search_hint: {t.search_hint}" if t.search_hint else "")
        for t in DEFERRED
    ]
    path = str(write("cc.yaml", "\n".join(lines) + "\n"))
    data = json.loads(cli("rank", "-r", path, "slack send", "--method", "cc", "-f", "json").stdout)
    assert [(r["name"], r["raw_score"]) for r in data["results"]] == [
        ("mcp__slack__send_message", 28.0),
        ("mcp__slack__list_channels", 14.0),
        ("mcp__email__send_message", 14.0),
    ]
