"""GitHub Copilot CLI events.jsonl: a call requested in `toolRequests` and logged again by
`tool.execution_start` counts once, in either order."""

from __future__ import annotations

from pathlib import Path

from tests.replay.records import replay


def event(kind: str, data: dict, n: int) -> dict:
    return {"type": kind, "data": data, "id": f"e{n}", "timestamp": f"2026-04-23T17:11:{n:02d}.000Z", "parentId": None}  # fmt: skip


def test_a_request_and_its_execution_start_are_one_call(tmp_path: Path) -> None:
    request = {"toolCallId": "c1", "name": "view", "arguments": {"path": "/a"}}
    r = replay(
        tmp_path,
        [
            event("session.start", {"sessionId": "s", "copilotVersion": "1.0.34"}, 1),
            event("user.message", {"content": "look"}, 2),
            event(
                "tool.execution_start", {"toolCallId": "c0", "toolName": "bash", "arguments": {}}, 3
            ),
            event(
                "assistant.message",
                {
                    "messageId": "m0",
                    "content": "",
                    "toolRequests": [{"toolCallId": "c0", "name": "bash"}],
                },
                4,
            ),
            event(
                "assistant.message",
                {"messageId": "m1", "content": "", "toolRequests": [request]},
                5,
            ),
            event(
                "tool.execution_start",
                {"toolCallId": "c1", "toolName": "view", "arguments": {"path": "/a"}},
                6,
            ),
            event(
                "tool.execution_complete",
                {"toolCallId": "c1", "success": True, "result": {"content": "x"}},
                7,
            ),
            event(
                "tool.execution_complete",
                {"toolCallId": "c0", "success": False, "error": {"message": "exit 1"}},
                8,
            ),
            event(
                "tool.user_requested",
                {"toolCallId": "c2", "toolName": "bash", "arguments": {"command": "ls"}},
                9,
            ),
            event(
                "tool.execution_start",
                {"toolCallId": "c2", "toolName": "bash", "arguments": {"command": "ls"}},
                10,
            ),
            event("session.mode_changed", {"newMode": "autopilot"}, 11),
        ],
    )
    assert (r.format, r.calls, r.paired, r.error_results) == ("copilot-cli", 3, 2, 1)
    assert r.duplicate_calls == () and [u.id for u in r.unanswered] == ["c2"]
    assert r.skipped_records == 0 and r.unread_tools == ()


def test_a_sub_agents_calls_name_their_parent(tmp_path: Path) -> None:
    r = replay(
        tmp_path,
        [
            event(
                "assistant.message",
                {
                    "messageId": "m1",
                    "content": "",
                    "toolRequests": [{"toolCallId": "task", "name": "task"}],
                },
                1,
            ),
            event("subagent.started", {"toolCallId": "task", "agentName": "explore"}, 2),
            event(
                "tool.execution_start",
                {"toolCallId": "c1", "toolName": "grep", "parentToolCallId": "task"},
                3,
            ),
            event(
                "tool.execution_complete",
                {"toolCallId": "c1", "success": True, "parentToolCallId": "task"},
                4,
            ),
            event("tool.execution_complete", {"toolCallId": "task", "success": True}, 5),
        ],
    )
    assert [(s.parent_id, s.calls, s.rule) for s in r.subagents] == [
        ("task", 1, "parent_tool_use_id")
    ]
