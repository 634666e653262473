"""Kimi Code CLI journals: a call logged as a loop event and again as a context message is
one action; an approval that names a `toolCallId` is not a call."""

from __future__ import annotations

import json
from pathlib import Path
from unittest.mock import ANY

from tests.conftest import Cli
from tests.replay.records import CORPUS, corpus_result_bytes, corpus_sizes, replay
from toolsel.replay.events import Call, Human, Result
from toolsel.replay.formats.kimi import op


def test_loop_events_and_context_messages_are_one_action(tmp_path: Path) -> None:
    def loop(event: dict) -> dict:
        return {"type": "context.append_loop_event", "event": event, "time": 1}

    r = replay(
        tmp_path,
        [
            {"type": "metadata", "protocol_version": "1.4", "created_at": 1},
            {
                "type": "permission.record_approval_result",
                "toolCallId": "Bash_0",
                "toolName": "Bash",
                "result": {"decision": "approved"},
                "time": 1,
            },
            {
                "type": "context.append_message",
                "message": {
                    "role": "assistant",
                    "content": [],
                    "toolCalls": [{"id": "Bash_0", "name": "Bash", "arguments": "{}"}],
                },
                "time": 1,
            },
            loop(
                {
                    "type": "tool.call",
                    "toolCallId": "Bash_0",
                    "name": "Bash",
                    "args": {"command": "ls"},
                }
            ),
            loop(
                {
                    "type": "tool.result",
                    "toolCallId": "Bash_0",
                    "result": {"output": "x", "isError": True},
                }
            ),
            {
                "type": "context.append_message",
                "message": {"role": "tool", "toolCallId": "Bash_0", "content": [], "isError": True},
                "time": 1,
            },
            {"type": "llm.request", "model": "kimi", "time": 1},
        ],
    )
    assert (r.format, r.calls, r.results, r.paired, r.error_results) == ("kimi", 1, 1, 1, 1)
    assert r.duplicate_calls == r.duplicate_results == () and r.unread_tools == ()


# -- the decoder, op by op ---------------------------------------------------------------


def loop(event: object) -> dict:
    return {"type": "context.append_loop_event", "event": event, "time": 1785613809972}


def context(message: object) -> dict:
    return {"type": "context.append_message", "message": message, "time": 1785613809972}


def test_a_loop_events_tool_call_is_an_implicit_call() -> None:
    call = {
        "type": "tool.call",
        "uuid": "Bash_0",
        "turnId": "3",
        "toolCallId": "Bash_0",
        "name": "Bash",
        "args": {"command": "ls"},
        "description": "Running: ls",
    }
    assert op(loop(call)) == ("kimi", [Call("Bash_0", "Bash", {"command": "ls"}, implicit=True)])
    bare = {"type": "tool.call", "toolCallId": 4, "name": None}
    assert op(loop(bare)) == ("kimi", [Call("4", "", {}, implicit=True)])


def test_a_loop_events_tool_result_fails_when_its_result_says_is_error() -> None:
    def failed(result: object) -> bool:
        decoded = op(loop({"type": "tool.result", "toolCallId": "Bash_0", "result": result}))
        assert decoded is not None and decoded[0] == "kimi"
        (event,) = decoded[1]
        assert (event.id, event.implicit) == ("Bash_0", True)
        return event.is_error

    assert failed({"output": "a.txt\n"}) is False
    assert failed({"output": "", "isError": True}) is True
    assert failed({"output": "", "isError": False}) is False
    assert failed({"isError": "yes"}) is False
    assert failed("isError") is False


def test_other_loop_events_and_a_loop_op_without_an_event_yield_nothing() -> None:
    assert op(loop({"type": "step.begin", "uuid": "u", "turnId": "0", "step": 1})) == ("kimi", [])
    assert op(loop({"type": "content.part", "part": {"type": "think"}})) == ("kimi", [])
    assert op(loop(None)) == ("kimi", ())


