"""VS Code Copilot Chat replay exports (`*.chatreplay.json`, from the chat debug view's
"Export All Prompts"): `{exportedAt, totalPrompts, totalLogEntries, prompts: [{prompt, logs}]}`,
read whole.

A log entry of kind `toolCall` is one call that holds its outcome: its `id`, `tool`, `args`
(JSON-encoded) and `response` (the text parts the tool returned), so it is a call and a
result; a non-empty `error` on it is a failure. The `request` entries restate the calls to
the model (`requestMessages`) and are not read; `element` and `error` entries are prompt
parts and request failures, not calls. The extension's types: `chatReplayTypes.ts`
(`ChatReplayExport`, `ExportedLogEntry`).
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import Decoded, Event, Human
from toolsel.replay.formats.shared import arguments_call, name_of, outcome, stamp_of, text_id
from toolsel.replay.sizes import text_bytes

CHATREPLAY = "vscode-chatreplay"
TOOL_CALL = "toolCall"


def is_export(obj: dict[str, Any]) -> bool:
    """A replay export: a `prompts` list of `{prompt, logs}` beside `exportedAt`."""
    prompts = obj.get("prompts")
    if type(prompts) is not list or "exportedAt" not in obj:
        return False
    return all(type(p) is dict and type(p.get("logs")) is list for p in prompts[:3])


def record(obj: Any) -> Decoded | None:
    """`--input-format vscode-chatreplay`: a whole export."""
    if type(obj) is not dict or not is_export(obj):
        return None
    events: list[Event] = []
    for prompt in obj["prompts"]:
        if type(prompt) is not dict:
            continue  # past the three `is_export` looked at, any value
        text = prompt.get("prompt")
        if type(text) is str and text and not prompt.get("hasSeen"):
            events.append(Human(text))  # a prompt seen before continues the same request
        logs = prompt.get("logs")
        for entry in logs if type(logs) is list else ():
            if type(entry) is dict and entry.get("kind") == TOOL_CALL:
                events.extend(_tool_call(entry))
    return CHATREPLAY, events


def _tool_call(entry: dict[str, Any]) -> list[Event]:
    call_id = text_id(entry.get("id"))
    tool, timestamp = name_of(entry.get("tool")), stamp_of(entry.get("time"))
    call = arguments_call(call_id, tool, entry.get("args"), timestamp)
    error, size = entry.get("error"), _response_size(entry.get("response"))
    failed = type(error) is str and bool(error)
    return [call, outcome(call_id, failed, error, size, timestamp=timestamp)]


def _response_size(response: Any) -> int:
    """UTF-8 bytes of the text parts of a tool's `response` (-1: none recorded)."""
    if type(response) is str:
        return text_bytes(response)
    if type(response) is not list:
        return -1
    return sum(text_bytes(part) for part in response if type(part) is str)
