"""Grok CLI chat histories: a server-side tool is one record, its call and its outcome."""

from __future__ import annotations

from pathlib import Path

from tests.replay.records import replay


def test_a_backend_tool_call_is_a_call_and_a_result(tmp_path: Path) -> None:
    r = replay(
        tmp_path,
        [
            {"type": "system", "content": "You are Grok."},
            {
                "type": "user",
                "content": [{"type": "text", "text": "context"}],
                "synthetic_reason": "environment_context",
            },
            {
                "type": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "c1", "name": "read_file", "arguments": '{"target_file": "a"}'}
                ],
            },
            {"type": "tool_result", "tool_call_id": "c1", "content": "x"},
            {
                "type": "backend_tool_call",
                "kind": {
                    "tool_type": "web_search",
                    "action": {"query": "q"},
                    "id": "ws_1",
                    "status": "completed",
                },
            },
            {
                "type": "backend_tool_call",
                "kind": {"tool_type": "web_search", "id": "ws_2", "status": "failed"},
            },
            {
                "type": "reasoning",
                "id": "rs",
                "summary": [],
                "encrypted_content": "x",
                "status": "completed",
            },
        ],
    )
    assert (r.format, r.calls, r.paired, r.error_results) == ("grok-cli", 3, 3, 1)
    assert r.tools["read_file"].calls == 1 and r.tools["web_search"].calls == 2
