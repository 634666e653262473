"""Grok CLI chat histories: a server-side tool is one record, its call and its outcome."""

from __future__ import annotations

from pathlib import Path
from unittest.mock import ANY

from tests.replay.records import corpus_sizes, replay
from toolsel.replay.events import Call, Human, Result
from toolsel.replay.formats.grok import record


def test_a_backend_tool_call_is_a_call_and_a_result(tmp_path: Path) -> None:
    r = replay(
        tmp_path,
        [
            {"type": "system", "content": "You are Grok."},
            {
                "type": "user",
                "content": [{"type": "text", "text": "context"}],
                "synthetic_reason": "environment_context",
            },
            {
                "type": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "c1", "name": "read_file", "arguments": '{"target_file": "a"}'}
                ],
            },
            {"type": "tool_result", "tool_call_id": "c1", "content": "x"},
            {
                "type": "backend_tool_call",
                "kind": {
                    "tool_type": "web_search",
                    "action": {"query": "q"},
                    "id": "ws_1",
                    "status": "completed",
                },
            },
            {
                "type": "backend_tool_call",
                "kind": {"tool_type": "web_search", "id": "ws_2", "status": "failed"},
            },
            {
                "type": "reasoning",
                "id": "rs",
                "summary": [],
                "encrypted_content": "x",
                "status": "completed",
            },
        ],
    )
    assert (r.format, r.calls, r.paired, r.error_results) == ("grok-cli", 3, 3, 1)
    assert r.tools["read_file"].calls == 1 and r.tools["web_search"].calls == 2


# -- the decoder, record by record --------------------------------------------------------


def test_an_assistant_records_tool_calls_are_calls_with_encoded_arguments() -> None:
    assistant = {
        "type": "assistant",
        "content": "I'll read the file first.",
        "tool_calls": [
            {"id": "call-0", "name": "read_file", "arguments": '{"target_file": "hello.py"}'},
            {"id": 3, "name": None, "arguments": {"command": "ls"}},
            {"name": "run_terminal_cmd"},
            "not a call",
        ],
        "model_id": "grok-4.5",
    }
    assert record(assistant) == (
        "grok-cli",
        [
            Call("call-0", "read_file", '{"target_file": "hello.py"}', encoded=True),
            Call("3", "", {"command": "ls"}),
            Call("", "run_terminal_cmd", {}),
        ],
    )
    assert record({"type": "assistant", "content": "Done."}) == ("grok-cli", [])
    assert record({"type": "assistant", "tool_calls": None}) == ("grok-cli", [])


def test_a_tool_result_fails_only_when_is_error_is_true() -> None:
    def result(**extra: object) -> tuple:
        return record({"type": "tool_result", "tool_call_id": "call-0", "content": "x", **extra})

    assert result() == ("grok-cli", [Result("call-0", False, size=1)])
    assert result(is_error=True) == ("grok-cli", [Result("call-0", True, error=ANY, size=1)])
    assert result(is_error=False) == ("grok-cli", [Result("call-0", False, size=1)])
    assert result(is_error="true") == ("grok-cli", [Result("call-0", False, size=1)])


def test_a_backend_tool_call_is_its_call_and_once_it_ended_its_outcome() -> None:
    def backend(kind: object) -> tuple:
        return record({"type": "backend_tool_call", "kind": kind})

    action = {"type": "search", "query": "python print builtin"}
    search = {"tool_type": "web_search", "action": action, "id": "ws_1"}
    assert backend({**search, "status": "completed"}) == (
        "grok-cli",
        [Call("ws_1", "web_search", action), Result("ws_1", False)],
    )
    assert backend({**search, "status": "failed"}) == (
        "grok-cli",
        [Call("ws_1", "web_search", action), Result("ws_1", True, error=ANY)],
    )
    assert backend({**search, "status": "in_progress"}) == (
        "grok-cli",
        [Call("ws_1", "web_search", action)],
    )
    assert backend({"tool_type": 1, "id": 2}) == ("grok-cli", [Call("2", "", {})])
    assert backend("web_search") == ("grok-cli", [])


def test_a_persons_message_is_human_text_and_injected_context_is_not() -> None:
    typed = {"type": "user", "content": [{"type": "text", "text": "Read hello.py"}], "prompt_index": 0}  # fmt: skip
    assert record(typed) == ("grok-cli", [Human("Read hello.py")])
    injected = {**typed, "synthetic_reason": "environment_context"}
    assert record(injected) == ("grok-cli", ())
    assert record({"type": "user", "content": [{"type": "image", "url": "data:"}]}) == (
        "grok-cli",
        (),
    )
    assert record({"type": "system", "content": "You are Grok."}) == ("grok-cli", ())


def test_records_of_other_formats_are_not_grok_records() -> None:
    assert record({"type": "reasoning", "id": "rs_1", "summary": []}) is None
    assert record({"type": "assistant", "message": {"content": []}}) is None  # stream-json
    assert record({"type": "user", "message": {"content": "hi"}}) is None
    assert record(["assistant"]) is None


def test_a_tool_results_size_is_the_bytes_of_its_content_and_a_backend_call_has_none() -> None:
    sizes = corpus_sizes("grok-cli/agent-sessions/chat_history.jsonl")
    assert sizes == {
        "read_file": (len('print("hello from the grok fixture")\n'),),
        "run_terminal_cmd": (len("hello from the grok fixture\n"),),
    }  # the web search, run by the server, says nothing of its result's text