def test_an_assistant_context_message_restates_its_calls() -> None:
    message = {
        "role": "assistant",
        "content": [],
        "toolCalls": [
            {"id": "Bash_0", "name": "Bash", "arguments": '{"command": "ls"}'},
            {"id": "Read_1", "function": {"name": "Read", "arguments": {"path": "a"}}},
            {"id": "Glob_2", "type": "function", "function": "Glob", "name": "Glob"},
            {"id": 3, "name": 7},
            "Bash",
        ],
    }
    assert op(context(message)) == (
        "kimi",
        [
            Call("Bash_0", "Bash", '{"command": "ls"}', implicit=True, encoded=True),
            Call("Read_1", "Read", {"path": "a"}, implicit=True),
            Call("Glob_2", "Glob", {}, implicit=True),
            Call("3", "", {}, implicit=True),
        ],
    )
    assert op(context({"role": "assistant", "content": []})) == ("kimi", [])


def test_a_tool_context_message_restates_its_result() -> None:
    tool = {"role": "tool", "toolCallId": "Bash_0", "content": [{"type": "text", "text": "x"}]}
    assert op(context(tool)) == ("kimi", [Result("Bash_0", False, implicit=True, size=1)])
    assert op(context({**tool, "isError": True})) == (
        "kimi",
        [Result("Bash_0", True, error=ANY, implicit=True, size=1)],
    )
    assert op(context({**tool, "isError": 1})) == (
        "kimi",
        [Result("Bash_0", False, implicit=True, size=1)],
    )


def test_a_persons_context_message_is_human_text_and_injected_text_is_not() -> None:
    typed = {"role": "user", "content": [{"type": "text", "text": "hi"}], "toolCalls": []}
    assert op(context(typed)) == ("kimi", [Human("hi")])
    assert op(context({**typed, "origin": {"kind": "user"}})) == ("kimi", [Human("hi")])
    assert op(context({**typed, "origin": {"source": "cli"}})) == ("kimi", [Human("hi")])
    assert op(context({**typed, "origin": "system"})) == ("kimi", [Human("hi")])
    assert op(context({**typed, "origin": {"kind": "system_reminder"}})) == ("kimi", [])
    assert op(context({"role": "user", "content": [{"type": "image"}]})) == ("kimi", [])
    assert op(context({"role": "system", "content": "You are Kimi."})) == ("kimi", [])
    assert op(context("hi")) == ("kimi", ())


def test_the_other_ops_are_known_by_their_dotted_type_and_time() -> None:
    assert op({"type": "metadata", "protocol_version": "1.4", "created_at": 1}) == ("kimi", ())
    assert op({"type": "llm.request", "model": "kimi", "time": 1}) == ("kimi", ())
    assert op({"type": "permission.record_approval_result", "toolCallId": "Bash_0", "time": 1}) == (
        "kimi",
        (),
    )
    assert op({"type": "llm.request", "model": "kimi"}) is None  # no time: not a journal op
    assert op({"type": "metadata", "created_at": 1}) is None
    assert op({"type": "turn", "time": 1}) is None
    assert op({"type": 3, "time": 1}) is None and op([]) is None


def test_a_loop_results_size_is_its_output_and_a_context_error_keeps_its_size(cli: Cli) -> None:
    name = "kimi/agent-sessions/assistant_tools.jsonl"
    outputs = []
    for line in (CORPUS / name).read_text(encoding="utf-8").splitlines():
        op_ = json.loads(line)
        if op_.get("type") == "context.append_loop_event" and op_["event"]["type"] == "tool.result":
            outputs.append(len(op_["event"]["result"]["output"].encode()))
    assert len(outputs) == 3 and corpus_sizes(name) == {"Bash": tuple(outputs)}
    assert corpus_result_bytes(cli, name)["Bash"]["total"] == sum(outputs)
    decoded = op(
        loop({"type": "tool.result", "toolCallId": "B", "result": {"output": "é", "isError": True}})
    )
    assert decoded is not None and decoded[1][0].size == 2


def test_a_kimi_context_error_keeps_its_size() -> None:
    from toolsel.replay.failures import error_message
    from toolsel.replay.formats.kimi import context as context_line

    said = [{"type": "text", "text": "<system>ERROR: boom</system>"}, {"type": "text", "text": "é"}]
    decoded = context_line({"role": "tool", "content": said, "tool_call_id": "B"})
    assert decoded is not None
    (result,) = decoded[1]
    assert (result.is_error, result.size) == (True, len("<system>ERROR: boom</system>") + 2)
    assert error_message(result.error) == "ERROR: boom"  # why it failed: its status line
