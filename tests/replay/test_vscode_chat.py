"""Issue 34: VS Code Copilot Chat sessions (`chatSessions/*.json`). Each
`toolInvocationSerialized` part of a response is a call holding its outcome."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.replay.records import replay
from toolsel.replay.events import Call, Human, Result
from toolsel.replay.formats import detect


def part(**fields: Any) -> dict[str, Any]:
    return {"kind": "toolInvocationSerialized", "toolId": "copilot_readFile", "toolCallId": "t1", **fields}  # fmt: skip


def session(*parts: dict[str, Any], text: str = "read it") -> dict[str, Any]:
    request = {"requestId": "r1", "message": {"text": text}, "response": [{"value": "ok"}, *parts]}
    return {"version": 3, "sessionId": "s", "requests": [request]}


@pytest.mark.parametrize(
    ("fields", "outcome"),
    [
        ({"isComplete": True, "isConfirmed": {"type": 1}}, False),
        (
            {
                "isComplete": True,
                "isConfirmed": True,
                "resultDetails": {"input": "{}", "output": [], "isError": True},
            },
            True,
        ),
        ({"isComplete": True, "isConfirmed": {"type": 0}}, True),  # denied
        ({"isComplete": True, "isConfirmed": {"type": 5}}, True),  # skipped
        ({"isComplete": True, "isConfirmed": False}, True),
        ({"isComplete": True, "isConfirmed": {"type": 4}}, False),  # the user allowed it
        # a kind that is not a number is no refusal, and no crash (it was a TypeError)
        ({"isComplete": True, "isConfirmed": {"type": [0]}}, False),
        ({"isComplete": True, "isConfirmed": {"type": {"kind": 0}}}, False),
        ({"isComplete": True, "isConfirmed": {"type": "0"}}, False),
        ({"isComplete": False}, None),
        ({}, None),
    ],
)
def test_each_invocation_is_a_call_with_its_outcome(
    fields: dict[str, Any], outcome: bool | None
) -> None:
    decoded = detect(session(part(**fields)))
    assert decoded is not None and decoded[0] == "vscode-chat"
    events = list(decoded[1])
    assert events[0] == Human("read it") and isinstance(events[1], Call)
    assert [e.is_error for e in events if isinstance(e, Result)] == (
        [] if outcome is None else [outcome]
    )


def test_the_input_is_what_the_tool_was_given() -> None:
    details = {"input": '{"filePath": "a.py"}', "output": [{"value": "12345"}]}
    decoded = detect(session(part(isComplete=True, resultDetails=details)))
    assert decoded is not None
    _, call, result = decoded[1]
    assert isinstance(call, Call) and call.arguments == {"filePath": "a.py"}
    assert isinstance(result, Result) and result.size == 5


@pytest.mark.parametrize(
    "record",
    [
        {"requests": [{"requestId": "r", "response": []}]},  # no sessionId, no version
        {"version": 3, "requests": [{"method": "GET", "url": "/"}]},  # not chat requests
        {"sessionId": "s", "history": [{"message": {"role": "assistant", "content": ""}}]},
    ],
)
def test_near_misses_are_not_vscode_chat(record: dict[str, Any]) -> None:
    decoded = detect(record)
    assert decoded is None or decoded[0] != "vscode-chat"


@pytest.mark.parametrize(
    "header",
    [
        {
            "requesterUsername": "me",
            "responderUsername": "GitHub Copilot",
            "initialLocation": "panel",
        },
        {"responderUsername": "GitHub Copilot", "initialLocation": "panel"},
    ],
)
def test_an_exported_chat_is_a_session_without_its_id(header: dict[str, Any]) -> None:
    """ "Chat: Export Chat..." writes the requests without `sessionId` or `version`; a
    `prepareToolInvocation` part only announces a call being written: not a call."""
    announced = {"kind": "prepareToolInvocation", "toolName": "copilot_readFile"}
    request = {"requestId": "r1", "message": {"text": "go"}, "response": [part(isComplete=True), announced]}  # fmt: skip
    decoded = detect({**header, "requests": [request]})
    assert decoded is not None and decoded[0] == "vscode-chat"
    assert [type(e).__name__ for e in decoded[1]] == ["Human", "Call", "Result"]


def test_a_session_file_is_read_whole(cli: Cli, tmp_path: Path) -> None:
    done = part(isComplete=True, isConfirmed={"type": 1})
    running = part(toolCallId="t2", isComplete=False)
    report = replay(tmp_path, session(done, running), name="chat.json")  # type: ignore[arg-type]
    assert (report.format, report.calls, report.paired) == ("vscode-chat", 2, 1)
    assert [u.id for u in report.unanswered] == ["t2"]
    result = cli("replay", str(tmp_path / "chat.json"), "--no-registry", "--input-format", "vscode-chat")  # fmt: skip
    assert result.exit_code == 0 and "unanswered call t2" in result.stdout


def _journal(tmp_path: Path, lines: list[dict[str, Any]]):  # type: ignore[no-untyped-def]
    return replay(tmp_path, lines, name="chat.jsonl")


HEADER = {"kind": 0, "v": {"version": 3, "sessionId": "s", "requests": []}}


def test_a_journal_counts_a_part_written_again_once(tmp_path: Path) -> None:
    running = part(isComplete=False)
    done = part(isComplete=True, isConfirmed={"type": 1})
    report = _journal(
        tmp_path,
        [
            HEADER,
            {
                "kind": 2,
                "k": ["requests"],
                "v": [{"requestId": "r1", "message": {"text": "go"}, "response": [running]}],
            },
            {"kind": 1, "k": ["requests", 0, "response"], "v": [done]},
            {"kind": 2, "k": ["requests", 0, "response"], "v": [done]},  # written once more
            {"kind": 1, "k": ["customTitle"], "v": "title"},
        ],
    )
    assert (report.format, report.calls, report.paired) == ("vscode-chat", 1, 1)
    assert report.duplicate_calls == report.duplicate_results == report.orphans == ()


def test_a_journal_part_never_completed_is_unanswered(tmp_path: Path) -> None:
    report = _journal(tmp_path, [HEADER, {"kind": 2, "k": ["requests", 0, "response"], "v": [part()]}])  # fmt: skip
    assert [u.id for u in report.unanswered] == ["t1"]


@pytest.mark.parametrize(
    ("record", "journal"),
    [
        (HEADER, True),
        ({"kind": 1, "k": ["inputState", "inputText"], "v": ""}, True),
        ({"kind": 0, "v": {"requests": []}}, False),  # no session inside
        ({"kind": 1, "k": [], "v": 1}, False),
        ({"kind": 7, "k": ["requests"], "v": []}, False),
        ({"kind": "1", "k": ["requests"], "v": []}, False),
    ],
)
def test_the_journal_signature_and_its_near_misses(record: dict[str, Any], journal: bool) -> None:
    decoded = detect(record)
    assert (decoded is not None and decoded[0] == "vscode-chat") is journal


@pytest.mark.parametrize("journal", [False, True])
def test_a_request_past_the_first_three_may_be_anything(journal: bool) -> None:
    """The signature looks at three requests; a fourth that is not a request is skipped (it
    was an AttributeError), in a session file and in a journal's first line alike."""
    from toolsel.replay.formats.vscode_chat import record

    request = {"requestId": "r1", "message": {"text": "go"}, "response": [part(isComplete=False)]}
    whole = {"sessionId": "s", "requests": [request, request, request, "x", None, request]}
    decoded = record({"kind": 0, "v": whole} if journal else whole)
    assert decoded is not None
    assert [type(e).__name__ for e in decoded[1]] == ["Human", "Call"] * 4


