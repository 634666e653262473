"""Antigravity CLI stream: a tool step, logged ACTIVE and then DONE or ERROR, is one call
named by its step; its last update is its result."""

from __future__ import annotations

from pathlib import Path

from tests.replay.records import replay


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
