"""pi coding agent and OpenClaw sessions: `toolCall` blocks answered by `toolResult`
messages; the other entry types are known metadata."""

from __future__ import annotations

from pathlib import Path
from unittest.mock import ANY

from tests.replay.records import corpus_sizes, replay
from toolsel.replay.events import UNSET, Call, Human, Result, Session
from toolsel.replay.formats import pi


def entry(n: int, message: dict) -> dict:
    return {"type": "message", "id": f"e{n}", "parentId": f"e{n - 1}", "timestamp": "2026-05-12T01:03:01.000Z", "message": message}  # fmt: skip


def test_a_session(tmp_path: Path) -> None:
    r = replay(
        tmp_path,
        [
            {"type": "session", "version": 3, "id": "s", "cwd": "/tmp"},
            {"type": "model_change", "id": "m", "parentId": None, "modelId": "x"},
            entry(1, {"role": "user", "content": [{"type": "text", "text": "ls"}]}),
            entry(
                2,
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "t"},
                        {"type": "toolCall", "id": "c1", "name": "ls", "arguments": {"path": "."}},
                        {"type": "toolCall", "id": "c2", "name": "read", "arguments": {}},
                    ],
                },
            ),
            entry(
                3,
                {
                    "role": "toolResult",
                    "toolCallId": "c1",
                    "toolName": "ls",
                    "content": [],
                    "isError": False,
                },
            ),
            entry(
                4,
                {
                    "role": "toolResult",
                    "toolCallId": "c2",
                    "toolName": "read",
                    "content": [],
                    "isError": True,
                },
            ),
            entry(
                5, {"role": "bashExecution", "command": "git status", "output": "", "exitCode": 0}
            ),
            {"type": "compaction", "id": "c", "parentId": "e5", "summary": "s"},
            {
                "type": "custom_message",
                "customType": "openclaw.runtime-context",
                "content": "x",
                "id": "cm",
                "parentId": "c",
            },
        ],
    )
    assert (r.format, r.calls, r.paired, r.error_results) == ("pi", 2, 2, 1)
    assert r.skipped_records == 0 and r.unreadable == ()


# -- the decoder, entry by entry ---------------------------------------------------------

STAMP = "2026-05-12T01:03:01.000Z"


def entry_of(message: object) -> dict:
    return {"type": "message", "id": "e2", "parentId": "e1", "timestamp": STAMP, "message": message}  # fmt: skip


def test_an_assistant_messages_tool_call_blocks_are_calls() -> None:
    message = {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "t"},
            {"type": "toolCall", "id": "c1", "name": "ls", "arguments": {"path": "."}},
            {"type": "toolCall", "id": 2, "name": None},
            {"type": "text", "text": "done"},
            "toolCall",
        ],
    }
    assert pi.entry(entry_of(message)) == (
        "pi",
        [Call("c1", "ls", {"path": "."}, timestamp=STAMP), Call("2", "", {}, timestamp=STAMP)],
    )
    assert pi.entry({**entry_of(message), "timestamp": 1778547781000}) == (
        "pi",
        [Call("c1", "ls", {"path": "."}), Call("2", "", {})],
    )
    assert pi.entry(entry_of({"role": "assistant", "content": "text"})) == ("pi", [])
    assert pi.entry(entry_of({"role": "assistant", "stopReason": "aborted"})) == ("pi", [])


def test_a_tool_result_message_fails_only_when_is_error_is_true() -> None:
    result = {"role": "toolResult", "toolCallId": "c1", "toolName": "ls", "content": []}
    assert pi.entry(entry_of(result)) == ("pi", [Result("c1", False, timestamp=STAMP, size=0)])
    assert pi.entry(entry_of({**result, "isError": True})) == ("pi", [Result("c1", True, error=ANY, timestamp=STAMP, size=0)])  # fmt: skip
    assert pi.entry(entry_of({**result, "isError": "true"})) == ("pi", [Result("c1", False, timestamp=STAMP, size=0)])  # fmt: skip
    (event,) = pi.entry(entry_of(result))[1]
    assert event.parent is UNSET  # pi does not say which call a sub-agent's result is under


def test_a_users_message_is_human_text() -> None:
    typed = {"role": "user", "content": [{"type": "text", "text": "ls"}]}
    assert pi.entry(entry_of(typed)) == ("pi", [Human("ls")])
    assert pi.entry(entry_of({"role": "user", "content": []})) == ("pi", ())
    assert pi.entry(entry_of({"role": "bashExecution", "command": "ls", "exitCode": 0})) == (
        "pi",
        (),
    )


def test_a_session_header_names_the_session_and_other_entries_are_known() -> None:
    assert pi.entry({"type": "session", "version": 3, "id": "s", "cwd": "/tmp"}) == ("pi", [Session("s")])  # fmt: skip
    assert pi.entry({"type": "session", "version": 3, "id": 1}) == ("pi", ())
    assert pi.entry({"type": "model_change", "id": "m", "modelId": "x"}) == ("pi", ())
    assert pi.entry({"type": "custom_message", "content": "x", "id": "cm"}) == ("pi", ())
    assert pi.entry({"type": "message", "id": "e1", "message": "hi"}) is None
    assert pi.entry({"type": "thought", "id": "t"}) is None
    assert pi.entry({"type": ["message"]}) is None and pi.entry("message") is None


def test_a_tool_results_size_is_the_bytes_of_its_text_blocks() -> None:
    assert corpus_sizes("pi/agent-sessions/small.jsonl") == {"ls": (len("hello.py\nreadme.md"),)}
    blocks = [
        {"type": "text", "text": "é"},
        {"type": "image", "data": "QUJD"},
        {"type": "text", "text": "ab"},
    ]
    result = {"role": "toolResult", "toolCallId": "c1", "content": blocks, "isError": True}
    (event,) = pi.entry(entry_of(result))[1]
    assert event.size == 4