def _record(obj: Any) -> Any:
    from toolsel.replay.formats.vscode_chat import record

    return record(obj)


def test_a_session_s_calls_are_not_echoes_and_a_journal_s_are() -> None:
    done = part(isComplete=True, resultDetails={"input": "{}", "output": [{"value": "ab"}]})
    call = Call("t1", "copilot_readFile", "{}", encoded=True)
    whole = session(done)
    assert _record(whole) == ("vscode-chat", [Human("read it"), call, Result("t1", False, size=2)])
    echoed = Call("t1", "copilot_readFile", "{}", encoded=True, implicit=True)
    assert _record({"kind": 0, "v": whole}) == (
        "vscode-chat",
        [Human("read it"), echoed, Result("t1", False, size=2, implicit=True)],
    )


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        # no input in the result details: what the tool's own data says
        ({"toolSpecificData": {"command": "ls"}}, ("copilot_readFile", {"command": "ls"})),
        ({"resultDetails": {"input": {"a": 1}}, "toolSpecificData": {"b": 2}}, ("copilot_readFile", {"a": 1})),
        ({"resultDetails": ["x"], "toolSpecificData": {"b": 2}}, ("copilot_readFile", {"b": 2})),
        ({"toolId": 5}, ("", {})),
        ({"toolId": None}, ("", {})),
    ],
)  # fmt: skip
def test_a_call_s_tool_and_input(fields: dict[str, Any], expected: tuple[str, Any]) -> None:
    decoded = _record(session(part(**fields)))
    call = decoded[1][1]
    assert isinstance(call, Call) and (call.tool, call.input) == expected


