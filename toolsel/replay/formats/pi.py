"""pi coding agent session files (`~/.pi/agent/sessions/**.jsonl`, version 3) and
OpenClaw's, which keep the same format.

Each line is an entry `{type, id, parentId, timestamp, ...}`; `message` entries hold a
pi-ai message: an `assistant` message's `toolCall` blocks (`id`, `name`, `arguments`) are
calls, and a `toolResult` message (`toolCallId`, `isError`) is a result.
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import (
    NOTHING,
    UNSET,
    Call,
    Decoded,
    Event,
    Human,
    Result,
    Session,
    human_text,
)
from toolsel.replay.formats.shared import text_id
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
        stamp = obj.get("timestamp")
        return PI, _message(message, stamp if type(stamp) is str else None)
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
        events: list[Event] = []
        for block in content if type(content) is list else ():
            if type(block) is dict and block.get("type") == "toolCall":
                name = block.get("name")
                events.append(
                    Call(
                        text_id(block.get("id")),
                        name if type(name) is str else "",
                        block.get("arguments", {}),
                        timestamp=stamp,
                    )
                )
        return events
    if role == "toolResult":
        failed = message.get("isError") is True
        content = message.get("content")
        return [
            Result(
                text_id(message.get("toolCallId")),
                failed,
                UNSET,
                stamp,
                error=content if failed else None,
                size=content_size(content),
            )
        ]
    if role == "user":
        text = human_text(message.get("content"))
        return [Human(text)] if text is not None else NOTHING
    return NOTHING
