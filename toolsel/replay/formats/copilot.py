"""GitHub Copilot CLI session events (`~/.copilot/session-state/<id>/events.jsonl`).

Each line is `{type, data, id, timestamp, parentId}` (the schema the Copilot SDK generates
its `SessionEvent` type from). A call is requested in `assistant.message`'s `toolRequests`
and logged again by `tool.execution_start` (or `tool.user_requested`): one action, counted
once. `tool.execution_complete` is the result (`success: false` is an error). A sub-agent's
events name their parent call in `parentToolCallId`.
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import NOTHING, UNKNOWN, Call, Decoded, Event, Session
from toolsel.replay.formats.shared import human, name_of, outcome, stamp_of, text_id
from toolsel.replay.sizes import content_size

COPILOT = "copilot-cli"
#: Event families with no tool content (the SDK's session-events schema).
OTHER_FAMILIES = ("session.", "assistant.", "user.", "system.", "hook.", "subagent.", "skill.",
                  "pending_messages.", "abort")  # fmt: skip


def copilot(obj: Any) -> Decoded | None:
    """A Copilot CLI event (`--input-format copilot-cli`)."""
    if type(obj) is not dict:
        return None
    kind, data = obj.get("type"), obj.get("data")
    if type(kind) is not str or type(data) is not dict:
        return None
    return COPILOT, _events(kind, data, obj.get("timestamp"))


def _events(kind: str, data: dict[str, Any], timestamp: Any) -> tuple[Event, ...] | list[Event]:
    stamp, parent = stamp_of(timestamp), stamp_of(data.get("parentToolCallId"))
    if kind == "assistant.message":
        requests = data.get("toolRequests")
        return [
            Call(
                text_id(request.get("toolCallId")),
                name_of(request.get("name")),
                request.get("arguments", {}),
                message_id=stamp_of(data.get("messageId")),
                parent=parent,
                timestamp=stamp,
            )
            for request in (requests if type(requests) is list else ())
            if type(request) is dict
        ]
    if kind == "tool.execution_start" or kind == "tool.user_requested":
        return [
            Call(
                text_id(data.get("toolCallId")),
                name_of(data.get("toolName")),
                data.get("arguments", {}),
                parent=parent,
                timestamp=stamp,
                implicit=True,
            )
        ]
    if kind == "tool.execution_complete":
        call_id, failed = text_id(data.get("toolCallId")), data.get("success") is False
        return [outcome(call_id, failed, data, _size(data), parent=parent, timestamp=stamp)]
    if kind == "user.message":
        return human(data.get("content")) if parent is None else NOTHING
    if kind == "session.start" and type(data.get("sessionId")) is str:
        return [Session(data["sessionId"])]
    return NOTHING if kind.startswith(OTHER_FAMILIES) else UNKNOWN


def _size(data: dict[str, Any]) -> int:
    """The bytes of a completed call's `result.content` (what the model reads; its
    `detailedContent` is shown to the user), else of its `error.message`."""
    result, error = data.get("result"), data.get("error")
    if result is None and type(error) is dict:
        return content_size(error.get("message"))
    return content_size(result.get("content") if type(result) is dict else result)
