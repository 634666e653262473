"""One decoder per transcript format, and the per-line detection that picks one.

Each decoder takes one parsed JSON value and returns `(format, events)`, or None when the
value is not of its shape. Only JSON structure is read: ids inside strings never count.
Formats are detected per line, because files mix them (a Claude Code session holds summary,
progress and message lines; stream-json starts with `system` lines).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolsel.replay.events import Decoded
from toolsel.replay.formats import chat, claude, codex

Decoder = Callable[[Any], Decoded | None]

#: `--input-format NAME` forces one of these instead of detecting the format per line.
DECODERS: dict[str, Decoder] = {
    "claude-code": claude.claude_code,
    "stream-json": claude.stream_json,
    "anthropic": chat.anthropic,
    "openai-chat": chat.openai_chat,
    "openai-responses": codex.responses,
    "codex-rollout": codex.rollout,
    "codex-exec": codex.exec_event,
}


def detect(obj: Any) -> Decoded | None:
    """Decode a line in whichever format its keys say it is (the most common shape first)."""
    if type(obj) is not dict:
        return None
    kind = obj.get("type")
    if kind is None and "role" in obj and "payload" not in obj and "parent_tool_use_id" not in obj:
        return chat.message(obj)  # a chat message (what the other checks would conclude)
    if (
        (kind == "assistant" or kind == "user")
        and "uuid" in obj
        and "parent_tool_use_id" not in obj
    ):
        return claude.claude_message(obj, kind)
    if "payload" in obj and type(obj["payload"]) is dict:
        return codex.rollout(obj)
    is_text = isinstance(kind, str)
    if isinstance(kind, str) and (
        kind.startswith(("item.", "thread.", "turn.")) or (kind == "error" and "item" in obj)
    ):
        return codex.exec_event(obj)
    if (
        "parent_tool_use_id" in obj
        or kind == "result"
        or (kind == "system" and "session_id" in obj)
    ):
        return claude.stream_message(obj)
    if (
        is_text
        and kind in claude.CLAUDE_LINE_TYPES
        and ("uuid" in obj or "sessionId" in obj or kind in ("summary", "file-history-snapshot"))
    ):
        return claude.claude_code(obj)
    if is_text and (kind in codex.RESPONSES_CALLS or kind in codex.RESPONSES_RESULTS):
        return codex.responses(obj)
    if "role" in obj:
        return chat.message(obj)
    if (kind == "assistant" or kind == "user") and type(obj.get("message")) is dict:
        # stream-json without parent_tool_use_id or uuid (claude-code-action, older SDKs)
        return claude.stream_message(obj)
    return None
