"""OpenHands trajectories: actions with `tool_call_metadata` are calls, observations with it
results; the model response the metadata carries holds copies of the calls, never counted."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Cli
from tests.replay.records import CORPUS, corpus_result_bytes, corpus_sizes, replay
from toolsel.replay.events import Call, Human
from toolsel.replay.formats.openhands import event

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


# -- the decoder, event by event ---------------------------------------------------------

STAMP = "2025-01-27T22:45:13.764487"
EDIT = {"function_name": "str_replace_editor", "tool_call_id": "toolu_01", "total_calls_in_response": 1}  # fmt: skip


def test_an_action_with_metadata_is_a_call_named_by_its_function() -> None:
    action = {
        "id": 3,
        "timestamp": STAMP,
        "source": "agent",
        "action": "edit",
        "tool_call_metadata": EDIT,
        "args": {"path": "/workspace/game.py", "content": ""},
    }
    assert event(action) == (
        "openhands",
        [
            Call(
                "toolu_01",
                "str_replace_editor",
                {"path": "/workspace/game.py", "content": ""},
                timestamp=STAMP,
            )
        ],
    )
    unnamed = {"action": "run", "timestamp": 5, "tool_call_metadata": {"tool_call_id": 9}}
    assert event(unnamed) == ("openhands", [Call("9", "run", {})])


def test_an_observation_with_metadata_is_a_result_that_fails_on_an_error_or_exit_code() -> None:
    def failed(observation: str, extras: object) -> bool:
        decoded = event({"id": 4, "timestamp": STAMP, "cause": 3, "observation": observation,
                         "tool_call_metadata": EDIT, "content": "x", "extras": extras})  # fmt: skip
        assert decoded is not None and decoded[0] == "openhands"
        (result,) = decoded[1]
        assert (result.id, result.timestamp) == ("toolu_01", STAMP)
        return result.is_error

    assert failed("edit", {"path": "/workspace/game.py"}) is False
    assert failed("error", {}) is True
    assert failed("run", {"exit_code": 0, "metadata": {"exit_code": 0}}) is False
    assert failed("run", {"exit_code": 1}) is True
    assert failed("run", {"exit_code": 0, "metadata": {"exit_code": -1}}) is True
    assert failed("run", {"exit_code": "1", "metadata": {"exit_code": None}}) is False
    assert failed("run", {"metadata": "exit_code: 1"}) is False
    assert failed("run", "exit_code") is False


def test_a_users_message_is_human_text_and_events_without_metadata_are_nothing() -> None:
    def message(source: str, args: object) -> dict:
        return {"id": 0, "source": source, "action": "message", "args": args}

    assert event(message("user", {"content": "Please create a 2048 game."})) == (
        "openhands",
        [Human("Please create a 2048 game.")],
    )
    assert event(message("agent", {"content": "Done."})) == ("openhands", ())
    assert event(message("user", {"content": "", "image_urls": None})) == ("openhands", ())
    assert event(message("user", "hi")) == ("openhands", ())
    assert event({"id": 1, "source": "environment", "observation": "agent_state_changed"}) == (
        "openhands",
        (),
    )
    assert event({"id": 2, "action": "run", "args": {"command": "ls"}}) == ("openhands", ())


def test_records_with_no_action_or_observation_text_are_not_openhands_events() -> None:
    assert event({"id": 1, "action": None, "observation": 3}) is None
    assert event({"id": 1, "message": "hi"}) is None
    assert event("run") is None


def test_an_observations_size_is_the_bytes_of_its_content(cli: Cli) -> None:
    name = "openhands/openhands/basic.json"
    events = json.loads((CORPUS / name).read_text(encoding="utf-8"))
    (edit,) = [e for e in events if e.get("observation") == "edit"]
    size = len(edit["content"].encode())
    assert size > len(edit["message"])  # the diff the model reads, not the one-line message
    assert corpus_sizes(name) == {"str_replace_editor": (size,)}
    assert corpus_result_bytes(cli, name)["str_replace_editor"]["total"] == size
