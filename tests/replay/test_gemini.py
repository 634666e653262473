"""Gemini CLI: a `.json` session and its `.jsonl` recording count the same calls, although
the recording restates a message each time it changes; stream-json pairs by `tool_id`."""

from __future__ import annotations

import json
from pathlib import Path
from unittest.mock import ANY

import pytest

from tests.conftest import Cli
from tests.replay.records import corpus_result_bytes, corpus_sizes, replay
from toolsel.replay.events import UNKNOWN, Call, Human, Result, Session
from toolsel.replay.file import replay_file
from toolsel.replay.formats.gemini import parts_size, recording, stream_event


def message(mid: str, calls: list[dict]) -> dict:
    return {"id": mid, "timestamp": "2026-01-01T00:00:02Z", "type": "gemini", "content": "", "toolCalls": calls}  # fmt: skip


def call(cid: str, status: str, result: bool = False) -> dict:
    record = {"id": cid, "name": "read_file", "args": {"path": cid}, "status": status}
    if result:
        record["result"] = [{"functionResponse": {"id": cid, "name": "read_file", "response": {"output": "x"}}}]  # fmt: skip
    return record


SESSION = {"sessionId": "s1", "projectHash": "ab", "startTime": "2026-01-01T00:00:00Z", "lastUpdated": "2026-01-01T00:00:09Z"}  # fmt: skip
FINAL = [
    {"id": "u1", "timestamp": "2026-01-01T00:00:01Z", "type": "user", "content": "read a and b"},
    message("m1", [call("a", "success", True), call("b", "error", True)]),
    {"id": "i1", "timestamp": "2026-01-01T00:00:03Z", "type": "info", "content": "note"},
    message("m2", [call("c", "executing")]),
]


def test_a_json_session_and_a_jsonl_recording_count_the_same(tmp_path: Path) -> None:
    document = tmp_path / "session-1.json"
    document.write_text(json.dumps({**SESSION, "messages": FINAL}, indent=2))
    whole = replay_file(str(document))
    recording = replay(
        tmp_path,
        [
            {**SESSION, "kind": "main"},
            FINAL[0],
            message("m1", [call("a", "executing"), call("b", "executing")]),
            {"$set": {"lastUpdated": "2026-01-01T00:00:02Z"}},
            message("m1", [call("a", "success", True), call("b", "executing")]),
            FINAL[1],
            FINAL[2],
            FINAL[3],
            {"$set": {"messages": FINAL}},  # a history replaced whole restates its calls
            {"$rewindTo": "m2"},
        ],
    )
    for r in (whole, recording):
        assert (r.format, r.calls, r.results, r.error_results) == ("gemini-cli", 3, 2, 1)
        assert [u.id for u in r.unanswered] == ["c"]
        assert r.duplicate_calls == r.duplicate_results == r.unreadable == ()
    lines = document.read_text().splitlines()
    assert '"id": "c"' in "".join(
        lines[whole.unanswered[0].line - 1 : whole.unanswered[0].line + 10]
    )


def test_stream_json_pairs_by_tool_id(tmp_path: Path) -> None:
    r = replay(
        tmp_path,
        [
            {"type": "init", "session_id": "s", "model": "gemini-x"},
            {"type": "message", "role": "user", "content": "go"},
            {
                "type": "tool_use",
                "tool_name": "run_shell_command",
                "tool_id": "t1",
                "parameters": {},
            },
            {
                "type": "tool_result",
                "tool_id": "t1",
                "status": "error",
                "error": {"type": "x", "message": "y"},
            },
            {"type": "result", "status": "success", "stats": {}},
        ],
    )
    assert (r.format, r.calls, r.paired, r.error_results) == ("gemini-stream-json", 1, 1, 1)


# -- the decoders, record by record ------------------------------------------------------

AT = "2026-04-29T21:39:35.125Z"


