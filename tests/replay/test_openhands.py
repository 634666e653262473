"""OpenHands trajectories: actions with `tool_call_metadata` are calls, observations with it
results; the model response the metadata carries holds copies of the calls, never counted."""

from __future__ import annotations

from pathlib import Path

from tests.replay.records import replay

RESPONSE = {"choices": [{"message": {"tool_calls": [{"id": "t1", "function": {"name": "execute_bash", "arguments": "{}"}}]}}]}  # fmt: skip
METADATA = {"function_name": "execute_bash", "tool_call_id": "t1", "model_response": RESPONSE}


def test_a_trajectory(tmp_path: Path) -> None:
    r = replay(
        tmp_path,
        [
            {"id": 0, "source": "user", "action": "message", "args": {"content": "run it"}},
            {
                "id": 1,
                "source": "agent",
                "action": "run",
                "args": {"command": "make"},
                "tool_call_metadata": METADATA,
            },
            {
                "id": 2,
                "source": "agent",
                "cause": 1,
                "observation": "run",
                "content": "fail",
                "extras": {"metadata": {"exit_code": 2}},
                "tool_call_metadata": METADATA,
            },
            {
                "id": 3,
                "source": "agent",
                "action": "finish",
                "args": {},
                "tool_call_metadata": {**METADATA, "function_name": "finish", "tool_call_id": "t2"},
            },
        ],
        "trajectory.json",
    )
    assert (r.format, r.calls, r.paired, r.error_results) == ("openhands", 2, 1, 1)
    text = (tmp_path / "trajectory.json").read_text().splitlines()
    finish = text.index('    "id": 3,')  # the element opens on the line before
    assert [(u.id, u.line) for u in r.unanswered] == [("t2", finish)]
    assert r.unread_tools == () and r.duplicate_calls == ()
