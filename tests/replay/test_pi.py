"""pi coding agent and OpenClaw sessions: `toolCall` blocks answered by `toolResult`
messages; the other entry types are known metadata."""

from __future__ import annotations

from pathlib import Path

from tests.replay.records import replay


def entry(n: int, message: dict) -> dict:
    return {"type": "message", "id": f"e{n}", "parentId": f"e{n - 1}", "timestamp": "2026-05-12T01:03:01.000Z", "message": message}  # fmt: skip


def test_a_session(tmp_path: Path) -> None:
    r = replay(
        tmp_path,
        [
            {"type": "session", "version": 3, "id": "s", "cwd": "/tmp"},
            {"type": "model_change", "id": "m", "parentId": None, "modelId": "x"},
            entry(1, {"role": "user", "content": [{"type": "text", "text": "ls"}]}),
            entry(
                2,
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "t"},
                        {"type": "toolCall", "id": "c1", "name": "ls", "arguments": {"path": "."}},
                        {"type": "toolCall", "id": "c2", "name": "read", "arguments": {}},
                    ],
                },
            ),
            entry(
                3,
                {
                    "role": "toolResult",
                    "toolCallId": "c1",
                    "toolName": "ls",
                    "content": [],
                    "isError": False,
                },
            ),
            entry(
                4,
                {
                    "role": "toolResult",
                    "toolCallId": "c2",
                    "toolName": "read",
                    "content": [],
                    "isError": True,
                },
            ),
            entry(
                5, {"role": "bashExecution", "command": "git status", "output": "", "exitCode": 0}
            ),
            {"type": "compaction", "id": "c", "parentId": "e5", "summary": "s"},
            {
                "type": "custom_message",
                "customType": "openclaw.runtime-context",
                "content": "x",
                "id": "cm",
                "parentId": "c",
            },
        ],
    )
    assert (r.format, r.calls, r.paired, r.error_results) == ("pi", 2, 2, 1)
    assert r.skipped_records == 0 and r.unreadable == ()