def test_a_recorded_call_with_an_outcome_is_an_implicit_call_and_result() -> None:
    response = [{"functionResponse": {"id": "a", "name": "run_shell_command", "response": {"output": "x"}}}]  # fmt: skip

    def outcome(status: object, result: object) -> list:
        call = {"id": "a", "name": "run_shell_command", "args": {"command": "ls -F"}, "timestamp": AT}  # fmt: skip
        decoded = recording(message("g1", [{**call, "status": status, "result": result}]))
        assert decoded is not None and decoded[0] == "gemini-cli"
        assert decoded[1][0] == Call("a", "run_shell_command", {"command": "ls -F"}, timestamp=AT, implicit=True)  # fmt: skip
        return decoded[1][1:]

    assert outcome("success", response) == [Result("a", False, timestamp=AT, implicit=True, size=1)]
    assert outcome("error", response) == [
        Result("a", True, error=ANY, timestamp=AT, implicit=True, size=1)
    ]
    assert outcome("cancelled", None) == [
        Result("a", True, error=ANY, timestamp=AT, implicit=True, size=0)
    ]
    assert outcome("executing", None) == []
    assert outcome("scheduled", response) == [
        Result("a", False, timestamp=AT, implicit=True, size=1)
    ]
    assert outcome(["error"], response) == [Result("a", False, timestamp=AT, implicit=True, size=1)]
    assert outcome(None, None) == []


def test_a_recorded_call_without_its_fields() -> None:
    calls = [{"id": 3, "name": None, "timestamp": 1}, "read_file", {"name": "ls", "args": None}]
    assert recording(message("g1", calls)) == (
        "gemini-cli",
        [Call("3", "", {}, implicit=True), Call("", "ls", None, implicit=True)],
    )
    assert recording({"id": "g2", "type": "gemini", "content": "Hello."}) == ("gemini-cli", [])


def test_a_users_message_is_human_text_from_a_string_or_parts() -> None:
    def user(content: object) -> tuple | None:
        return recording({"id": "u1", "timestamp": AT, "type": "user", "content": content})

    assert user(
        [{"text": "Say hello"}, {"inlineData": {}}, {"text": 5}, "x", {"text": "and list files."}]
    ) == (
        "gemini-cli",
        [Human("Say hello\nand list files.")],
    )
    assert user("read a and b") == ("gemini-cli", [Human("read a and b")])
    assert user([{"inlineData": {}}]) == ("gemini-cli", ())
    for kind in ("info", "error", "warning"):
        assert recording({"id": "i1", "timestamp": AT, "type": kind, "content": "note"}) == ("gemini-cli", ())  # fmt: skip


def test_a_history_replaced_whole_restates_its_gemini_messages_calls() -> None:
    history = [
        {"id": "u1", "type": "user", "content": "read a"},
        message("m1", [call("a", "success", True)]),
        message("m2", [call("b", "executing")]),
        "m3",
    ]
    assert recording({"$set": {"messages": history, "lastUpdated": AT}}) == (
        "gemini-cli",
        [
            Call("a", "read_file", {"path": "a"}, implicit=True),
            Result("a", False, implicit=True, size=1),
            Call("b", "read_file", {"path": "b"}, implicit=True),
        ],
    )
    assert recording({"$set": {"lastUpdated": AT}}) == ("gemini-cli", ())
    assert recording({"$set": {"messages": "m1"}}) == ("gemini-cli", ())
    assert recording({"$set": "x"}) == ("gemini-cli", ())


def test_a_recordings_header_and_control_lines() -> None:
    assert recording({**SESSION, "kind": "main"}) == ("gemini-cli", [Session("s1")])
    assert recording({"sessionId": "s1", "startTime": AT}) is None
    assert recording({"sessionId": 1, "projectHash": "ab"}) is None
    assert recording({"$rewindTo": "m2"}) == ("gemini-cli", ())
    assert recording({"$patch": {"id": "m1"}}) == ("gemini-cli", ())
    unknown = recording({"id": "x", "type": "model", "content": ""})
    assert unknown == ("gemini-cli", UNKNOWN)
    assert recording({"id": "x", "type": 1}) is None and recording(["user"]) is None


