"""Cursor: an agent transcript is not taken for OpenAI chat (its calls have no id and are
answered by position), and a stream-json call logged `started` and `completed` counts
once."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.replay.records import corpus_sizes, replay
from toolsel.replay.events import Call, Human, Result
from toolsel.replay.formats.cursor import stream_event, transcript


def test_a_transcript_is_read_as_a_transcript(tmp_path: Path) -> None:
    r = replay(
        tmp_path,
        [
            {"role": "user", "message": {"content": [{"type": "text", "text": "ls"}]}},
            {
                "role": "assistant",
                "message": {
                    "content": [{"type": "tool_use", "name": "Bash", "input": {"command": "ls"}}]
                },
            },
            {
                "role": "user",
                "message": {
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "t1",
                            "content": [{"type": "text", "text": "a"}],
                        }
                    ]
                },
            },
        ],
    )
    assert (r.format, r.calls, r.paired, r.orphans, r.calls_without_id) == (
        "cursor-transcript",
        1,
        1,
        (),
        1,
    )


def test_stream_json_completions_in_another_order_and_a_completion_alone(tmp_path: Path) -> None:
    def call(subtype: str, call_id: str, result: dict | None = None) -> dict:
        body: dict = {"args": {"command": call_id}}
        if result is not None:
            body["result"] = result
        return {"type": "tool_call", "subtype": subtype, "call_id": call_id, "tool_call": {"shellToolCall": body}, "session_id": "s"}  # fmt: skip

    r = replay(
        tmp_path,
        [
            call("started", "a"),
            call("started", "b"),
            call("completed", "b", {"success": {"exitCode": 0}}),
            call("completed", "a", {"rejected": {"reason": "user"}}),
            call("completed", "c", {"success": {"exitCode": 2}}),  # its start was not logged
            {
                "type": "tool_call",
                "subtype": "completed",
                "call_id": "d",
                "tool_call": {"function": {"name": "mcp_search", "arguments": "{}"}, "x": 1},
            },
        ],
    )
    assert (r.format, r.calls, r.paired, r.error_results) == ("cursor-stream-json", 4, 4, 2)
    assert set(r.tools) == {"shellToolCall", "mcp_search"} and r.duplicate_calls == ()


# -- the decoders, line by line ----------------------------------------------------------


def test_a_transcripts_tool_use_blocks_are_calls_without_ids() -> None:
    assistant = {
        "role": "assistant",
        "message": {
            "id": "msg_1",
            "content": [
                {"type": "text", "text": "Listing."},
                {"type": "tool_use", "name": "Bash", "input": {"command": "ls"}},
            ],
        },
    }
    assert transcript(assistant) == ("cursor-transcript", [Call("", "Bash", {"command": "ls"}, message_id="msg_1")])  # fmt: skip
    result = {"role": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a"}]}}  # fmt: skip
    assert transcript(result) == ("cursor-transcript", [Result("t1", False, size=1)])


def test_a_transcripts_user_text_is_human_text() -> None:
    typed = {"role": "user", "message": {"content": [{"type": "text", "text": "ls"}]}}
    assert transcript(typed) == ("cursor-transcript", [Human("ls")])
    assert transcript({"role": "user", "message": {"content": "read a.txt"}}) == ("cursor-transcript", [Human("read a.txt")])  # fmt: skip
    assert transcript({"role": "assistant", "message": {"content": "done"}}) == ("cursor-transcript", [])  # fmt: skip
    assert transcript({"role": "user", "message": {"content": []}}) == ("cursor-transcript", [])
    assert transcript({"role": "user", "message": "ls"}) is None
    assert transcript({"message": {"content": "ls"}}) is None and transcript("ls") is None


def stream(subtype: str, tool_call: object, **extra: object) -> tuple | None:
    return stream_event({"type": "tool_call", "subtype": subtype, "call_id": "call_a\nfc_1", "tool_call": tool_call, "session_id": "s1", **extra})  # fmt: skip


STARTED = "2023-11-14T22:13:20.100000+00:00"  # timestamp_ms 1700000000100


def test_a_started_tool_call_is_a_call_named_by_its_one_key() -> None:
    shell = {"shellToolCall": {"args": {"command": "sleep 6"}}}
    assert stream("started", shell, timestamp_ms=1700000000100) == (
        "cursor-stream-json",
        [Call("call_a\nfc_1", "shellToolCall", {"command": "sleep 6"}, timestamp=STARTED)],
    )
    function = {"function": {"name": "mcp_search", "arguments": '{"q": 1}'}}
    assert stream("started", function) == ("cursor-stream-json", [Call("call_a\nfc_1", "mcp_search", '{"q": 1}')])  # fmt: skip
    unnamed = {"note": "x", "function": {"arguments": {"q": 1}}}
    assert stream("started", unnamed) == ("cursor-stream-json", [Call("call_a\nfc_1", "function", {"q": 1})])  # fmt: skip
    assert stream("started", {}) == ("cursor-stream-json", [Call("call_a\nfc_1", "", {})])
    both = {"readToolCall": {"args": {"path": "a"}, "arguments": {"path": "b"}}}
    assert stream("started", both, call_id=7) == ("cursor-stream-json", [Call("7", "readToolCall", {"path": "a"})])  # fmt: skip


def test_a_completed_tool_call_is_an_implicit_call_and_its_result() -> None:
    def completed(result: object) -> bool:
        body = {"args": {"path": "a.txt"}, "result": result}
        decoded = stream("completed", {"readToolCall": body}, timestamp_ms=1)
        at = "1970-01-01T00:00:00.001000+00:00"
        assert decoded is not None and decoded[0] == "cursor-stream-json"
        call, answer = decoded[1]
        assert call == Call("call_a\nfc_1", "readToolCall", {"path": "a.txt"}, timestamp=at, implicit=True)  # fmt: skip
        assert (answer.id, answer.timestamp, answer.implicit) == ("call_a\nfc_1", at, False)
        return answer.is_error

    assert completed({"success": {"exitCode": 0, "stdout": ""}}) is False
    assert completed({"success": {"content": "Project README"}}) is False
    assert completed({"success": {"exitCode": 1, "stderr": "killed"}}) is True
    assert completed({"success": {"exitCode": "1"}}) is False
    assert completed({"success": "exitCode 1"}) is False
    assert completed({"error": {"errorMessage": "not found"}}) is True
    assert completed({"rejected": {"reason": "user"}}) is True
    assert completed({"failure": {}}) is True
    assert completed("error") is False
    assert completed(None) is False


@pytest.mark.parametrize(
    ("result", "size"),
    [
        ({"success": {"content": "Project README", "totalLines": 1}}, 14),  # a read
        ({"content": "héllo"}, 6),  # a result with no outcome key: its own text
        (
            {
                "success": {
                    "exitCode": 1,
                    "stdout": "ab\n",
                    "stderr": "killed",
                    "interleavedOutput": "ab\nkilled",
                }
            },
            9,
        ),
        ({"success": {"exitCode": 0, "stdout": "", "stderr": "", "executionTime": 4162}}, 0),
        ({"error": {"errorMessage": "not found"}}, 9),
        ({"rejected": {"reason": "user"}}, 0),
        ({"success": "exitCode 1"}, 0),
        ("plain", 5),
        (None, 0),
    ],
)
def test_a_completed_calls_size_is_its_outcomes_text(result: object, size: int) -> None:
    decoded = stream("completed", {"readToolCall": {"args": {}, "result": result}})
    assert decoded is not None
    assert decoded[1][1].size == size


def test_a_timestamp_that_is_not_a_positive_millisecond_count_is_none() -> None:
    def stamp(milliseconds: object) -> str | None:
        decoded = stream("started", {"shellToolCall": {}}, timestamp_ms=milliseconds)
        assert decoded is not None
        return decoded[1][0].timestamp

    assert stamp(1700000000100) == STARTED
    assert [stamp(ms) for ms in (0, -5, 1.5e12, "1700000000100", 10**20)] == [None] * 5


def test_other_stream_events() -> None:
    assert stream("delta", {"shellToolCall": {}}) == ("cursor-stream-json", ())
    assert stream_event({"type": "thinking", "subtype": "delta", "text": "Two shells."}) == ("cursor-stream-json", ())  # fmt: skip
    assert stream("started", "shellToolCall") is None
    assert stream_event({"type": "assistant", "tool_call": {"shellToolCall": {}}}) is None
    assert stream_event(["tool_call"]) is None


def test_the_corpus_streams_sizes() -> None:
    assert corpus_sizes("cursor/takopi/cursor_stream_success.jsonl") == {
        "readToolCall": (len("Project README"),)
    }
    assert corpus_sizes("cursor/cursor-hack/subagent-sleep-v2.jsonl") == {"shellToolCall": (0,)}
