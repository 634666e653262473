"""Kimi Code CLI journals: a call logged as a loop event and again as a context message is
one action; an approval that names a `toolCallId` is not a call."""

from __future__ import annotations

from pathlib import Path

from tests.replay.records import replay


def test_loop_events_and_context_messages_are_one_action(tmp_path: Path) -> None:
    def loop(event: dict) -> dict:
        return {"type": "context.append_loop_event", "event": event, "time": 1}

    r = replay(
        tmp_path,
        [
            {"type": "metadata", "protocol_version": "1.4", "created_at": 1},
            {
                "type": "permission.record_approval_result",
                "toolCallId": "Bash_0",
                "toolName": "Bash",
                "result": {"decision": "approved"},
                "time": 1,
            },
            {
                "type": "context.append_message",
                "message": {
                    "role": "assistant",
                    "content": [],
                    "toolCalls": [{"id": "Bash_0", "name": "Bash", "arguments": "{}"}],
                },
                "time": 1,
            },
            loop(
                {
                    "type": "tool.call",
                    "toolCallId": "Bash_0",
                    "name": "Bash",
                    "args": {"command": "ls"},
                }
            ),
            loop(
                {
                    "type": "tool.result",
                    "toolCallId": "Bash_0",
                    "result": {"output": "x", "isError": True},
                }
            ),
            {
                "type": "context.append_message",
                "message": {"role": "tool", "toolCallId": "Bash_0", "content": [], "isError": True},
                "time": 1,
            },
            {"type": "llm.request", "model": "kimi", "time": 1},
        ],
    )
    assert (r.format, r.calls, r.results, r.paired, r.error_results) == ("kimi", 1, 1, 1, 1)
    assert r.duplicate_calls == r.duplicate_results == () and r.unread_tools == ()
