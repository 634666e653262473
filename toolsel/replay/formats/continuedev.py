"""Continue sessions (`~/.continue/sessions/<id>.json`: `{sessionId, title, history:
[{message, contextItems, toolCallStates}]}`), whole or as one line of a `.jsonl` file.

A call is an entry of an assistant message's `toolCalls[]` (OpenAI's function shape), its
result a `role: tool` message with the same `toolCallId`. A call whose `toolCallState`
says `errored` (or `canceled`) failed: its result counts as an error.
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import NOTHING, Call, Decoded, Event
from toolsel.replay.formats.shared import arguments_call, human, name_of, outcome, text_id
from toolsel.replay.sizes import content_size

CONTINUE = "continue"
FAILED_STATES = ("errored", "canceled")


def is_session(obj: dict[str, Any]) -> bool:
    history = obj.get("history")
    return "sessionId" in obj and type(history) is list and all(map(is_item, history[:3]))


def is_item(obj: Any) -> bool:
    """A history item: `{message: {role, ...}}`, with no record type of its own."""
    if type(obj) is not dict or "type" in obj or "role" in obj:
        return False
    message = obj.get("message")
    return type(message) is dict and "role" in message


def record(obj: Any) -> Decoded | None:
    """A whole session, or one history item of a session read as a document
    (`--input-format continue`)."""
    if type(obj) is not dict:
        return None
    if is_session(obj):
        failed: set[str] = set()
        events: list[Event] = []
        for item in obj["history"]:
            events.extend(_item(item, failed))
        return CONTINUE, events
    if is_item(obj):
        return CONTINUE, _item(obj, set())
    return None


def _item(item: Any, failed: set[str]) -> list[Event]:
    """An item's calls or result; `failed` gathers the ids its tool call states fail."""
    if type(item) is not dict or type(item.get("message")) is not dict:
        return []
    states = item.get("toolCallStates")
    for state in [*(states if type(states) is list else ()), item.get("toolCallState")]:
        if type(state) is dict and state.get("status") in FAILED_STATES:
            failed.add(text_id(state.get("toolCallId")))
    message = item["message"]
    role = message.get("role")
    if role == "assistant":
        calls = message.get("toolCalls")
        return [_call(c) for c in (calls if type(calls) is list else ()) if type(c) is dict]
    if role == "tool":
        call_id = text_id(message.get("toolCallId"))
        said = message.get("content")
        return [outcome(call_id, call_id in failed, said, content_size(said))]
    if role == "user":
        return human(message.get("content"), [])
    return list(NOTHING)


def _call(call: dict[str, Any]) -> Call:
    function = call.get("function")
    function = function if type(function) is dict else {}
    name = name_of(function.get("name"))
    return arguments_call(text_id(call.get("id")), name, function.get("arguments"))
