"""Chat-style message lists: the Anthropic Messages API (`tool_use`/`tool_result` content
blocks) and OpenAI Chat Completions (`tool_calls` on assistant messages, `role: tool`
results; the older `function_call` and `role: function`, which carry no id), one message
per line or as one JSON document (SWE-agent and tau-bench logs).
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import NOTHING, UNSET, Decoded, Event, Result
from toolsel.replay.formats.claude import add_blocks
from toolsel.replay.formats.shared import arguments_call, as_text, human, name_of
from toolsel.replay.sizes import content_size

ANTHROPIC = "anthropic"
OPENAI_CHAT = "openai-chat"


def anthropic(obj: Any) -> Decoded | None:
    """`--input-format anthropic`: any message with a role."""
    return _forced(obj, ANTHROPIC)


def openai_chat(obj: Any) -> Decoded | None:
    """`--input-format openai-chat`: any message with a role."""
    return _forced(obj, OPENAI_CHAT)


def _forced(obj: Any, name: str) -> Decoded | None:
    if type(obj) is not dict or "role" not in obj:
        return None
    return name, message(obj)[1]


def message(obj: dict[str, Any]) -> Decoded:
    """A message of either API, told apart by its tool-calling keys."""
    role = obj.get("role")
    if (
        type(obj.get("tool_calls")) is list
        or role == "tool"
        or role == "function"
        or type(obj.get("function_call")) is dict
    ):
        return OPENAI_CHAT, _openai_events(obj, role)
    content = obj.get("content")
    if type(content) is list and any(
        type(b) is dict
        and type(kind := b.get("type")) is str
        and kind.endswith(("tool_use", "tool_result"))
        for b in content
    ):
        events: list[Event] = []
        add_blocks(events, content, obj.get("id"), UNSET, None, False, None)
        return ANTHROPIC, events
    name = OPENAI_CHAT if type(content) is str or content is None else ANTHROPIC
    return name, human(content) if role == "user" else NOTHING


def _openai_events(obj: dict[str, Any], role: Any) -> list[Event]:
    events: list[Event] = []
    calls = obj.get("tool_calls")
    if type(calls) is list:
        for call in calls:
            if type(call) is dict:
                function = call.get("function")
                function = function if type(function) is dict else {}
                call_id = name_of(call.get("id"))  # none: answered by position
                name = as_text(function.get("name", ""))
                events.append(arguments_call(call_id, name, function.get("arguments")))
    legacy = obj.get("function_call")  # the older function calling: one call, no id
    if type(legacy) is dict:
        events.append(arguments_call("", as_text(legacy.get("name", "")), legacy.get("arguments")))
    if role == "tool":
        listed = obj.get("tool_call_ids")
        # one message answering several calls: whose part of its text is whose is not said
        shared = type(listed) is list and len(listed) != 1
        size = -1 if shared else content_size(obj.get("content"))
        for answered in listed if type(listed) is list else (obj.get("tool_call_id"),):
            events.append(Result(name_of(answered), False, size=size))
    elif role == "function":
        # answers the function_call before it
        events.append(Result("", False, size=content_size(obj.get("content"))))
    return events
