"""Issue 34: Qwen Code chat recordings. Claude Code's record envelope around Gemini parts:
a `functionCall` part is a call, a `functionResponse` part its result, failed when the
record's `toolCallResult` or the response says so; `system` records are never calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, Cli
from tests.replay.records import corpus_result_bytes, corpus_sizes, labelled, replay
from toolsel.replay.events import Call, Human, Result
from toolsel.replay.formats import detect
from toolsel.replay.formats.qwen import record

STAMP = "2026-01-01T00:00:01.000Z"


def qwen(kind: str, *parts: Any, **fields: Any) -> dict[str, Any]:
    role = "model" if kind == "assistant" else "user"
    envelope = {"uuid": "u", "parentUuid": None, "sessionId": "s", "timestamp": STAMP}
    return {**envelope, "type": kind, "message": {"role": role, "parts": list(parts)}, **fields}


def call(call_id: Any = "c1", name: Any = "ls", **fields: Any) -> dict[str, Any]:
    return {"functionCall": {"id": call_id, "name": name, **fields}}


def response(call_id: Any = "c1", output: Any = None) -> dict[str, Any]:
    said = {"output": "ok"} if output is None else output
    return {"functionResponse": {"id": call_id, "name": "ls", "response": said}}


def status(value: Any, call_id: Any = "c1") -> dict[str, Any]:
    return {"toolCallResult": {"callId": call_id, "status": value}}


def test_a_function_call_part_is_a_call_with_its_arguments_and_time() -> None:
    decoded = record(qwen("assistant", {"text": "let me look"}, call(args={"path": "/w"})))
    assert decoded == ("qwen-code", [Call("c1", "ls", {"path": "/w"}, timestamp=STAMP)])


@pytest.mark.parametrize(
    ("part", "expected"),
    [
        (call(), Call("c1", "ls", {}, timestamp=STAMP)),  # no args: none given
        (call(7, None), Call("7", "", {}, timestamp=STAMP)),  # a number id, no name
        (call(name=["ls"], args=[1]), Call("c1", "", [1], timestamp=STAMP)),
    ],
)
def test_an_odd_call_is_still_a_call(part: dict[str, Any], expected: Call) -> None:
    assert record(qwen("assistant", "text", None, part)) == ("qwen-code", [expected])


@pytest.mark.parametrize(
    ("fields", "output", "failed", "size"),
    [
        (status("success"), None, False, 2),
        (status("error"), None, True, 2),
        (status("error", "other"), None, False, 2),  # another call's failure
        (status("error", 1), None, False, 2),
        ({"toolCallResult": {"status": "error", "callId": "c1", "errorType": "x"}}, None, True, 2),
        ({"toolCallResult": ["error"]}, None, False, 2),
        ({}, {"error": "Path must be absolute"}, True, 21),  # the response says so
        ({}, {"output": "error"}, False, 5),
        ({}, ["error"], False, 5),
        ({}, {"output": "é", "error": "x"}, True, 2),  # the output is what the model reads
        ({}, {"llmContent": "x"}, False, 0),
    ],
)
def test_a_function_response_is_a_result_failed_as_its_record_says(
    fields: dict[str, Any], output: Any, failed: bool, size: int
) -> None:
    """... and its size is the bytes of the response's `output`, else of its `error`."""
    decoded = record(qwen("tool_result", response(output=output), **fields))
    said = (output or {"output": "ok"}) if failed else None  # a failure keeps its response
    assert decoded == ("qwen-code", [Result("c1", failed, timestamp=STAMP, error=said, size=size)])


def test_a_number_id_in_the_status_and_the_response_is_the_same_call() -> None:
    decoded = record(qwen("tool_result", response(3), **status("error", 3)))
    assert decoded == ("qwen-code", [Result("3", True, timestamp=STAMP, error={"output": "ok"}, size=2)])  # fmt: skip


def test_a_record_without_a_text_time_has_none() -> None:
    decoded = record({**qwen("assistant", call()), "timestamp": 12})
    assert decoded == ("qwen-code", [Call("c1", "ls", {})])


@pytest.mark.parametrize("kind", ["user", "assistant", "system", "tool_result"])
def test_each_record_type_is_qwen(kind: str) -> None:
    decoded = record(qwen(kind, call()))
    assert decoded is not None and decoded[0] == "qwen-code"


