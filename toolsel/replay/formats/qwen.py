"""Qwen Code chat recordings (`~/.qwen/projects/<project>/chats/<session>.jsonl`): Claude
Code's record envelope (`uuid`, `parentUuid`, `sessionId`, `type` user | assistant | system
| tool_result) around Gemini content (`message.parts[]`).

A call is a `functionCall` part (`id`, `name`, `args`) of an assistant record; its result a
`functionResponse` part of a `tool_result` record, whose `toolCallResult.status` `error` (or
an `error` in the response) is a failure. `system` records (`systemPayload`: telemetry,
snapshots) repeat calls for telemetry and are never calls.
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import NOTHING, Call, Decoded, Event
from toolsel.replay.formats.shared import human, name_of, outcome, stamp_of, text_blocks, text_id
from toolsel.replay.sizes import response_size

QWEN = "qwen-code"
RECORD_TYPES = frozenset({"user", "assistant", "system", "tool_result"})


def is_record(obj: dict[str, Any]) -> bool:
    """Qwen's signature: Gemini `parts` where Claude Code has `content`, a `toolCallResult`,
    or a `systemPayload`."""
    if "systemPayload" in obj or "toolCallResult" in obj:
        return True
    message = obj.get("message")
    return type(message) is dict and type(message.get("parts")) is list and "content" not in message


def record(obj: Any) -> Decoded | None:
    """A recording's record (`--input-format qwen-code`)."""
    if type(obj) is not dict or type(obj.get("type")) is not str or obj["type"] not in RECORD_TYPES:
        return None
    message = obj.get("message")
    parts = message.get("parts") if type(message) is dict else None
    if type(parts) is not list:
        return QWEN, NOTHING
    stamp = stamp_of(obj.get("timestamp"))
    failed_ids = _failed_ids(obj.get("toolCallResult"))
    events: list[Event] = []
    for part in parts:
        if type(part) is not dict:
            continue
        call = part.get("functionCall")
        response = part.get("functionResponse")
        if type(call) is dict:
            name = name_of(call.get("name"))
            events.append(
                Call(text_id(call.get("id")), name, call.get("args", {}), timestamp=stamp)
            )
        elif type(response) is dict:
            call_id = text_id(response.get("id"))
            output = response.get("response")
            failed = call_id in failed_ids or (type(output) is dict and "error" in output)
            size = response_size(output)
            events.append(outcome(call_id, failed, output, size, timestamp=stamp))
    if not events and obj.get("type") == "user":
        return QWEN, human(text_blocks(parts), events)
    return QWEN, events


def _failed_ids(result: Any) -> frozenset[str]:
    """The call a `toolCallResult` reports as failed (its `callId`, when its status says so)."""
    if type(result) is not dict or result.get("status") != "error":
        return frozenset()
    return frozenset({text_id(result.get("callId"))})
