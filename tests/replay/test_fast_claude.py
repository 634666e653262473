"""The fast path's Claude Code and stream-json messages (`fast_claude`): the events each line
gives, checked against their expected values and against the full path (`detect`)."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from toolsel.replay.events import Human, Result
from toolsel.replay.formats import detect, fast, fast_shapes


def _fast(record: dict[str, Any]) -> Any:
    """What the fast path decodes the record into (never left to the full path here)."""
    line = msgspec.json.decode(json.dumps(record).encode(), type=fast_shapes.Line)
    decoded = fast.decode_line(line)
    assert decoded is not fast_shapes.FALLBACK
    return decoded


def _server_result(content: Any) -> dict[str, Any]:
    block = {"type": "web_search_tool_result", "tool_use_id": "s1", "content": content}
    return {"type": "assistant", "uuid": "u", "message": {"content": [block]}}


@pytest.mark.parametrize(
    ("content", "failed"),
    [
        ({"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}, True),
        ({"type": "code_execution_result", "return_code": 2, "stdout": ""}, True),
        ({"type": "code_execution_result", "return_code": 0, "stdout": "ok"}, False),
        ([{"type": "web_search_result", "url": "https://example.com"}], False),
    ],
)
def test_a_server_tools_result_fails_as_its_content_says(content: Any, failed: bool) -> None:
    """A server tool's result has no `is_error`: its content says whether it failed."""
    record = _server_result(content)
    _, events = _fast(record)
    (result,) = events
    assert type(result) is Result and (result.id, result.is_error) == ("s1", failed)
    assert result.error == (content if failed else None)
    assert [(e.id, e.is_error, e.error) for e in events] == [
        (e.id, e.is_error, e.error) for e in detect(record)[1]
    ]


@pytest.mark.parametrize(
    "record",
    [
        {"type": "user", "uuid": "u", "message": {"content": [
            {"type": "text", "text": "Fix the parser"}, {"type": "text", "text": "in lines.py"}]}},
        {"type": "user", "parent_tool_use_id": None, "session_id": "s", "message": {"content": [
            {"type": "text", "text": "Fix the parser"}, {"type": "input_text", "text": "in lines.py"}]}},
    ],
    ids=["claude-code", "stream-json"],
)  # fmt: skip
def test_a_persons_text_blocks_are_one_message_a_line_apart(record: dict[str, Any]) -> None:
    _, events = _fast(record)
    assert events == [Human("Fix the parser\nin lines.py")]
    assert events == detect(record)[1]
