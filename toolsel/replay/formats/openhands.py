"""OpenHands trajectories: a JSON array of events (`save_trajectory`, the `trajs/*.json`
of its tests), or one event per line.

An action event the model asked for carries `tool_call_metadata` (`function_name`,
`tool_call_id`); the observation that answers it carries the same metadata. The metadata
also holds the whole model response, whose `tool_calls` are copies, never counted. An
observation fails when it is an `error` one or reports a non-zero exit code.
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import NOTHING, Call, Decoded
from toolsel.replay.formats.shared import human, outcome, stamp_of, text_id
from toolsel.replay.sizes import content_size

OPENHANDS = "openhands"


def event(obj: Any) -> Decoded | None:
    """An OpenHands event (`--input-format openhands`): an `action` or an `observation`."""
    if type(obj) is not dict:
        return None
    action, observation = obj.get("action"), obj.get("observation")
    if type(action) is not str and type(observation) is not str:
        return None
    stamp = stamp_of(obj.get("timestamp"))
    metadata, arguments = obj.get("tool_call_metadata"), obj.get("args")
    if type(metadata) is not dict:
        if action == "message" and obj.get("source") == "user" and type(arguments) is dict:
            return OPENHANDS, human(arguments.get("content"))
        return OPENHANDS, NOTHING
    call_id = text_id(metadata.get("tool_call_id"))
    if type(action) is str:
        name = metadata.get("function_name")
        name = name if type(name) is str else action
        inputs = arguments if arguments is not None else {}
        return OPENHANDS, [Call(call_id, name, inputs, timestamp=stamp)]
    size = content_size(obj.get("content"))
    return OPENHANDS, [outcome(call_id, _failed(obj), obj, size, timestamp=stamp)]


def _failed(obj: dict[str, Any]) -> bool:
    if obj.get("observation") == "error":
        return True
    extras = obj.get("extras")
    if type(extras) is not dict:
        return False
    metadata = extras.get("metadata")
    codes = (extras.get("exit_code"), metadata.get("exit_code") if type(metadata) is dict else None)
    return any(type(code) is int and code != 0 for code in codes)
