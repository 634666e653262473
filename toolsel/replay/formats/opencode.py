"""opencode: the session export (`opencode export`: `{info, messages: [{info, parts}]}`), the
rows of its SQLite `event` table (`{type: "message.part.updated.1", data: {sessionID,
part}}`, and the bus events `{type, properties}` they store), and `opencode run --format
json` (`{type: tool_use|text|step_start|step_finish, sessionID, part}`).

A call is a `tool` part (`tool`, `callID`) whose outcome is in the same part: `state.status`
`completed` or `error` (or, in a trimmed export, `state.output` / `state.error`) is its
result. A part is written again each time its state changes (pending, running, completed):
every restatement is an echo of one call, answered once.
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import NOTHING, UNKNOWN, Call, Decoded, Event, Human, Session
from toolsel.replay.formats.shared import name_of, outcome, text_id
from toolsel.replay.sizes import content_size

OPENCODE = "opencode"
#: The `type` of a `run --format json` event (`part` beside it).
RUN_EVENTS = frozenset(
    {"tool_use", "text", "step_start", "step_finish", "reasoning", "error", "file", "patch"}
)
#: Outcomes of a tool part: whether each is a failure.
DONE = {"completed": False, "error": True}


def is_event_row(obj: dict[str, Any]) -> bool:
    """An event-table row or bus event: a dotted type whose payload names an opencode
    `sessionID` (Copilot CLI's events say `sessionId`), or carries a `part` or `info`."""
    payload = obj.get("data", obj.get("properties"))
    return type(payload) is dict and any(key in payload for key in ("sessionID", "part", "info"))


def is_run_event(obj: dict[str, Any], kind: str) -> bool:
    return kind in RUN_EVENTS and type(obj.get("part")) is dict and "sessionID" in obj


def is_message(obj: dict[str, Any]) -> bool:
    """An exported message: `{info: {role, ...}, parts: [...]}`."""
    info = obj.get("info")
    return type(info) is dict and "role" in info and type(obj.get("parts")) is list


def record(obj: Any) -> Decoded | None:
    """Any opencode record (`--input-format opencode`)."""
    if type(obj) is not dict:
        return None
    if is_message(obj):
        return OPENCODE, message(obj)
    kind = obj.get("type")
    if type(kind) is not str:
        if type(obj.get("info")) is dict and type(obj.get("messages")) is list:
            return OPENCODE, NOTHING  # an export read as one record (its messages are apart)
        return None
    if is_run_event(obj, kind):
        return OPENCODE, part(obj["part"])
    payload = obj.get("data", obj.get("properties"))
    if "." in kind and type(payload) is dict and is_event_row(obj):
        return OPENCODE, _event_row(kind, payload)
    return None


def message(obj: dict[str, Any]) -> list[Event]:
    """An exported message's tool parts; a user message's text is a person's request."""
    events: list[Event] = []
    texts: list[str] = []
    user = obj["info"].get("role") == "user"
    for item in obj["parts"]:
        if type(item) is not dict:
            continue
        if item.get("type") == "tool":
            events.extend(part(item))
        elif (
            user
            and item.get("type") == "text"
            and type(item.get("text")) is str
            and not item.get("synthetic")
        ):
            texts.append(item["text"])
    if texts and "\n".join(texts).strip():
        events.insert(0, Human("\n".join(texts).strip()))
    return events


def part(item: dict[str, Any]) -> list[Event]:
    """A part's call and, once it has one, its outcome (other parts yield nothing)."""
    if item.get("type") != "tool":
        return []
    call_id = text_id(item.get("callID"))
    name = name_of(item.get("tool"))
    state = item.get("state")
    state = state if type(state) is dict else {}
    echo = bool(call_id)  # a part restated by id; one without an id is paired by position
    events: list[Event] = [Call(call_id, name, state.get("input", {}), implicit=echo)]
    status = state.get("status")
    failed = DONE.get(status) if type(status) is str else None
    if failed is None and status is None:
        if "error" in state:
            failed = True
        elif "output" in state:
            failed = False
    if failed is not None:
        said = state["error"] if failed and "error" in state else state.get("output")
        events.append(outcome(call_id, failed, said, content_size(said), implicit=echo))
    return events


def _event_row(kind: str, payload: dict[str, Any]) -> tuple[Event, ...] | list[Event]:
    family = kind.rsplit(".", 1)[0] if kind[-1:].isdigit() else kind  # drop the version
    if family == "message.part.updated":
        item = payload.get("part")
        return part(item) if type(item) is dict else NOTHING
    if family == "session.created":
        session = payload.get("sessionID")
        return [Session(session)] if type(session) is str else NOTHING
    if family.startswith(("session.", "message.", "file.", "permission.", "todo.")):
        return NOTHING
    return UNKNOWN
