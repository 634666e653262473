"""Grok CLI chat histories (`chat_history.jsonl`, `chat_format_version` 1).

Records `{type, ...}`: an `assistant` record's `tool_calls` (`id`, `name`, `arguments` as a
JSON string) are calls, each answered by a `tool_result` record naming its
`tool_call_id`; a `backend_tool_call` is a server-side tool (web search) whose call and
outcome are one record, described under `kind`.
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import NOTHING, Call, Decoded, Event
from toolsel.replay.formats.shared import arguments_call, human, name_of, outcome, text_id
from toolsel.replay.sizes import content_size

GROK = "grok-cli"
RECORD_TYPES = frozenset(
    {"system", "user", "assistant", "reasoning", "tool_result", "backend_tool_call"}
)


def record(obj: Any) -> Decoded | None:
    """A chat history record (`--input-format grok-cli`)."""
    if type(obj) is not dict or "message" in obj:
        return None
    kind = obj.get("type")
    if kind == "assistant":
        calls = obj.get("tool_calls")
        return GROK, [
            arguments_call(
                text_id(call.get("id")), name_of(call.get("name")), call.get("arguments")
            )
            for call in (calls if type(calls) is list else ())
            if type(call) is dict
        ]
    if kind == "tool_result":
        call_id, content = text_id(obj.get("tool_call_id")), obj.get("content")
        return GROK, [outcome(call_id, obj.get("is_error") is True, content, content_size(content))]
    if kind == "backend_tool_call":
        return GROK, _backend(obj.get("kind"))
    if kind == "user":
        if "synthetic_reason" in obj:
            return GROK, NOTHING  # context the CLI injected
        return GROK, human(obj.get("content"))
    if kind == "system":
        return GROK, NOTHING
    return None


def _backend(kind: Any) -> list[Event]:
    if type(kind) is not dict:
        return []
    call_id = text_id(kind.get("id"))
    events: list[Event] = [Call(call_id, name_of(kind.get("tool_type")), kind.get("action", {}))]
    status = kind.get("status")
    if status in ("completed", "failed"):
        events.append(outcome(call_id, status == "failed", kind))
    return events
