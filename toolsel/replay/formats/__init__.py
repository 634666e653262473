"""One decoder per transcript format, and the per-line detection that picks one.

Each decoder takes one parsed JSON value and returns `(format, events)`, or None when the
value is not of its shape. Only JSON structure is read: ids inside strings never count.
Formats are detected per line, because files mix them (a Claude Code session holds summary,
progress and message lines; stream-json starts with `system` lines).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolsel.replay.events import NOTHING, Decoded
from toolsel.replay.formats import (
    amp,
    antigravity,
    chat,
    chatreplay,
    claude,
    cline,
    codex,
    continuedev,
    copilot,
    cursor,
    droid,
    gemini,
    goose,
    grok,
    kimi,
    opencode,
    openhands,
    pi,
    qwen,
    vscode_chat,
)

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
    "gemini-cli": gemini.recording,
    "gemini-stream-json": gemini.stream_event,
    "copilot-cli": copilot.copilot,
    "cursor-transcript": cursor.transcript,
    "cursor-stream-json": cursor.stream_event,
    "openhands": openhands.event,
    "pi": pi.entry,
    "kimi": kimi.op,
    "grok-cli": grok.record,
    "droid": droid.event,
    "antigravity": antigravity.event,
    "qwen-code": qwen.record,
    "kimi-context": kimi.context,
    "goose": goose.record,
    "opencode": opencode.record,
    "continue": continuedev.record,
    "cline": cline.record,
    "vscode-chat": vscode_chat.record,
    "vscode-chatreplay": chatreplay.record,
    "amp": amp.record,
}
#: `codex exec --json` events that are not items.
EXEC_EVENTS = frozenset({"thread.started", "turn.started", "turn.completed", "turn.failed"})


def detect(obj: Any) -> Decoded | None:
    """Decode a line in whichever format its keys say it is (the most common shape first)."""
    if type(obj) is not dict:
        if type(obj) is list and cline.is_context_update(obj):
            return cline.CLINE, NOTHING  # a Cline task's context_history.json
        return None
    kind = obj.get("type")
    if kind is None and "role" in obj and "payload" not in obj and "parent_tool_use_id" not in obj:
        if "content" not in obj and type(obj.get("message")) is dict:
            return cursor.transcript(obj)  # {role, message: {content}}
        return _chat_message(obj)
    if "uuid" in obj and type(kind) is str and kind in qwen.RECORD_TYPES and qwen.is_record(obj):
        return qwen.record(obj)  # Claude Code's envelope around Gemini parts
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
        kind.startswith("item.") or kind in EXEC_EVENTS or (kind == "error" and "item" in obj)
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
        and (
            "uuid" in obj
            or ("sessionId" in obj and kind not in claude.FLAT_RECORDS)
            or kind in ("summary", "file-history-snapshot")
        )
    ):
        return claude.claude_code(obj)
    if is_text and kind in codex.RESPONSES_TOOL_ITEMS:
        return codex.responses(obj)
    if "role" in obj:
        return chat.message(obj)
    if (kind == "assistant" or kind == "user") and type(obj.get("message")) is dict:
        # stream-json without parent_tool_use_id or uuid (claude-code-action, older SDKs)
        return claude.stream_message(obj)
    return _other_agents(obj, kind) if type(kind) is str else _untyped(obj)


def _chat_message(obj: dict[str, Any]) -> Decoded:
    """A message with a role and no type: Goose's and Kimi CLI's context records, Amp's and
    Cline's messages by their signatures, else a chat message (what the other checks would
    conclude)."""
    if goose.is_message(obj):
        return goose.GOOSE, goose.message(obj)
    if kimi.is_context_record(obj):
        return kimi.KIMI_CONTEXT, kimi.context_events(obj)
    if amp.is_message(obj):
        return amp.AMP, amp.message_events(obj)
    if cline.is_message(obj):
        return cline.CLINE, cline.message_events(obj)
    return chat.message(obj)


def _other_agents(obj: dict[str, Any], kind: str) -> Decoded | None:
    """The records of the other agents' formats, told apart by their keys (after the common
    shapes, so that detection stays fast where most lines are)."""
    if opencode.is_run_event(obj, kind):
        return opencode.record(obj)
    if "." in kind:
        if opencode.is_event_row(obj):
            return opencode.record(obj)  # message.part.updated.1, session.created, ...
        if type(obj.get("data")) is dict:
            return copilot.copilot(obj)  # session.start, tool.execution_complete, ...
        return kimi.op(obj)  # context.append_loop_event, llm.request, ...
    if kind == "tool_call" or kind == "thinking":
        if type(obj.get("tool_call")) is dict or "subtype" in obj:
            return cursor.stream_event(obj)
        return droid.event(obj)
    if (kind == "tool_result" or kind == "completion") and (
        "toolId" in obj or "isError" in obj or "finalText" in obj
    ):
        return droid.event(obj)
    if kind in ("tool_use", "tool_result", "init", "message") and (
        "tool_id" in obj or "session_id" in obj
    ):
        return gemini.stream_event(obj)
    if kind == "message" or kind == "session" or kind in pi.OTHER_ENTRIES:
        return pi.entry(obj)
    if kind in gemini.MESSAGE_TYPES and "id" in obj and "timestamp" in obj:
        return gemini.recording(obj)
    if kind in codex.RESPONSES_OTHER and kind != "message":
        return codex.responses(obj)  # a reasoning item (Grok CLI keeps them too)
    if kind in grok.RECORD_TYPES:
        return grok.record(obj)
    if kind == "metadata":
        return kimi.op(obj)
    if cline.is_ui_record(obj):
        return cline.CLINE, NOTHING  # a Cline task's ui_messages.json
    return None


#: Records without a string `type`: each format's test and decoder, in the order tried.
UNTYPED: tuple[tuple[Callable[[dict[str, Any]], bool], Decoder], ...] = (
    (lambda obj: obj.get("object") == "response", codex.responses),
    (lambda obj: "event" in obj, antigravity.event),
    (lambda obj: "action" in obj or "observation" in obj, openhands.event),
    (
        lambda obj: "projectHash" in obj or any(k in obj for k in gemini.CONTROL_KEYS),
        gemini.recording,
    ),
    (opencode.is_message, opencode.record),
    (lambda obj: continuedev.is_session(obj) or continuedev.is_item(obj), continuedev.record),
    (goose.is_header, goose.record),
    (
        lambda obj: vscode_chat.is_session(obj) or vscode_chat.is_journal_entry(obj),
        vscode_chat.record,
    ),
    (chatreplay.is_export, chatreplay.record),
    (cline.is_task_metadata, cline.record),  # read as nothing
)


def _untyped(obj: dict[str, Any]) -> Decoded | None:
    return next((decode(obj) for is_format, decode in UNTYPED if is_format(obj)), None)