@pytest.mark.parametrize(
    "obj",
    [
        qwen("summary", call()),
        {**qwen("user", call()), "type": ["user"]},
        {**qwen("user", call()), "type": None},
        [qwen("user", call())],
        "user",
    ],
)
def test_not_a_record(obj: Any) -> None:
    assert record(obj) is None


@pytest.mark.parametrize(
    "message",
    [None, "hi", {"role": "user"}, {"role": "user", "parts": "hi"}, {"parts": {"text": "x"}}],
)
def test_a_record_without_parts_says_nothing(message: Any) -> None:
    assert record({"type": "user", "message": message}) == ("qwen-code", ())


def test_a_person_s_parts_are_the_request() -> None:
    parts = [{"text": "List the files"}, {"text": 3}, "x", {"text": "then read"}]
    decoded = record(qwen("user", *parts))
    assert decoded == ("qwen-code", [Human("List the files\nthen read")])


@pytest.mark.parametrize(
    ("kind", "parts"),
    [
        ("assistant", [{"text": "I will list them"}]),  # the model's words
        ("tool_result", [{"text": "output"}]),
        ("user", [response(), {"text": "and this"}]),  # a result, not a request
        ("user", [{"text": 3}, {"inlineData": {}}]),  # no text
    ],
)
def test_only_a_person_s_text_is_a_request(kind: str, parts: list[Any]) -> None:
    decoded = record(qwen(kind, *parts))
    assert decoded is not None
    assert [e for e in decoded[1] if isinstance(e, Human)] == []


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        ({"uuid": "u", "type": "system", "systemPayload": {}}, "qwen-code"),
        ({"uuid": "u", "type": "tool_result", "toolCallResult": {}, "message": {}}, "qwen-code"),
        (qwen("assistant", call()), "qwen-code"),
        # Claude Code's envelope with Gemini parts beside Claude content: Claude's
        (
            {**qwen("assistant", call()), "message": {"role": "model", "parts": [], "content": []}},
            "claude-code",
        ),
        ({**qwen("assistant", call()), "message": {"role": "model", "parts": {}}}, "claude-code"),
    ],
)
def test_the_signature(obj: dict[str, Any], expected: str) -> None:
    decoded = detect(obj)
    assert decoded is not None and decoded[0] == expected


def test_a_recording_pairs_by_id_and_telemetry_is_no_call(cli: Cli, tmp_path: Path) -> None:
    telemetry = {
        "type": "system",
        "subtype": "ui_telemetry",
        "systemPayload": {"uiEvent": {"function_name": "ls", "status": "error"}},
        "message": None,
    }
    records = [
        qwen("user", {"text": "list them"}),
        qwen("assistant", call("a"), call("b", "read_file", args={"path": "x"})),
        telemetry,
        qwen("tool_result", response("a", {"error": "denied"}), **status("error", "a")),
        qwen("tool_result", response("b"), **status("success", "b")),
    ]
    report = replay(tmp_path, records)
    assert report.format == "qwen-code"
    assert (report.calls, report.paired, report.error_results) == (2, 2, 1)
    run = cli("replay", str(tmp_path / "t.jsonl"), "--no-registry", "--input-format", "qwen-code")
    assert run.exit_code == 0 and run.stdout.startswith("1 file, 2 calls, 1 error, 0 unanswered")


def test_the_corpus_recording_counts_as_labelled() -> None:
    counted, expected, fmt = labelled("qwen-code/splitrail/qwen_code.jsonl")
    assert fmt == "qwen-code" and counted == expected


def test_why_the_corpus_call_failed_is_its_response_s_error(cli: Cli) -> None:
    path = ROOT / "tests/corpus/transcripts/qwen-code/splitrail/qwen_code.jsonl"
    run = cli("replay", str(path), "--format", "json")
    failed = [c for f in json.loads(run.stdout)["files"] for c in f["failed_calls"]]
    assert [(c["tool"], c["message"]) for c in failed] == [
        ("list_directory", "Path must be absolute: .")
    ]


def test_a_function_responses_size_through_the_cli(cli: Cli) -> None:
    name = "qwen-code/splitrail/qwen_code.jsonl"
    said = "Path must be absolute: ."  # the response's error: the model reads it
    assert corpus_sizes(name) == {"list_directory": (len(said),)}
    assert corpus_result_bytes(cli, name)["list_directory"]["total"] == len(said)
