"""Kimi Code CLI session journals (`wire.jsonl`): one op per line, `{type, ..., time}`.

The agent loop logs each call as a `context.append_loop_event` whose event is `tool.call`
(`toolCallId`, `name`, `args`) and its outcome as a `tool.result` (`result.isError`); the
context may append the same call again as a message (an assistant message's `toolCalls`, a
`tool` message's `toolCallId`). Both are read as echoes of one action, counted once. A
`permission.record_approval_result` names a `toolCallId` too: an approval, not a call.
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import NOTHING, Call, Decoded, Event, Result
from toolsel.replay.formats.chat import message as chat_message
from toolsel.replay.formats.shared import human, name_of, outcome, text_id
from toolsel.replay.sizes import content_size

KIMI = "kimi"


def op(obj: Any) -> Decoded | None:
    """A journal op (`--input-format kimi`)."""
    if type(obj) is not dict:
        return None
    kind = obj.get("type")
    if kind == "context.append_loop_event":
        loop_event = obj.get("event")
        return KIMI, _loop_event(loop_event) if type(loop_event) is dict else NOTHING
    if kind == "context.append_message":
        message = obj.get("message")
        return KIMI, _message(message) if type(message) is dict else NOTHING
    if type(kind) is str and "." in kind and "time" in obj:
        return KIMI, NOTHING  # config, llm request, usage, turn and approval ops
    if kind == "metadata" and "protocol_version" in obj:
        return KIMI, NOTHING  # the journal's first line
    return None


def _loop_event(loop_event: dict[str, Any]) -> list[Event]:
    kind = loop_event.get("type")
    if kind == "tool.call":
        name, call_id = name_of(loop_event.get("name")), text_id(loop_event.get("toolCallId"))
        return [Call(call_id, name, loop_event.get("args", {}), implicit=True)]
    if kind == "tool.result":
        result, call_id = loop_event.get("result"), text_id(loop_event.get("toolCallId"))
        failed = type(result) is dict and result.get("isError") is True
        return [outcome(call_id, failed, result, content_size(result), implicit=True)]
    return []


def _message(message: dict[str, Any]) -> list[Event]:
    role = message.get("role")
    if role == "assistant":
        calls = message.get("toolCalls")
        return [_call(c) for c in (calls if type(calls) is list else ()) if type(c) is dict]
    if role == "tool":
        call_id, content = text_id(message.get("toolCallId")), message.get("content")
        failed = message.get("isError") is True
        return [outcome(call_id, failed, content, content_size(content), implicit=True)]
    if role == "user":
        origin = message.get("origin")
        if type(origin) is dict and origin.get("kind") not in (None, "user"):
            return []  # text the CLI injected
        return human(message.get("content"), [])
    return []


def _call(call: dict[str, Any]) -> Call:
    """An assistant message's tool call: OpenAI's `{id, function: {name, arguments}}`, or flat."""
    function = call.get("function")
    named = function if type(function) is dict else call
    name, arguments = name_of(named.get("name")), named.get("arguments", {})
    call_id = text_id(call.get("id"))
    return Call(call_id, name, arguments, implicit=True, encoded=type(arguments) is str)


KIMI_CONTEXT = "kimi-context"
#: The bookkeeping records of a `context.jsonl` (a chat message list otherwise).
CONTEXT_ROLES = frozenset({"_checkpoint", "_usage"})
#: How kimi-cli opens a tool result's text: a status, `<system>ERROR: ...` on failure.
STATUS = "<system>"
ERROR_STATUS = "<system>ERROR"


def is_context_record(obj: dict[str, Any]) -> bool:
    """A `context.jsonl` line: a bookkeeping record, or a tool result opening with the
    `<system>` status kimi-cli writes (what tells it from an OpenAI chat message)."""
    role = obj.get("role")
    if type(role) is str and role in CONTEXT_ROLES:
        return True
    return role == "tool" and _status(obj.get("content")).startswith(STATUS)


def context(obj: Any) -> Decoded | None:
    """A Kimi CLI `context.jsonl` line (`--input-format kimi-context`): OpenAI-style chat
    messages between `_checkpoint` and `_usage` records; a result whose status is
    `<system>ERROR: ...</system>` is a failure."""
    if type(obj) is not dict or "role" not in obj:
        return None
    return KIMI_CONTEXT, context_events(obj)


def context_events(obj: dict[str, Any]) -> tuple[Event, ...] | list[Event]:
    role = obj["role"]
    if type(role) is str and role in CONTEXT_ROLES:
        return NOTHING
    _, events = chat_message(obj)
    if role == "tool" and _status(obj.get("content")).startswith(ERROR_STATUS):
        said = obj.get("content")  # its status line first: `<system>ERROR: ...</system>`
        return [
            Result(e.id, True, error=said, size=e.size) if isinstance(e, Result) else e
            for e in events
        ]
    return events


def _status(content: Any) -> str:
    """The opening text of a tool result's content (a string, or its first text part)."""
    if type(content) is str:
        return content.lstrip()
    if type(content) is list and content and type(content[0]) is dict:
        text = content[0].get("text")
        return text.lstrip() if type(text) is str else ""
    return ""
