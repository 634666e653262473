"""Cursor: agent transcripts (`~/.cursor/projects/*/agent-transcripts/*.jsonl`) and
`cursor-agent --print --output-format stream-json`.

A transcript line is `{role, message: {content: [...]}}` with Anthropic content blocks
whose `tool_use` blocks carry no id: each call is answered by position (the results name
`t1`, `t2`, which no call has). A stream-json `tool_call` event is logged twice, `started`
and `completed` (with `result`), under one `call_id`; its tool is the one key of
`tool_call` (`readToolCall`, `shellToolCall`, or `function` with a name). The other
stream-json lines (`system`, `user`, `assistant`, `result`) are Agent SDK stream-json.
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import NOTHING, UNSET, Call, Decoded, Event
from toolsel.replay.formats.claude import add_blocks
from toolsel.replay.formats.shared import human, outcome, text_id
from toolsel.replay.sizes import content_size
from toolsel.timeparse import iso_from_milliseconds

TRANSCRIPT = "cursor-transcript"
STREAM = "cursor-stream-json"
#: The keys under which a completed stream-json call's result holds its outcome.
OUTCOMES = frozenset({"success", "error", "rejected", "failure"})
#: The keys of an outcome that hold text the model reads.
TEXT_KEYS = ("content", "stdout", "stderr", "errorMessage", "output", "text")


def transcript(obj: Any) -> Decoded | None:
    """An agent transcript line (`--input-format cursor-transcript`)."""
    if type(obj) is not dict or "role" not in obj:
        return None
    message = obj.get("message")
    if type(message) is not dict:
        return None
    content = message.get("content")
    events: list[Event] = []
    if type(content) is list:
        add_blocks(events, content, message.get("id"), UNSET, None, False, None)
    if obj["role"] == "user" and not events:
        return TRANSCRIPT, human(content, events)
    return TRANSCRIPT, events


def stream_event(obj: Any) -> Decoded | None:
    """A stream-json `tool_call` or `thinking` event (`--input-format cursor-stream-json`)."""
    if type(obj) is not dict:
        return None
    kind = obj.get("type")
    if kind == "thinking":
        return STREAM, NOTHING
    tool_call = obj.get("tool_call")
    if kind != "tool_call" or type(tool_call) is not dict:
        return None
    name, body = _tool(tool_call)
    call_id = text_id(obj.get("call_id"))
    stamp = _stamp(obj.get("timestamp_ms"))
    arguments = body.get("args", body.get("arguments", {}))
    subtype = obj.get("subtype")
    if subtype == "started":
        return STREAM, [Call(call_id, name, arguments, timestamp=stamp)]
    if subtype == "completed":
        # the completion repeats the call: a call only when `started` was not logged
        call = Call(call_id, name, arguments, timestamp=stamp, implicit=True)
        said = body.get("result")
        size = _outcome_size(said)
        return STREAM, [call, outcome(call_id, _failed(said), said, size, timestamp=stamp)]
    return STREAM, NOTHING


def _tool(tool_call: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The tool's name and its record: the one key (`readToolCall`), or `function.name`."""
    for key, body in tool_call.items():
        if type(body) is dict:
            if key == "function" and type(body.get("name")) is str:
                return body["name"], body
            return str(key), body
    return "", {}


def _failed(result: Any) -> bool:
    """A completed call failed when its result is an `error` or `rejected` one, or its
    `success` reports a non-zero `exitCode`."""
    if type(result) is not dict:
        return False
    if "error" in result or "rejected" in result or "failure" in result:
        return True
    success = result.get("success")
    code = success.get("exitCode") if type(success) is dict else None
    return type(code) is int and code != 0


def _outcome_size(result: Any) -> int:
    """The bytes of a completed call's text: in its outcome (`success`, `error`, ...; else
    the result itself), a read's `content`, a command's `stdout` and `stderr`, an error's
    `errorMessage` (a command's `interleavedOutput` repeats its streams)."""
    if type(result) is not dict:
        return content_size(result)
    outcome = next((v for k, v in result.items() if k in OUTCOMES and type(v) is dict), result)
    return sum(content_size(outcome.get(key), 2) for key in TEXT_KEYS)


def _stamp(milliseconds: Any) -> str | None:
    if type(milliseconds) is not int or milliseconds <= 0:
        return None
    return iso_from_milliseconds(milliseconds)