def test_stream_json_events() -> None:
    use = {"type": "tool_use", "tool_name": "Bash", "tool_id": "tool_1", "parameters": {"command": "echo"}, "timestamp": AT}  # fmt: skip
    assert stream_event(use) == ("gemini-stream-json", [Call("tool_1", "Bash", {"command": "echo"}, timestamp=AT)])  # fmt: skip
    assert stream_event({"type": "tool_use", "tool_name": 1, "tool_id": 2, "timestamp": 3}) == (
        "gemini-stream-json",
        [Call("2", "", {})],
    )

    def failed(**result: object) -> bool:
        decoded = stream_event({"type": "tool_result", "tool_id": "tool_1", "timestamp": AT, **result})  # fmt: skip
        assert decoded is not None and decoded[0] == "gemini-stream-json"
        (answer,) = decoded[1]
        assert (answer.id, answer.timestamp) == ("tool_1", AT)
        return answer.is_error

    assert failed(status="success", output="hello") is False
    assert failed(status="error", error={"type": "x", "message": "y"}) is True
    assert failed(status="error") is True
    assert failed(status="success", error="denied") is True
    assert failed(status="success", error={}) is False
    assert failed(status="ERROR") is False


def test_stream_json_session_messages_and_other_events() -> None:
    assert stream_event({"type": "init", "session_id": "abc", "model": "gemini"}) == ("gemini-stream-json", [Session("abc")])  # fmt: skip
    assert stream_event({"type": "init", "model": "gemini"}) == ("gemini-stream-json", ())
    assert stream_event({"type": "message", "role": "user", "content": "go"}) == ("gemini-stream-json", [Human("go")])  # fmt: skip
    assert stream_event({"type": "message", "role": "assistant", "content": "ok"}) == ("gemini-stream-json", ())  # fmt: skip
    assert stream_event({"type": "message", "role": "user", "content": ""}) == ("gemini-stream-json", ())  # fmt: skip
    assert stream_event({"type": "result", "status": "success"}) == ("gemini-stream-json", ())
    assert stream_event({"type": "error", "message": "quota"}) == ("gemini-stream-json", ())
    assert stream_event({"type": "gemini", "toolCalls": []}) is None
    assert stream_event("init") is None


def test_a_recorded_results_size_is_its_function_responses_output_or_error(cli: Cli) -> None:
    name = "gemini-cli/agent-history/gemini_with_tool_error.jsonl"
    failed = "Failed to edit, 0 occurrences found for old_string"  # not the longer `error`
    edited = "Edit successful"
    read = '{"port": 9000, "host": "127.0.0.1", "debug": true}'
    assert corpus_sizes(name) == {
        "edit_file": (len(edited), len(failed), len(edited)),
        "read_file": (len(read),),
    }
    assert corpus_result_bytes(cli, name)["edit_file"]["total"] == 2 * len(edited) + len(failed)
    output = "Output: AgentSessions/\nREADME.md\nProcess Group PGID: 12345"
    assert corpus_sizes("gemini-cli/agent-sessions/jsonl_v040.jsonl") == {
        "run_shell_command": (len(output),)
    }


@pytest.mark.parametrize(
    ("parts", "size"),
    [
        ([{"functionResponse": {"response": {"output": "é"}}}, {"text": "ab"}], 4),
        ([{"functionResponse": {"response": {"error": "boom"}}}], 4),
        ([{"functionResponse": {"response": {"output": "ok", "error": "boom"}}}], 2),
        ([{"functionResponse": "x"}, {"inlineData": {"data": "QUJD"}}], 0),
        ("plain", 5),
        (None, 0),
    ],
)
def test_a_recorded_results_parts(parts: object, size: int) -> None:
    assert parts_size(parts) == size


def test_a_stream_results_size_is_its_output_or_its_errors_message() -> None:
    assert corpus_sizes("gemini-stream-json/untether/gemini_stream_success.jsonl") == {
        "Bash": (len("hello"),),
        "write_file": (len("wrote notes.md"),),
    }

    def size(**fields: object) -> int:
        decoded = stream_event({"type": "tool_result", "tool_id": "t", **fields})
        assert decoded is not None
        return decoded[1][0].size

    assert size(status="success", output="héllo") == 6
    assert size(status="error", error={"type": "x", "message": "no such file"}) == 12
    assert size(status="error", output="half", error={"message": "no such file"}) == 4
    assert size(status="error", error="boom") == 0
