"""`--method cc` reproduces Claude Code's ToolSearch: the reference's worked examples, exactly."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

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


# -- the indexed scorer against a rule-for-rule transcription --------------------------------


def reference_search(tools: tuple[ToolMeta, ...], query: str, max_results: int) -> list:
    """Claude Code's `searchToolsWithKeywords`, transcribed rule for rule and scoring every
    tool for every term: what `cc.search` must return, tool for tool and point for point."""
    import re

    query_lower = query.lower().strip()
    for index, tool in enumerate(tools):
        if tool.name.lower() == query_lower:
            return [(index, 0)]
    if query_lower.startswith("mcp__") and len(query_lower) > 5:
        found = [(i, 0) for i, t in enumerate(tools) if t.name.lower().startswith(query_lower)]
        return found[:max_results]
    terms = query_lower.split()
    required = [t[1:] for t in terms if t.startswith("+") and len(t) > 1]
    scoring = [t[1:] if t.startswith("+") and len(t) > 1 else t for t in terms]
    scored = []
    for index, tool in enumerate(tools):
        parsed = cc.parse_tool_name(tool.name)
        description = tool.description.lower()
        hint = " ".join((tool.search_hint or "").split()).lower()

        def word(term: str, text: str) -> bool:
            return re.search(r"\b" + re.escape(term) + r"\b", text, re.ASCII) is not None

        if not all(
            any(term in part for part in parsed.parts)
            or word(term, description)
            or word(term, hint)
            for term in required
        ):
            continue
        score = 0
        for term in scoring:
            if term in parsed.parts:
                score += 12 if parsed.is_mcp else 10
            elif any(term in part for part in parsed.parts):
                score += 6 if parsed.is_mcp else 5
            if term in parsed.full and score == 0:
                score += 3
            if word(term, hint):
                score += 4
            if word(term, description):
                score += 2
        if score > 0:
            scored.append((index, score))
    scored.sort(key=lambda m: -m[1])
    return scored[:max_results]


_WORDS = ["read", "file", "files", "send", "message", "git", "hub", "github", "a", "to", "e",
          "re", "c++", "e-mail", "über", "x_y", "API", "Slack", "mcp", "ok?", "--", "é"]  # fmt: skip
_words = st.sampled_from(_WORDS)
_sep = st.sampled_from([" ", "_", "__", "-", ".", ", ", "\t"])


@st.composite
def _tools(draw: st.DrawFn) -> tuple[ToolMeta, ...]:
    tools = []
    for _ in range(draw(st.integers(1, 12))):
        parts = draw(st.lists(_words, min_size=1, max_size=4))
        glue = draw(st.sampled_from(["_", "__", ""]))
        name = glue.join(p.capitalize() if glue == "" else p for p in parts)
        if draw(st.booleans()):
            name = "mcp__" + draw(_words) + "__" + name
        text = "".join(w + draw(_sep) for w in draw(st.lists(_words, max_size=8)))
        hint = " ".join(draw(st.lists(_words, max_size=3))) or None
        tools.append(meta(name, text, hint))
    return tuple(tools)


_queries = st.lists(
    st.tuples(st.sampled_from(["", "", "+"]), _words, st.sampled_from(["", "", "s", "!"])),
    min_size=1,
    max_size=5,
).map(lambda terms: " ".join(p + w + s for p, w, s in terms))


@given(tools=_tools(), query=_queries | st.sampled_from(["+", "mcp__a", "  ", "Read"]))
@pytest.mark.parametrize("vectorised", [False, True])
def test_indexed_scorer_matches_the_transcription(
    tools: tuple[ToolMeta, ...], query: str, vectorised: bool
) -> None:
    for limit in (len(tools), 3):
        got = [(m.index, m.score) for m in cc.search(tools, query, limit, vectorised=vectorised)]
        assert got == reference_search(tools, query, limit)


@pytest.mark.parametrize("query", ["send", "sendmessage", "e-mail", "c++", "--", "ok?"])
def test_a_term_found_through_postings_scores_as_when_every_tool_is_read(query: str) -> None:
    tools = (
        meta("mcp__mail__send_message", "Send an e-mail. ok? Compile c++ -- fast"),
        meta("SendMessage", "sendmessage c++x e-mails"),
        meta("read_file", "Read a file.", "send e-mail"),
    )
    index = cc.CcIndex(tools)
    for vectorised in (False, True):
        got = cc.search(tools, query, 10, index=index, vectorised=vectorised)
        assert [(m.index, m.score) for m in got] == reference_search(tools, query, 10)
