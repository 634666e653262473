"""Factory Droid stream-json: a call and its result share an `id`."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Cli
from tests.replay.records import corpus_result_bytes, corpus_sizes, replay
from toolsel.replay.events import Call, Result
from toolsel.replay.formats.droid import event


def test_a_failed_call(tmp_path: Path) -> None:
    r = replay(
        tmp_path,
        [
            {"type": "system", "subtype": "init", "session_id": "s", "tools": ["Execute"]},
            {"type": "message", "role": "user", "id": "m1", "text": "ls", "session_id": "s"},
            {
                "type": "tool_call",
                "id": "c1",
                "messageId": "m1",
                "toolId": "Execute",
                "toolName": "Execute",
                "parameters": {"command": "ls"},
            },
            {
                "type": "tool_result",
                "id": "c1",
                "messageId": "m1",
                "toolId": "Execute",
                "isError": True,
                "value": "no such file",
            },
            {"type": "completion", "finalText": "Done", "session_id": "s"},
        ],
    )
    assert (r.calls, r.paired, r.error_results, r.tools["Execute"].calls) == (1, 1, 1, 1)
    assert r.skipped_records == 0 and r.unreadable == ()


# -- the decoder, event by event ---------------------------------------------------------


def test_a_tool_call_is_a_call_with_its_message() -> None:
    call = {
        "type": "tool_call",
        "sessionId": "s",
        "timestamp": 1767812642000,
        "id": "call_1",
        "messageId": "m1",
        "toolId": "Execute",
        "toolName": "Execute",
        "parameters": {"command": "ls -la", "riskLevel": "low"},
    }
    assert event(call) == (
        "droid",
        [Call("call_1", "Execute", {"command": "ls -la", "riskLevel": "low"}, message_id="m1")],
    )


def test_a_call_without_a_tool_name_is_named_by_its_tool_id() -> None:
    call = {"type": "tool_call", "id": 7, "toolId": "Read", "messageId": 3}
    assert event(call) == ("droid", [Call("7", "Read", {}, message_id=None)])
    named = {"type": "tool_call", "id": "c", "toolId": "Read", "toolName": "ReadFile"}
    assert event(named) == ("droid", [Call("c", "ReadFile", {})])
    odd = {"type": "tool_call", "toolName": 5, "parameters": None}
    assert event(odd) == ("droid", [Call("", "", None)])


def test_a_tool_result_fails_only_when_is_error_is_true() -> None:
    def failed(flag: object) -> bool:
        decoded = event({"type": "tool_result", "id": "call_1", "isError": flag, "value": "x"})
        assert decoded is not None
        (result,) = decoded[1]
        assert (decoded[0], result.id) == ("droid", "call_1")
        return result.is_error

    assert [failed(flag) for flag in (True, False, "true", 1, None)] == [
        True,
        False,
        False,
        False,
        False,
    ]
    assert event({"type": "tool_result"}) == ("droid", [Result("", False, size=0)])


def test_a_completion_is_known_and_the_other_events_are_not_droids() -> None:
    assert event({"type": "completion", "finalText": "Done"}) == ("droid", ())
    assert event({"type": "message", "role": "user", "text": "ls"}) is None
    assert event({"type": "system", "subtype": "init"}) is None
    assert event("tool_call") is None


# -- sizes -------------------------------------------------------------------------------


def test_a_results_size_is_the_bytes_of_its_value(cli: Cli) -> None:
    name = "droid/agent-sessions/stream_json_schema_drift.jsonl"
    said = "ls: /non-existent-directory: No such file or directory"
    assert corpus_sizes(name) == {"Execute": (len(said),)}
    assert corpus_result_bytes(cli, name)["Execute"]["total"] == len(said)
    decoded = event({"type": "tool_result", "id": "c1", "value": "héllo"})
    assert decoded is not None and decoded[1][0].size == 6
