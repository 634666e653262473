"""Issue 34: Goose sessions, as JSONL (a header line, then `{role, created, content[]}`
messages) and as rows of the SQLite `messages` table (`content_json`, a string of JSON). A
`toolRequest` block is a call, a `toolResponse` block with its id the result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.replay.records import (
    corpus_result_bytes,
    corpus_sizes,
    detected_as,
    failed_calls,
    labelled,
    replay,
)
from toolsel.replay.events import Call, Human, Result
from toolsel.replay.formats.goose import record

HEADER = {"working_dir": "/w", "description": "Fix the build", "message_count": 4}


def request(call_id: Any = "t1", name: Any = "developer__shell", **value: Any) -> dict[str, Any]:
    call = {"status": "success", "value": {"name": name, **value}}
    return {"type": "toolRequest", "id": call_id, "toolCall": call}


def response(call_id: Any = "t1", result: Any = None) -> dict[str, Any]:
    said = {"status": "success", "value": []} if result is None else result
    return {"type": "toolResponse", "id": call_id, "toolResult": said}


def message(role: str, *content: Any) -> dict[str, Any]:
    return {"role": role, "created": 1747178330, "content": list(content)}


def row(role: str, *content: Any) -> dict[str, Any]:
    return {"role": role, "content_json": json.dumps(list(content)), "created_timestamp": 1}


def test_a_request_is_a_call_with_its_arguments() -> None:
    decoded = record(message("assistant", request(arguments={"command": "make"})))
    assert decoded == ("goose", [Call("t1", "developer__shell", {"command": "make"})])


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (request(), Call("t1", "developer__shell", {})),  # no arguments
        (request(7, ["x"]), Call("7", "", {})),
        ({"type": "toolRequest", "id": "t1", "toolCall": {"status": "error"}}, Call("t1", "", {})),
        ({"type": "toolRequest", "id": "t1", "toolCall": "x"}, Call("t1", "", {})),
        ({"type": "toolRequest", "id": "t1", "toolCall": {"value": 3}}, Call("t1", "", {})),
    ],
)
def test_an_odd_request_is_still_a_call(block: dict[str, Any], expected: Call) -> None:
    assert record(message("assistant", "x", None, block)) == ("goose", [expected])


@pytest.mark.parametrize(
    ("result", "failed", "size"),
    [
        ({"status": "success", "value": [{"type": "text", "text": "ok"}]}, False, 2),
        ({"status": "error", "error": "command exited with 2"}, True, 21),
        ({"status": "success", "value": {"isError": True}}, False, 0),
        ({"isError": True}, True, 0),
        ({"isError": "true"}, False, 0),  # only a true value fails
        ({"status": ["error"]}, False, 0),
        ("error", False, 0),
    ],
)
def test_a_response_is_a_result_failed_as_it_says(result: Any, failed: bool, size: int) -> None:
    """... and its size is the bytes of its value's text, or of its error; a failure keeps
    what it said (`error_message` reads it)."""
    decoded = record(message("user", response(result=result)))
    said = result if failed else None
    assert decoded == ("goose", [Result("t1", failed, error=said, size=size)])


@pytest.mark.parametrize(
    ("value", "size"),
    [
        # goose's shell returns its output twice: for the model, and for the person
        ([{"type": "text", "text": "ab\n", "annotations": {"audience": ["assistant"]}},
          {"type": "text", "text": "ab\n", "annotations": {"audience": ["user"], "priority": 0}}], 3),
        ([{"type": "text", "text": "é", "annotations": {"audience": ["user", "assistant"]}}], 2),
        ([{"type": "text", "text": "abc", "annotations": {"priority": 1}}, "de"], 5),
        ([{"type": "text", "text": "abc", "annotations": {"audience": []}}], 0),
        ([{"type": "image", "data": "QUJD", "mimeType": "image/png"}], 0),
        ({"content": [{"type": "text", "text": "mcp"}], "isError": False}, 3),  # an MCP result
        ({"content": [{"type": "text", "text": "x", "annotations": {"audience": ["user"]}}]}, 0),
        ("plain", 5),
    ],
)  # fmt: skip
def test_a_response_counts_the_text_meant_for_the_model(value: Any, size: int) -> None:
    decoded = record(message("user", response(result={"status": "success", "value": value})))
    assert decoded is not None
    assert decoded[1][0].size == size


def test_a_number_id_pairs_as_text() -> None:
    assert record(message("user", response(3))) == ("goose", [Result("3", False, size=0)])


def test_a_table_row_s_content_is_decoded_first() -> None:
    decoded = record(row("assistant", request("t2", arguments={"command": "make -k"})))
    assert decoded == ("goose", [Call("t2", "developer__shell", {"command": "make -k"})])


@pytest.mark.parametrize(
    "obj",
    [
        {"role": "assistant", "content_json": "[{not json", "content": [request()]},
        {"role": "assistant", "content_json": '{"type": "toolRequest"}'},
        {"role": "assistant", "created": 1, "content": "make"},
        {"role": "assistant", "created": 1},
    ],
)
def test_content_that_is_not_a_list_of_blocks_says_nothing(obj: dict[str, Any]) -> None:
    assert record(obj) == ("goose", ())


def test_the_header_says_nothing_and_a_record_without_a_role_is_not_goose() -> None:
    assert record(HEADER) == ("goose", ())
    assert record({"created": 1, "content": [request()]}) is None
    assert record({**HEADER, "role": "user", "content": [request()]}) == (
        "goose",
        [Call("t1", "developer__shell", {})],
    )
    assert record([HEADER]) is None


def test_a_person_s_text_is_the_request_only_without_results() -> None:
    text = [{"type": "text", "text": "Fix the build"}, {"type": "image"}, 3]
    assert record(message("user", *text)) == ("goose", [Human("Fix the build")])
    assert record(message("assistant", *text)) == ("goose", [])
    assert record(message("user", response(), *text)) == ("goose", [Result("t1", False, size=0)])
    assert record(message("user", {"type": "image"})) == ("goose", [])


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (message("assistant", request()), "goose"),
        (message("user", {"type": "text", "text": "hi"}, response()), "goose"),
        (row("assistant", request()), "goose"),
        ({"role": "assistant", "content_json": "[]", "content": None}, "goose"),
        (HEADER, "goose"),
        # near misses: no `created`, or no Goose block, or a header with a role
        ({"role": "assistant", "content": [request()]}, "anthropic"),
        (message("assistant", {"type": "tool_use", "id": "t", "name": "x", "input": {}}), None),
        ({**message("assistant", {"type": ["toolRequest"]})}, None),
        ({"working_dir": "/w", "description": "x"}, None),
    ],
)
def test_the_signature(obj: dict[str, Any], expected: str | None) -> None:
    found = detected_as(obj)  # a near miss may be another format's, never this one's
    assert found == expected if expected is not None else found != "goose"


def test_a_session_pairs_by_id(cli: Cli, tmp_path: Path) -> None:
    records = [
        HEADER,
        message("user", {"type": "text", "text": "Fix the build"}),
        message("assistant", request("a"), request("b", "developer__text_editor")),
        message("user", response("a", {"status": "error", "error": "exit 2"}), response("b")),
        row("assistant", request("c")),
    ]
    report = replay(tmp_path, records)
    assert report.format == "goose"
    assert (report.calls, report.paired, report.error_results) == (3, 2, 1)
    run = cli("replay", str(tmp_path / "t.jsonl"), "--no-registry", "--input-format", "goose")
    assert run.stdout.startswith("1 file, 3 calls, 1 error, 1 unanswered")
    assert failed_calls(cli, tmp_path / "t.jsonl", "goose") == [("developer__shell", "exit 2")]


@pytest.mark.parametrize(
    "name", ["agentscribe/sample_session.jsonl", "memrelay/goose_session.jsonl"]
)
def test_the_corpus_sessions_count_as_labelled(name: str) -> None:
    counted, expected, fmt = labelled(f"goose/{name}")
    assert fmt == "goose" and counted == expected


def test_the_corpus_sessions_sizes(cli: Cli) -> None:
    name = "goose/agentscribe/sample_session.jsonl"
    said = (
        "USER       PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n"
        "coding    1234  2.5  8.5 123456 87654 pts/0    R+   10:30   0:15 node worker.js\n"
    )
    assert corpus_sizes(name) == {"developer__shell": (len(said),)}
    assert corpus_result_bytes(cli, name)["developer__shell"]["total"] == len(said)
    memrelay = corpus_sizes("goose/memrelay/goose_session.jsonl")
    assert memrelay == {"developer__shell": (len("routes.py"),)}  # a value `{content: str}`
