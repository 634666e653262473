"""pi coding agent session files (`~/.pi/agent/sessions/**.jsonl`, version 3) and
OpenClaw's, which keep the same format.

Each line is an entry `{type, id, parentId, timestamp, ...}`; `message` entries hold a
pi-ai message: an `assistant` message's `toolCall` blocks (`id`, `name`, `arguments`) are
calls, and a `toolResult` message (`toolCallId`, `isError`) is a result.
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import NOTHING, Call, Decoded, Event, Session
from toolsel.replay.formats.shared import human, name_of, outcome, stamp_of, text_id
from toolsel.replay.sizes import content_size

PI = "pi"
#: Entry types with no tool content.
OTHER_ENTRIES = frozenset(
    {"model_change", "thinking_level_change", "compaction", "branch_summary", "custom",
     "custom_message", "label", "session_info"}
)  # fmt: skip


def entry(obj: Any) -> Decoded | None:
    """A session entry (`--input-format pi`)."""
    if type(obj) is not dict:
        return None
    kind = obj.get("type")
    if kind == "message":
        message = obj.get("message")
        if type(message) is not dict:
            return None
        return PI, _message(message, stamp_of(obj.get("timestamp")))
    if kind == "session":
        session = obj.get("id")
        return PI, [Session(session)] if type(session) is str else NOTHING
    if type(kind) is str and kind in OTHER_ENTRIES:
        return PI, NOTHING
    return None


def _message(message: dict[str, Any], stamp: str | None) -> list[Event] | tuple[Event, ...]:
    role = message.get("role")
    if role == "assistant":
        content = message.get("content")
        return [
            Call(
                text_id(b.get("id")),
                name_of(b.get("name")),
                b.get("arguments", {}),
                timestamp=stamp,
            )
            for b in (content if type(content) is list else ())
            if type(b) is dict and b.get("type") == "toolCall"
        ]
    if role == "toolResult":
        call_id, content = text_id(message.get("toolCallId")), message.get("content")
        failed = message.get("isError") is True
        return [outcome(call_id, failed, content, content_size(content), timestamp=stamp)]
    if role == "user":
        return human(message.get("content"))
    return NOTHING
