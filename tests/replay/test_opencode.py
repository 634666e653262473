"""Issue 34: opencode's session export, the rows of its SQLite `event` table (and the bus
events they store), and `opencode run --format json`. A `tool` part is a call holding its
outcome; each restatement of a part (pending, running, completed) is an echo of one call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.replay.records import corpus_sizes, detected_as, failed_calls, labelled, replay
from toolsel.replay.events import UNKNOWN, Call, Human, Result, Session
from toolsel.replay.formats.opencode import record


def tool(call_id: Any = "c1", name: Any = "bash", **state: Any) -> dict[str, Any]:
    return {"id": "prt_1", "type": "tool", "callID": call_id, "tool": name, "state": state}


def row(part: Any, kind: str = "message.part.updated.1") -> dict[str, Any]:
    return {"type": kind, "data": {"sessionID": "ses_1", "timestamp": 1, "part": part}}


def run_event(part: Any, kind: str = "tool_use") -> dict[str, Any]:
    return {"type": kind, "timestamp": 1, "sessionID": "ses_1", "part": part}


def exported(role: str, *parts: Any) -> dict[str, Any]:
    return {"info": {"id": "msg_1", "role": role}, "parts": list(parts)}


def test_a_tool_part_is_an_echoed_call_with_its_input() -> None:
    decoded = record(row(tool(status="running", input={"command": "make"})))
    assert decoded == ("opencode", [Call("c1", "bash", {"command": "make"}, implicit=True)])


@pytest.mark.parametrize(
    ("state", "result", "size", "said"),
    [
        ({"status": "completed", "output": "ok"}, False, 2, None),
        ({"status": "error", "error": "exit 2"}, True, 6, "exit 2"),
        ({"status": "error", "output": "half"}, True, 4, "half"),  # no error: its output
        ({"status": "error", "error": "é", "output": "half"}, True, 2, "é"),  # the error
        ({"status": "completed", "error": "é", "output": "ok"}, False, 2, None),  # the output
        ({"status": "running", "output": "partial"}, None, 0, None),  # not done yet
        ({"status": "pending"}, None, 0, None),
        ({"status": ["completed"], "output": "x"}, None, 0, None),
        # a trimmed export: no status, the outcome's key says it
        ({"output": "ok"}, False, 2, None),
        ({"error": "exit 2"}, True, 6, "exit 2"),
        ({"error": None, "output": "x"}, True, 0, None),
        ({"status": "completed"}, False, 0, None),
        ({}, None, 0, None),
    ],
)
def test_the_part_s_state_is_its_outcome(
    state: dict[str, Any], result: bool | None, size: int, said: str | None
) -> None:
    """... and its size is the bytes of its `output`, or of a failure's `error`, which is
    also what the failure said."""
    decoded = record(run_event(tool(**state)))
    assert decoded is not None
    expected = [Call("c1", "bash", {}, implicit=True)]
    if result is not None:
        expected.append(Result("c1", result, implicit=True, error=said, size=size))
    assert decoded == ("opencode", expected)


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (tool(None, None), Call("", "", {})),  # no id: paired by position, not an echo
        (tool(5, ["bash"]), Call("5", "", {}, implicit=True)),
        ({**tool(), "state": "running"}, Call("c1", "bash", {}, implicit=True)),
    ],
)
def test_an_odd_part_is_still_a_call(item: dict[str, Any], expected: Call) -> None:
    assert record(row(item)) == ("opencode", [expected])


@pytest.mark.parametrize("kind", ["text", "reasoning", "step-start", None])
def test_a_part_of_another_type_says_nothing(kind: Any) -> None:
    assert record(row({**tool(status="completed"), "type": kind})) == ("opencode", [])
    assert record(run_event({**tool(status="completed"), "type": kind})) == ("opencode", [])


@pytest.mark.parametrize(
    "kind", ["tool_use", "text", "step_start", "step_finish", "reasoning", "error", "file", "patch"]
)
def test_each_run_event_reads_its_part(kind: str) -> None:
    decoded = record(run_event(tool(status="completed"), kind))
    assert decoded == (
        "opencode",
        [Call("c1", "bash", {}, implicit=True), Result("c1", False, implicit=True, size=0)],
    )


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (row(tool(status="completed")), 2),
        (row(tool(status="completed"), "message.part.updated"), 2),  # no version
        (row("x"), ()),
        ({"type": "message.part.updated.1", "properties": {"part": tool(status="error")}}, 2),
        ({"type": "session.created.1", "data": {"sessionID": "ses_9"}}, [Session("ses_9")]),
        ({"type": "session.created", "properties": {"sessionID": "ses_9"}}, [Session("ses_9")]),
        ({"type": "session.created.1", "data": {"sessionID": 9, "info": {}}}, ()),
        ({"type": "session.updated.1", "data": {"sessionID": "s"}}, ()),
        ({"type": "message.updated.1", "data": {"sessionID": "s"}}, ()),
        ({"type": "file.edited", "properties": {"info": {}}}, ()),
        ({"type": "permission.updated", "properties": {"sessionID": "s"}}, ()),
        ({"type": "todo.updated", "properties": {"sessionID": "s"}}, ()),
        ({"type": "lsp.client.diagnostics", "properties": {"sessionID": "s"}}, UNKNOWN),
        ({"type": "storage.write.2", "data": {"part": {}}}, UNKNOWN),
    ],
)
def test_each_event_row(obj: dict[str, Any], expected: Any) -> None:
    decoded = record(obj)
    assert decoded is not None and decoded[0] == "opencode"
    if expected == 2:
        assert [type(e) for e in decoded[1]] == [Call, Result]
    elif expected is UNKNOWN:  # a record of a type no decoder knows (an empty tuple too)
        assert decoded[1] is UNKNOWN
    elif expected == ():  # known, with nothing to count
        assert decoded[1] == () and decoded[1] is not UNKNOWN
    else:
        assert decoded[1] == expected


@pytest.mark.parametrize(
    "obj",
    [
        {"type": "message.part.updated.1", "data": {"sessionId": "s"}},  # Copilot's spelling
        {"type": "message.part.updated.1", "data": ["part"]},
        {"type": "tool_use", "part": tool()},  # a run event without its session
        {"type": "tool_use", "sessionID": "s", "part": "x"},
        {"type": "step", "sessionID": "s", "part": tool()},
        {"type": "message", "data": {"part": tool()}},  # no dot: not an event name
        {"type": 3, "info": {}},
        {"info": {"id": "x"}},
        {"parts": [tool(status="completed")]},  # parts without the message's info
        {"info": {"role": "user"}, "parts": {"0": tool()}},
        {"messages": []},
        [row(tool())],
    ],
)
def test_not_an_opencode_record(obj: Any) -> None:
    assert record(obj) is None


def test_a_whole_export_read_as_one_record_says_nothing_itself() -> None:
    export = {"info": {"id": "ses_1"}, "messages": [exported("user", {"type": "text"})]}
    assert record(export) == ("opencode", ())


def test_an_exported_message_s_tool_parts_and_request() -> None:
    parts = [
        {"type": "text", "text": "Fix "},
        {"type": "text", "text": "the build", "synthetic": False},
        {"type": "text", "text": "<file contents>", "synthetic": True},  # added by opencode
        {"type": "text", "text": 3},
        {"type": "file", "text": "x"},
        "text",
        tool(status="completed", input={"command": "make"}),
    ]
    decoded = record(exported("user", *parts))
    assert decoded == (
        "opencode",
        [
            Human("Fix \nthe build"),
            Call("c1", "bash", {"command": "make"}, implicit=True),
            Result("c1", False, implicit=True, size=0),
        ],
    )


@pytest.mark.parametrize(
    "parts",
    [
        [{"type": "text", "text": "  \n "}],  # blank
        [{"type": "text", "text": " "}, {"type": "text", "text": "\n"}],
        [{"type": "text", "text": "x", "synthetic": True}],
        [{"type": "reasoning", "text": "x"}],
    ],
)
def test_no_request_without_a_person_s_text(parts: list[Any]) -> None:
    assert record(exported("user", *parts)) == ("opencode", [])


def test_the_model_s_text_is_no_request() -> None:
    decoded = record(exported("assistant", {"type": "text", "text": "I ran make"}, tool()))
    assert decoded == ("opencode", [Call("c1", "bash", {}, implicit=True)])


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (row(tool(status="completed")), "opencode"),
        (run_event(tool(status="completed")), "opencode"),
        (exported("user", {"type": "text", "text": "hi"}), "opencode"),
        ({"type": "session.created.1", "data": {"sessionID": "ses_1"}}, "opencode"),
        # Copilot CLI's dotted events say `sessionId`, with no part or info
        ({"type": "tool.execution_complete", "data": {"sessionId": "s", "success": True}}, None),
    ],
)
def test_the_signature(obj: dict[str, Any], expected: str | None) -> None:
    found = detected_as(obj)  # a near miss may be another format's, never this one's
    assert found == expected if expected is not None else found != "opencode"


def test_restatements_of_a_part_are_one_call_answered_once(cli: Cli, tmp_path: Path) -> None:
    records = [
        {"type": "session.created.1", "data": {"sessionID": "ses_1"}},
        row(tool("a", status="pending")),
        row(tool("a", status="running", input={"command": "make"})),
        row(tool("a", status="error", input={"command": "make"}, error="exit 2")),
        run_event(tool("b", "read", status="completed", output="all: build")),
        row(tool("c", "edit", status="pending")),
    ]
    report = replay(tmp_path, records)
    assert report.format == "opencode"
    assert (report.calls, report.paired, report.error_results) == (3, 2, 1)
    run = cli("replay", str(tmp_path / "t.jsonl"), "--no-registry", "--input-format", "opencode")
    assert run.stdout.startswith("1 file, 3 calls, 1 error, 1 unanswered")
    assert failed_calls(cli, tmp_path / "t.jsonl", "opencode") == [("bash", "exit 2")]


@pytest.mark.parametrize(
    "name",
    [
        "memrelay/opencode_session.jsonl",
        "ocman/opencode_export.json",
        "agent-runner-opencode/opencode_export.json",
        "agent-runner-opencode/opencode_launch_events.jsonl",
    ],
)
def test_the_corpus_files_count_as_labelled(name: str) -> None:
    counted, expected, fmt = labelled(f"opencode/{name}")
    assert fmt == "opencode" and counted == expected


def test_the_corpus_files_sizes() -> None:
    assert corpus_sizes("opencode/memrelay/opencode_session.jsonl") == {
        "read": (len("def register_routes(app): ..."),)
    }
    assert corpus_sizes("opencode/ocman/opencode_export.json") == {
        "write": (len("wrote 3 lines to hello.py"),)
    }
