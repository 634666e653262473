"""Issue 34: Continue sessions (`~/.continue/sessions/<id>.json`), whole or one per line. A
call is an entry of an assistant message's `toolCalls[]`, its result a `role: tool` message
with its `toolCallId`, failed when a tool call state says `errored` or `canceled`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.replay.records import corpus_sizes, detected_as, failed_calls, labelled, replay
from toolsel.replay.events import Call, Human, Result
from toolsel.replay.formats.continuedev import record


def tool_call(call_id: Any = "tc1", name: Any = "read_file", arguments: Any = "{}") -> Any:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def assistant(*calls: Any, **fields: Any) -> dict[str, Any]:
    message = {"role": "assistant", "content": "", "toolCalls": list(calls)}
    return {"message": message, "contextItems": [], **fields}


def tool(call_id: Any = "tc1") -> dict[str, Any]:
    return {"message": {"role": "tool", "toolCallId": call_id, "content": "ok"}}


def user(content: Any) -> dict[str, Any]:
    return {"message": {"role": "user", "content": content}, "contextItems": []}


def session(*history: Any) -> dict[str, Any]:
    return {"sessionId": "c-1", "title": "Fix the build", "history": list(history)}


def state(status: Any, call_id: Any = "tc1") -> dict[str, Any]:
    return {"toolCallId": call_id, "status": status}


def test_a_tool_call_is_a_call_with_its_encoded_arguments() -> None:
    decoded = record(session(assistant(tool_call(arguments='{"filepath": "Makefile"}'))))
    assert decoded == (
        "continue",
        [Call("tc1", "read_file", '{"filepath": "Makefile"}', encoded=True)],
    )


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (tool_call(arguments={"filepath": "x"}), Call("tc1", "read_file", {"filepath": "x"})),
        (tool_call(arguments=None), Call("tc1", "read_file", {})),
        (tool_call(4, 5), Call("4", "", "{}", encoded=True)),
        ({"id": "tc1", "function": "read_file"}, Call("tc1", "", {})),
        ({"id": "tc1"}, Call("tc1", "", {})),
    ],
)
def test_an_odd_tool_call_is_still_a_call(call: Any, expected: Call) -> None:
    assert record(session(assistant("x", call))) == ("continue", [expected])


@pytest.mark.parametrize(
    ("fields", "failed"),
    [
        ({}, False),
        ({"toolCallState": state("done")}, False),
        ({"toolCallState": state("errored")}, True),
        ({"toolCallState": state("canceled")}, True),
        ({"toolCallState": state("errored", "other")}, False),  # another call's state
        ({"toolCallState": state(["errored"])}, False),
        ({"toolCallState": "errored"}, False),
        ({"toolCallStates": [state("done", "x"), state("errored")]}, True),
        ({"toolCallStates": [state("canceled")], "toolCallState": state("done")}, True),
        ({"toolCallStates": state("errored")}, False),  # not a list
    ],
)
def test_a_tool_message_is_a_result_failed_by_its_call_s_state(
    fields: dict[str, Any], failed: bool
) -> None:
    decoded = record(session(assistant(tool_call(), **fields), tool()))
    said = "ok" if failed else None  # a failure keeps the tool message's content
    assert decoded == ("continue", [Call("tc1", "read_file", "{}", encoded=True), Result("tc1", failed, error=said, size=2)])  # fmt: skip


def test_a_state_names_its_call_by_a_number_id_too() -> None:
    decoded = record(session(assistant(tool_call(7), toolCallState=state("errored", 7)), tool(7)))
    assert decoded is not None and decoded[1][-1] == Result("7", True, error="ok", size=2)


def test_a_state_counts_for_a_result_after_it_only_within_its_session() -> None:
    failing = assistant(tool_call(), toolCallState=state("errored"))
    assert record(failing) == ("continue", [Call("tc1", "read_file", "{}", encoded=True)])
    assert record(tool()) == ("continue", [Result("tc1", False, size=2)])  # an item alone: no state
    assert record(session(tool(), failing)) == (
        "continue",
        [Result("tc1", False, size=2), Call("tc1", "read_file", "{}", encoded=True)],
    )


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("Fix the build", [Human("Fix the build")]),
        ([{"type": "text", "text": "Fix it"}], [Human("Fix it")]),
        (None, []),
        ("", []),
    ],
)
def test_a_person_s_message_is_the_request(content: Any, expected: list[Any]) -> None:
    assert record(session(user(content))) == ("continue", expected)


@pytest.mark.parametrize(
    "item",
    [
        {"message": {"role": "system", "content": "You are"}},
        {"message": {"role": "thinking", "content": "hmm"}},
        {"message": {"role": "assistant", "content": "done", "toolCalls": "x"}},
        {"message": {"role": "assistant", "content": "done"}},
        {"message": "hi"},
        "hi",
    ],
)
def test_other_items_say_nothing(item: Any) -> None:
    # after the first three items, which say whether it is a session
    assert record(session(user("go"), assistant(), assistant(), item)) == ("continue", [Human("go")])  # fmt: skip


@pytest.mark.parametrize(
    ("obj", "is_continue"),
    [
        (session(assistant(tool_call())), True),
        (session(), True),
        (assistant(tool_call()), True),  # one item of a session
        (user("hi"), True),
        ({"history": [assistant(tool_call())]}, False),  # no sessionId
        ({"sessionId": "s", "history": "x"}, False),
        ({"sessionId": "s", "history": [{"message": {"content": "x"}}]}, False),  # no role
        ({"sessionId": "s", "history": [assistant(), {**user("x"), "type": "user"}]}, False),
        ({"sessionId": "s", "history": [assistant(), {**user("x"), "role": "user"}]}, False),
        ({"sessionId": "s", "history": [assistant(), "x"]}, False),
        ({"sessionId": "s", "history": [assistant(), {"message": "x"}]}, False),
        # only the first three items are looked at
        ({"sessionId": "s", "history": [user("a"), user("b"), user("c"), "x"]}, True),
        ({**user("hi"), "type": "message"}, False),
        ({**user("hi"), "role": "user"}, False),
        ([user("hi")], False),
    ],
)
def test_what_is_a_session_or_an_item(obj: Any, is_continue: bool) -> None:
    assert (record(obj) is not None) == is_continue


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (session(assistant(tool_call())), "continue"),
        (assistant(tool_call()), "continue"),
        ({"history": [{"message": {"role": "assistant", "content": "hi"}}]}, None),
    ],
)
def test_the_signature(obj: dict[str, Any], expected: str | None) -> None:
    found = detected_as(obj)  # a near miss may be another format's, never this one's
    assert found == expected if expected is not None else found != "continue"


def test_a_session_pairs_by_id(cli: Cli, tmp_path: Path) -> None:
    history = [
        user("Fix the build"),
        assistant(tool_call("a", "run_terminal_command"), toolCallState=state("errored", "a")),
        tool("a"),
        assistant(tool_call("b")),
        tool("b"),
        assistant(tool_call("c", "edit_existing_file")),
    ]
    report = replay(tmp_path, session(*history), name="s.json")  # type: ignore[arg-type]
    assert report.format == "continue"
    assert (report.calls, report.paired, report.error_results) == (3, 2, 1)
    run = cli("replay", str(tmp_path / "s.json"), "--no-registry", "--input-format", "continue")
    assert run.stdout.startswith("1 file, 3 calls, 1 error, 1 unanswered")
    assert failed_calls(cli, tmp_path / "s.json", "continue") == [("run_terminal_command", "ok")]


def test_the_corpus_session_counts_as_labelled() -> None:
    counted, expected, fmt = labelled("continue/memrelay/continue_session.jsonl")
    assert fmt == "continue" and counted == expected


def test_a_tool_messages_size_is_the_bytes_of_its_content() -> None:
    sizes = corpus_sizes("continue/memrelay/continue_session.jsonl")
    assert sizes == {"read_file": (len("def routes(): ..."),)}
