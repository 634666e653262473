"""GitHub Copilot CLI events.jsonl: a call requested in `toolRequests` and logged again by
`tool.execution_start` counts once, in either order."""

from __future__ import annotations

from pathlib import Path
from unittest.mock import ANY

from tests.conftest import Cli
from tests.replay.records import corpus_result_bytes, corpus_sizes, replay
from toolsel.replay.events import NOTHING, UNKNOWN, Call, Human, Result, Session
from toolsel.replay.formats.copilot import copilot


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


# -- the decoder, event by event ---------------------------------------------------------

STAMP = "2026-04-23T17:11:05.000Z"


def decode(kind: str, data: object, **extra: object) -> tuple | None:
    return copilot({"type": kind, "data": data, "id": "e5", "timestamp": STAMP, "parentId": "e4", **extra})  # fmt: skip


def test_tool_requests_are_calls_of_their_message() -> None:
    data = {
        "messageId": "m1",
        "content": "",
        "toolRequests": [
            {"toolCallId": "call_1", "name": "bash", "arguments": {"command": "ls"}},
            {"toolCallId": 2, "name": None},
            "bash",
        ],
    }
    assert decode("assistant.message", data) == (
        "copilot-cli",
        [
            Call(
                "call_1", "bash", {"command": "ls"}, message_id="m1", parent=None, timestamp=STAMP
            ),
            Call("2", "", {}, message_id="m1", parent=None, timestamp=STAMP),
        ],
    )
    sub = {"messageId": 5, "toolRequests": [{"toolCallId": "c"}], "parentToolCallId": "task"}
    assert decode("assistant.message", sub, timestamp=1) == (
        "copilot-cli",
        [Call("c", "", {}, message_id=None, parent="task", timestamp=None)],
    )
    assert decode("assistant.message", {"content": "Done", "toolRequests": None}) == (
        "copilot-cli",
        [],
    )


def test_an_execution_start_or_a_user_request_is_an_implicit_call() -> None:
    start = {"toolCallId": "c1", "toolName": "view", "arguments": {"path": "/a"}, "parentToolCallId": 3}  # fmt: skip
    for kind in ("tool.execution_start", "tool.user_requested"):
        assert decode(kind, start) == (
            "copilot-cli",
            [Call("c1", "view", {"path": "/a"}, parent=None, timestamp=STAMP, implicit=True)],
        )
    assert decode("tool.execution_start", {"toolCallId": "c2", "parentToolCallId": "task"}) == (
        "copilot-cli",
        [Call("c2", "", {}, parent="task", timestamp=STAMP, implicit=True)],
    )


def test_an_execution_complete_is_a_result_that_fails_when_success_is_false() -> None:
    def complete(data: dict) -> tuple | None:
        return decode("tool.execution_complete", {"toolCallId": "c1", **data})

    assert complete({"success": True, "result": {"content": "x"}}) == (
        "copilot-cli",
        [Result("c1", False, None, STAMP, size=1)],
    )
    assert complete({"success": False, "error": {"message": "exit 1"}}) == (
        "copilot-cli",
        [Result("c1", True, None, STAMP, error=ANY, size=len("exit 1"))],
    )
    assert complete({"parentToolCallId": "task"}) == ("copilot-cli", [Result("c1", False, "task", STAMP, size=0)])  # fmt: skip
    assert complete({"success": "false"}) == (
        "copilot-cli",
        [Result("c1", False, None, STAMP, size=0)],
    )


def test_a_persons_message_is_human_text_and_a_sub_agents_is_not() -> None:
    assert decode("user.message", {"content": "Hello", "attachments": []}) == (
        "copilot-cli",
        [Human("Hello")],
    )
    assert decode("user.message", {"content": "Hello", "parentToolCallId": "task"}) == (
        "copilot-cli",
        (),
    )
    assert decode("user.message", {"content": " "}) == ("copilot-cli", ())


def test_the_session_start_names_the_session_and_other_events_are_known_or_unknown() -> None:
    assert decode("session.start", {"sessionId": "s", "copilotVersion": "1.0.34"}) == (
        "copilot-cli",
        [Session("s")],
    )
    assert decode("session.start", {"sessionId": 1}) == ("copilot-cli", ())
    for kind in ("session.mode_changed", "subagent.started", "hook.end", "abort", "skill.x"):
        decoded = decode(kind, {})
        assert decoded == ("copilot-cli", ()) and decoded[1] is NOTHING
    decoded = decode("tool.future_event", {"toolCallId": "c9"})
    assert decoded == ("copilot-cli", UNKNOWN)
    assert decode("session.start", "s") is None
    assert copilot({"type": 1, "data": {}}) is None and copilot([]) is None


def test_a_completions_size_is_its_results_content_not_its_detailed_content(cli: Cli) -> None:
    assert corpus_sizes("copilot-cli/agent-sessions/large.jsonl") == {
        "bash": (len("line1\nline2\nline3\n"),)
    }
    name = "copilot-cli/vibecodingtracker/test_conversation_copilot.jsonl"
    assert corpus_sizes(name)["report_intent"] == (len("Intent logged"),)
    assert corpus_result_bytes(cli, name)["report_intent"]["total"] == len("Intent logged")
    with_detail = {"success": True, "result": {"content": "é", "detailedContent": "diff --git"}}
    decoded = decode("tool.execution_complete", {"toolCallId": "c1", **with_detail})
    assert decoded is not None and decoded[1][0].size == 2
