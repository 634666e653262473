"""Kimi Code CLI session journals (`wire.jsonl`): one op per line, `{type, ..., time}`.

The agent loop logs each call as a `context.append_loop_event` whose event is `tool.call`
(`toolCallId`, `name`, `args`) and its outcome as a `tool.result` (`result.isError`); the
context may append the same call again as a message (an assistant message's `toolCalls`, a
`tool` message's `toolCallId`). Both are read as echoes of one action, counted once. A
`permission.record_approval_result` names a `toolCallId` too: an approval, not a call.
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import NOTHING, Call, Decoded, Event, Human, Result, human_text
from toolsel.replay.formats.shared import text_id

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
        name = loop_event.get("name")
        return [
            Call(
                text_id(loop_event.get("toolCallId")),
                name if type(name) is str else "",
                loop_event.get("args", {}),
                implicit=True,
            )
        ]
    if kind == "tool.result":
        result = loop_event.get("result")
        failed = type(result) is dict and result.get("isError") is True
        call_id = text_id(loop_event.get("toolCallId"))
        return [Result(call_id, failed, implicit=True, error=result if failed else None)]
    return []


def _message(message: dict[str, Any]) -> list[Event]:
    role = message.get("role")
    if role == "assistant":
        calls = message.get("toolCalls")
        events: list[Event] = []
        for call in calls if type(calls) is list else ():
            if type(call) is dict:
                function = call.get("function")
                named = function if type(function) is dict else call
                name = named.get("name")
                events.append(
                    Call(
                        text_id(call.get("id")),
                        name if type(name) is str else "",
                        named.get("arguments", {}),
                        implicit=True,
                        encoded=type(named.get("arguments")) is str,
                    )
                )
        return events
    if role == "tool":
        failed = message.get("isError") is True
        content = message.get("content") if failed else None
        return [Result(text_id(message.get("toolCallId")), failed, implicit=True, error=content)]
    if role == "user":
        origin = message.get("origin")
        if type(origin) is dict and origin.get("kind") not in (None, "user"):
            return []  # text the CLI injected
        text = human_text(message.get("content"))
        return [Human(text)] if text is not None else []
    return []