@pytest.mark.parametrize(
    ("fields", "error", "size"),
    [
        ({"isConfirmed": False, "pastTenseMessage": "Skipped reading a.py"}, "Skipped reading a.py", -1),
        ({"isConfirmed": {"type": 0}}, "the tool did not run (denied or skipped)", -1),
        ({"isConfirmed": {"type": 5}, "pastTenseMessage": {"value": "Skipped"}}, {"value": "Skipped"}, -1),
        ({"resultDetails": {"isError": True, "output": [{"value": "ENOENT"}]}}, [{"value": "ENOENT"}], 6),
        ({"resultDetails": {"isError": True}}, None, -1),
        ({"resultDetails": {"isError": False, "output": [{"value": "ok"}]}, "pastTenseMessage": "Read a.py"}, None, 2),
        ({"resultDetails": {"output": "ok"}}, None, -1),  # not a list of parts: none recorded
        ({"resultDetails": {"output": ["x", {"value": 3}, {"value": "é"}]}}, None, 2),
    ],
)  # fmt: skip
def test_what_a_result_says_and_its_size(fields: dict[str, Any], error: Any, size: int) -> None:
    decoded = _record(session(part(isComplete=True, **fields)))
    result = decoded[1][-1]
    failed = "isError" in fields.get("resultDetails", {}) and fields["resultDetails"]["isError"]
    failed = failed or "isConfirmed" in fields
    assert result == Result("t1", failed, error=error, size=size)


@pytest.mark.parametrize(
    ("request_", "events"),
    [
        ({"requestId": "r", "message": "go", "response": [part()]}, ["Call"]),  # no text: no request
        ({"requestId": "r", "message": {"text": "go"}, "response": None}, ["Human"]),
        ({"requestId": "r", "message": {"text": 3}, "response": {"kind": "x"}}, []),
    ],
)  # fmt: skip
def test_an_odd_request_past_the_first_three(request_: dict[str, Any], events: list[str]) -> None:
    first = {"requestId": "r", "response": []}
    decoded = _record({"sessionId": "s", "requests": [first, first, first, request_]})
    assert [type(e).__name__ for e in decoded[1]] == events
    appended = _record({"kind": 2, "k": ["requests"], "v": [request_]})
    assert [type(e).__name__ for e in appended[1]] == events


def test_a_journal_line_s_requests_and_parts() -> None:
    request = {"requestId": "r2", "message": {"text": "go"}, "response": [part(isComplete=False)]}
    echoed = Call("t1", "copilot_readFile", {}, implicit=True)
    # appended requests and parts, past values that are neither
    line = {"kind": 2, "k": ["requests"], "v": [3, {"kind": "markdownContent"}, request, part()]}
    assert _record(line) == ("vscode-chat", [Human("go"), echoed, echoed])
    # one part set in place: the value is the part itself, not a list
    assert _record({"kind": 1, "k": ["requests", 0, "response", 2], "v": part()}) == (
        "vscode-chat",
        [echoed],
    )
    assert _record({"kind": 1, "k": ["customTitle"], "v": [part()]}) == ("vscode-chat", [])


@pytest.mark.parametrize(
    ("obj", "known"),
    [
        ({"kind": 3, "k": ["requests", 0]}, True),  # a deletion has no value
        ({"kind": 1, "k": ["requests", 0]}, False),  # a value set, without the value
        ({"kind": 2, "k": ["requests"]}, False),
        ({"kind": 4, "k": ["requests"], "v": []}, False),
        ({"sessionId": "s", "requests": [{"response": []}]}, False),  # requests without ids
        ({"sessionId": "s", "requests": [{"requestId": "r", "response": None}]}, False),
        ({"sessionId": "s", "requests": [{"requestId": "r", "response": []}]}, True),
    ],
)
def test_what_the_forced_format_knows(obj: dict[str, Any], known: bool) -> None:
    assert (_record(obj) is not None) is known
