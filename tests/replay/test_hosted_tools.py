"""Issue 34: OpenAI Responses hosted tools (`web_search_call`, `file_search_call`,
`code_interpreter_call`, `image_generation_call`, `mcp_call`): each item is a call and, once
it has an outcome, its result; a failed one is an error whose message is what it said."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.replay.records import replay
from toolsel.replay.events import Result
from toolsel.replay.formats import detect

MCP = {"id": "mcp_1", "type": "mcp_call", "approval_request_id": None, "arguments": '{"sides":6}',
       "name": "roll", "server_label": "dice"}  # fmt: skip


@pytest.mark.parametrize(
    ("fields", "outcome"),
    [
        ({"error": None, "output": "4"}, False),  # as first documented: no status
        ({"error": "Error: 404", "output": None}, True),
        ({"error": {"type": "http_error", "message": "boom"}}, True),
        ({"status": "completed", "output": "4"}, False),
        ({"status": "failed", "output": None}, True),
        ({"status": "in_progress", "output": None}, None),
        ({"status": "calling"}, None),
        ({"error": None, "output": None}, None),  # nothing yet
    ],
)
def test_an_mcp_call_is_answered_by_its_output_or_its_error(
    fields: dict[str, Any], outcome: bool | None
) -> None:
    decoded = detect({**MCP, **fields})
    assert decoded is not None and decoded[0] == "openai-responses"
    results = [e.is_error for e in decoded[1] if isinstance(e, Result)]
    assert results == ([] if outcome is None else [outcome])


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ({"id": "ws", "type": "web_search_call", "status": "completed"}, "openai-responses"),
        (
            {"id": "ci", "type": "code_interpreter_call", "status": "failed", "code": "1/0"},
            "openai-responses",
        ),
        # near misses: the same item inside Codex's envelopes is Codex's
        (
            {
                "timestamp": "t",
                "type": "response_item",
                "payload": {"id": "ws", "type": "web_search_call", "status": "completed"},
            },
            "codex-rollout",
        ),
        (
            {
                "type": "item.completed",
                "item": {"id": "item_1", "type": "web_search", "query": "q"},
            },
            "codex-exec",
        ),
        (
            {"type": "mcp_list_tools", "id": "l", "server_label": "dice", "tools": []},
            "openai-responses",
        ),
    ],
)
def test_the_signature_and_its_near_misses(record: dict[str, Any], expected: str) -> None:
    decoded = detect(record)
    assert decoded is not None and decoded[0] == expected


def test_a_listing_of_mcp_tools_is_not_a_call() -> None:
    decoded = detect({"type": "mcp_list_tools", "id": "l", "server_label": "dice", "tools": []})
    assert decoded is not None and list(decoded[1]) == []


def test_each_hosted_tool_is_counted_and_its_failure_quoted(tmp_path: Path) -> None:
    from toolsel.replay.file import replay_file

    report = replay_file(str(ROOT / "transcripts/agents/openai-responses-hosted.json"))
    assert {tool: t.calls for tool, t in report.tools.items()} == {
        "web_search_call": 1,
        "file_search_call": 1,
        "code_interpreter_call": 2,
        "image_generation_call": 1,
        "roll": 1,
        "get_issue": 1,
    }
    assert [(f.id, f.message) for f in report.failures] == [
        ("ci_1", "FileNotFoundError: missing.csv"),
        ("mcp_2", "Error: 404 Not Found"),
    ]
    # the same items one per line (a Responses stream's output items, saved)
    import json

    items = json.loads((ROOT / "transcripts/agents/openai-responses-hosted.json").read_text())
    lines = replay(tmp_path, items["output"])
    assert (lines.calls, lines.paired, lines.error_results) == (7, 6, 2)
