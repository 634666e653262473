"""Cursor: an agent transcript is not taken for OpenAI chat (its calls have no id and are
answered by position), and a stream-json call logged `started` and `completed` counts
once."""

from __future__ import annotations

from pathlib import Path

from tests.replay.records import replay


def test_a_transcript_is_read_as_a_transcript(tmp_path: Path) -> None:
    r = replay(
        tmp_path,
        [
            {"role": "user", "message": {"content": [{"type": "text", "text": "ls"}]}},
            {
                "role": "assistant",
                "message": {
                    "content": [{"type": "tool_use", "name": "Bash", "input": {"command": "ls"}}]
                },
            },
            {
                "role": "user",
                "message": {
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "t1",
                            "content": [{"type": "text", "text": "a"}],
                        }
                    ]
                },
            },
        ],
    )
    assert (r.format, r.calls, r.paired, r.orphans, r.calls_without_id) == (
        "cursor-transcript",
        1,
        1,
        (),
        1,
    )


def test_stream_json_completions_in_another_order_and_a_completion_alone(tmp_path: Path) -> None:
    def call(subtype: str, call_id: str, result: dict | None = None) -> dict:
        body: dict = {"args": {"command": call_id}}
        if result is not None:
            body["result"] = result
        return {"type": "tool_call", "subtype": subtype, "call_id": call_id, "tool_call": {"shellToolCall": body}, "session_id": "s"}  # fmt: skip

    r = replay(
        tmp_path,
        [
            call("started", "a"),
            call("started", "b"),
            call("completed", "b", {"success": {"exitCode": 0}}),
            call("completed", "a", {"rejected": {"reason": "user"}}),
            call("completed", "c", {"success": {"exitCode": 2}}),  # its start was not logged
            {
                "type": "tool_call",
                "subtype": "completed",
                "call_id": "d",
                "tool_call": {"function": {"name": "mcp_search", "arguments": "{}"}, "x": 1},
            },
        ],
    )
    assert (r.format, r.calls, r.paired, r.error_results) == ("cursor-stream-json", 4, 4, 2)
    assert set(r.tools) == {"shellToolCall", "mcp_search"} and r.duplicate_calls == ()
