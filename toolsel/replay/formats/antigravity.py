"""Antigravity CLI (`agy --output-format stream-json`): `{event: init | step_update |
result | command_result}` lines.

A tool step has no call id: it is the step (`step_index`, within its `conversation_id`).
Its `step_update` is logged while `ACTIVE` and again when `DONE` or `ERROR`: one action,
whose last update is its result (`ERROR`, or a `tool_info.error`, is a failure).
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import NOTHING, Call, Decoded, Event, Session
from toolsel.replay.formats.shared import outcome

ANTIGRAVITY = "antigravity"
EVENTS = frozenset({"init", "step_update", "result", "command_result", "error"})
#: Step states with an outcome, and whether it is a failure.
FINAL = {"DONE": False, "ERROR": True}


def event(obj: Any) -> Decoded | None:
    """An agy stream event (`--input-format antigravity`)."""
    if type(obj) is not dict:
        return None
    kind = obj.get("event")
    if type(kind) is not str or kind not in EVENTS:
        return None
    if kind == "step_update":
        update = obj.get("step_update")
        return ANTIGRAVITY, _step(update) if type(update) is dict else NOTHING
    if kind == "init" and type(obj.get("conversation_id")) is str:
        return ANTIGRAVITY, [Session(obj["conversation_id"])]
    return ANTIGRAVITY, NOTHING


def _step(update: dict[str, Any]) -> list[Event]:
    name = update.get("tool_name")
    index = update.get("step_index")
    if type(name) is not str or not name or type(index) is not int:
        return []  # a user input, an agent response, a system message: not a tool
    conversation = update.get("conversation_id")
    step = f"step-{index}"
    call_id = f"{conversation}/{step}" if type(conversation) is str and conversation else step
    info = update.get("tool_info")
    info = info if type(info) is dict else {}
    arguments = info.get("parameters")
    call = Call(call_id, name, arguments if arguments is not None else {}, implicit=True)
    events: list[Event] = [call]
    state = update.get("state")
    if type(state) is str and state in FINAL:
        failed = FINAL[state] or bool(info.get("error"))
        events.append(outcome(call_id, failed, info.get("error") or update, implicit=True))
    return events
