"""Gemini CLI: chat recordings (`~/.gemini/tmp/<project>/chats/session-*.json`, and the
append-only `.jsonl` recording of newer versions) and `gemini -p --output-format
stream-json`.

A recording's `gemini` messages carry their calls in `toolCalls[]`, each with its outcome
inside (`result`, `status` success / error / cancelled): a call and a result. The `.jsonl`
recording appends a message again, with the same id, each time it changes (a call first
`executing`, then with its result), and updates the header with `{"$set": ...}` lines:
every restatement is an echo, so a call counts once and is answered once. Stream-json
`tool_use` / `tool_result` events pair by `tool_id`.
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import NOTHING, UNKNOWN, Call, Decoded, Event, Session
from toolsel.replay.formats.shared import human, name_of, outcome, stamp_of, text_blocks, text_id
from toolsel.replay.sizes import content_size, response_size

RECORDING = "gemini-cli"
STREAM = "gemini-stream-json"
#: Message types of a recording (`ConversationRecordExtra`); `gemini` holds the calls.
MESSAGE_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})
#: Statuses with which a recorded call has its outcome; the first two are failures.
DONE = {"error": True, "cancelled": True, "success": False}
#: Control lines of a `.jsonl` recording: metadata updates, rewinds, patches.
CONTROL_KEYS = ("$set", "$rewindTo", "$patch")


def recording(obj: Any) -> Decoded | None:
    """A recording's message, header or control line (`--input-format gemini-cli`)."""
    if type(obj) is not dict:
        return None
    kind = obj.get("type")
    if kind == "gemini":
        return RECORDING, _calls(obj)
    if type(kind) is str and kind in MESSAGE_TYPES:
        if kind == "user":
            return RECORDING, human(text_blocks(obj.get("content")))
        return RECORDING, NOTHING
    if "$set" in obj:
        update = obj["$set"]
        messages = update.get("messages") if type(update) is dict else None
        if type(messages) is not list:
            return RECORDING, NOTHING
        # a history replaced whole: its calls are restated
        calls = [m for m in messages if type(m) is dict and m.get("type") == "gemini"]
        return RECORDING, [event for message in calls for event in _calls(message)]
    if "$rewindTo" in obj or "$patch" in obj:
        return RECORDING, NOTHING
    if type(obj.get("sessionId")) is str and "projectHash" in obj:
        return RECORDING, [Session(obj["sessionId"])]
    if type(kind) is str:
        return RECORDING, UNKNOWN
    return None


def _calls(message: dict[str, Any]) -> list[Event]:
    calls = message.get("toolCalls")
    events: list[Event] = []
    for call in calls if type(calls) is list else ():
        if type(call) is not dict:
            continue
        call_id, stamp = text_id(call.get("id")), stamp_of(call.get("timestamp"))
        name = name_of(call.get("name"))
        events.append(Call(call_id, name, call.get("args", {}), timestamp=stamp, implicit=True))
        status = call.get("status")
        failed = DONE.get(status) if type(status) is str else None
        said = call.get("result")
        if failed is not None or said is not None:
            failed, size = bool(failed), parts_size(said)
            events.append(
                outcome(call_id, failed, said or call, size, timestamp=stamp, implicit=True)
            )
    return events


def parts_size(parts: Any) -> int:
    """The bytes of a recorded result's Gemini parts: each `functionResponse`'s output (or
    error), each text part's text; a bare string is its text."""
    if type(parts) is not list:
        return content_size(parts)
    size = 0
    for part in parts:
        response = part.get("functionResponse") if type(part) is dict else None
        if type(response) is dict:
            size += response_size(response.get("response"))
        else:
            size += content_size(part, 1)
    return size


def stream_event(obj: Any) -> Decoded | None:
    """A `gemini -p --output-format stream-json` event (`--input-format
    gemini-stream-json`): `init`, `message`, `tool_use`, `tool_result`, `error`, `result`."""
    if type(obj) is not dict:
        return None
    kind = obj.get("type")
    stamp, call_id = stamp_of(obj.get("timestamp")), text_id(obj.get("tool_id"))
    if kind == "tool_use":
        name = name_of(obj.get("tool_name"))
        return STREAM, [Call(call_id, name, obj.get("parameters", {}), timestamp=stamp)]
    if kind == "tool_result":
        failed = obj.get("status") == "error" or bool(obj.get("error"))
        return STREAM, [outcome(call_id, failed, obj, _stream_size(obj), timestamp=stamp)]
    if kind == "init":
        session = obj.get("session_id")
        return STREAM, [Session(session)] if type(session) is str else NOTHING
    if kind == "message":
        return STREAM, human(obj.get("content")) if obj.get("role") == "user" else NOTHING
    if kind == "result" or kind == "error":
        return STREAM, NOTHING
    return None


def _stream_size(result: dict[str, Any]) -> int:
    """A stream `tool_result`'s `output`, else its error's `message`."""
    error = result.get("error")
    if "output" not in result and type(error) is dict:
        return content_size(error.get("message"))
    return content_size(result.get("output"))
