"""Issue 34: Anthropic server tools. A `server_tool_use` is answered in the same message by
its result block (`web_search_tool_result`, `code_execution_tool_result`, ...), which has no
`is_error`: an error object as its content, or a failed run, is an error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.replay.records import replay
from toolsel.replay.formats.claude import server_result_failed

SEARCH = {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"query": "q"}}
SEARCH_ERROR = {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}
RAN = {"type": "code_execution_result", "stdout": "", "stderr": "", "return_code": 0}
CRASHED = {"type": "code_execution_result", "stdout": "", "stderr": "Boom", "return_code": 1}


def _result(kind: str, content: Any) -> dict[str, Any]:
    return {"type": kind, "tool_use_id": "srv_1", "content": content}


@pytest.mark.parametrize(
    ("content", "failed"),
    [
        ([{"type": "web_search_result", "url": "https://example.com", "title": "t"}], False),
        (SEARCH_ERROR, True),
        ({"type": "code_execution_tool_result_error", "error_code": "unavailable"}, True),
        ({"type": "web_fetch_tool_result_error", "error_code": "url_not_accessible"}, True),
        (RAN, False),
        (CRASHED, True),
        ({**RAN, "type": "bash_code_execution_result", "return_code": 2}, True),
        ("text", False),
    ],
)
def test_a_server_result_fails_by_its_content(content: Any, failed: bool) -> None:
    assert server_result_failed(content) is failed


def _claude_line(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "type": "assistant",
        "uuid": "u1",
        "sessionId": "s",
        "message": {"id": "msg_1", "role": "assistant", "content": blocks},
    }


@pytest.mark.parametrize(
    ("result", "errors"),
    [
        (_result("web_search_tool_result", [{"type": "web_search_result", "url": "u"}]), 0),
        (_result("web_search_tool_result", SEARCH_ERROR), 1),
        (_result("code_execution_tool_result", CRASHED), 1),
        ({**_result("web_search_tool_result", SEARCH_ERROR), "is_error": False}, 0),
    ],
)
def test_a_claude_code_line_pairs_in_the_message_and_counts_the_error(
    tmp_path: Path, result: dict[str, Any], errors: int
) -> None:
    """Claude Code lines take the fast path; stream-json the full one: both say the same."""
    session = replay(tmp_path, [_claude_line([SEARCH, result])])
    message = _claude_line([SEARCH, result])["message"]
    stream_line = {"type": "assistant", "parent_tool_use_id": None, "message": message}
    stream = replay(tmp_path, [stream_line], name="stream.jsonl")
    for report in (session, stream):
        assert (report.calls, report.paired, report.error_results) == (1, 1, errors)
        assert report.unanswered == () and report.orphans == ()
    assert (session.format, stream.format) == ("claude-code", "stream-json")


def test_the_error_is_what_the_failure_report_quotes(tmp_path: Path) -> None:
    line = _claude_line([SEARCH, _result("web_search_tool_result", SEARCH_ERROR)])
    report = replay(tmp_path, [line])
    (failed,) = report.failures
    assert (failed.id, failed.tool) == ("srv_1", "web_search")
    assert failed.message == "max_uses_exceeded"
