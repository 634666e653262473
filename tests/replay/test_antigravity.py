"""Antigravity CLI stream: a tool step, logged ACTIVE and then DONE or ERROR, is one call
named by its step; its last update is its result."""

from __future__ import annotations

from pathlib import Path

from tests.replay.records import CORPUS, corpus_sizes, replay
from toolsel.replay.events import Call, Result, Session
from toolsel.replay.file import replay_file
from toolsel.replay.formats.antigravity import event


def step(index: int, state: str, **extra: object) -> dict:
    return {"event": "step_update", "step_update": {"conversation_id": "c", "step_index": index, "state": state, **extra}}  # fmt: skip


def test_a_step_logged_twice_is_one_call(tmp_path: Path) -> None:
    r = replay(
        tmp_path,
        [
            {"event": "init", "conversation_id": "c", "init": {"cwd": "/tmp"}},
            step(0, "DONE", step_type="user_input"),
            step(1, "ACTIVE", step_type="subagent", tool_name="invoke_subagent"),
            step(1, "DONE", step_type="subagent", tool_name="invoke_subagent"),
            step(1, "DONE", step_type="subagent", tool_name="invoke_subagent"),  # restated
            step(
                2,
                "DONE",
                step_type="tool",
                tool_name="run_command",
                tool_info={"error": {"message": "denied by hook"}},
            ),
            {"event": "result", "result": {"conversation_id": "c", "status": "SUCCESS"}},
        ],
    )
    assert (r.format, r.calls, r.results, r.paired, r.error_results) == ("antigravity", 2, 2, 2, 1)
    assert r.duplicate_results == () and set(r.tools) == {"invoke_subagent", "run_command"}


# -- the decoder, record by record --------------------------------------------------------


def test_a_tool_step_is_a_call_named_by_its_conversation_and_step() -> None:
    active = step(
        2,
        "ACTIVE",
        step_type="tool",
        tool_name="run_command",
        tool_info={"name": "run_command", "parameters": {"CommandLine": "false"}},
    )
    assert event(active) == (
        "antigravity",
        [Call("c/step-2", "run_command", {"CommandLine": "false"}, implicit=True)],
    )


def test_a_final_state_is_the_steps_result() -> None:
    def final(state: str, info: dict) -> tuple:
        decoded = event(step(4, state, tool_name="view_file", tool_info=info))
        assert decoded is not None
        return decoded[1][1].is_error, decoded[1][0].input

    assert final("DONE", {"name": "view_file", "output": "hello"}) == (False, {})
    assert final("ERROR", {"name": "view_file"}) == (True, {})
    assert final("DONE", {"error": {"message": "denied by hook"}, "parameters": None}) == (True, {})
    done = event(step(4, "DONE", tool_name="view_file", tool_info={"parameters": {"p": 1}}))
    assert done == (
        "antigravity",
        [
            Call("c/step-4", "view_file", {"p": 1}, implicit=True),
            Result("c/step-4", False, implicit=True),
        ],
    )


def test_a_step_without_a_conversation_is_named_by_its_index_alone() -> None:
    update = {"step_index": 3, "state": "ACTIVE", "tool_name": "grep"}
    for conversation in ({}, {"conversation_id": ""}, {"conversation_id": 7}):
        decoded = event({"event": "step_update", "step_update": {**update, **conversation}})
        assert decoded == ("antigravity", [Call("step-3", "grep", {}, implicit=True)])


def test_steps_that_are_not_tools_yield_nothing() -> None:
    for extra in (
        {"step_type": "user_input"},  # no tool name
        {"tool_name": ""},
        {"tool_name": 5},
        {"tool_name": "grep", "step_index": "1"},  # an index that is not a number
    ):
        update = {"conversation_id": "c", "step_index": 1, "state": "DONE", **extra}
        assert event({"event": "step_update", "step_update": update}) == ("antigravity", [])
    assert event({"event": "step_update", "step_update": None}) == ("antigravity", ())


def test_init_names_the_session_and_other_events_are_known_or_not() -> None:
    assert event({"event": "init", "conversation_id": "c1", "init": {}}) == (
        "antigravity",
        [Session("c1")],
    )
    assert event({"event": "init", "init": {"cwd": "/tmp"}}) == ("antigravity", ())
    assert event({"event": "init", "conversation_id": 1}) == ("antigravity", ())
    assert event({"event": "result", "result": {"conversation_id": "c"}}) == ("antigravity", ())
    assert event({"event": "command_result", "conversation_id": "c"}) == ("antigravity", ())
    assert event({"event": "progress", "conversation_id": "c"}) is None
    assert event({"event": 1}) is None and event(["init"]) is None


def test_a_step_has_no_result_text_so_its_size_is_not_measured() -> None:
    """agy's step updates carry the tool's parameters and state, never its output: a
    result's size stays unset (`result_bytes` null) rather than a made-up 0."""
    assert corpus_sizes("antigravity/untether/subagent.jsonl") == {}
    report = replay_file(str(CORPUS / "antigravity/untether/subagent.jsonl"))
    assert report.tools["invoke_subagent"].answered == 1
