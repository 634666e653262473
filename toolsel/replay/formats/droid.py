"""Factory Droid `droid exec --output-format stream-json`: `system` (init), `message`,
`tool_call` (`id`, `toolName`, `parameters`), `tool_result` (`id`, `isError`, `value`)
and `completion` events. A call and its result share the `id`.
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import NOTHING, Call, Decoded
from toolsel.replay.formats.shared import name_of, outcome, stamp_of, text_id
from toolsel.replay.sizes import content_size

DROID = "droid"


def event(obj: Any) -> Decoded | None:
    """A Droid stream-json event (`--input-format droid`)."""
    if type(obj) is not dict:
        return None
    kind = obj.get("type")
    if kind == "tool_call":
        name, message = name_of(obj.get("toolName", obj.get("toolId"))), obj.get("messageId")
        return DROID, [
            Call(text_id(obj.get("id")), name, obj.get("parameters", {}), stamp_of(message))
        ]
    if kind == "tool_result":
        failed, value = obj.get("isError") is True, obj.get("value")
        return DROID, [outcome(text_id(obj.get("id")), failed, value, content_size(value))]
    if kind == "completion":
        return DROID, NOTHING
    return None
