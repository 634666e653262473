"""Factory Droid `droid exec --output-format stream-json`: `system` (init), `message`,
`tool_call` (`id`, `toolName`, `parameters`), `tool_result` (`id`, `isError`, `value`)
and `completion` events. A call and its result share the `id`.
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import NOTHING, Call, Decoded, Result
from toolsel.replay.formats.shared import text_id
from toolsel.replay.sizes import content_size

DROID = "droid"


def event(obj: Any) -> Decoded | None:
    """A Droid stream-json event (`--input-format droid`)."""
    if type(obj) is not dict:
        return None
    kind = obj.get("type")
    if kind == "tool_call":
        name = obj.get("toolName", obj.get("toolId"))
        return DROID, [
            Call(
                text_id(obj.get("id")),
                name if type(name) is str else "",
                obj.get("parameters", {}),
                message_id=_message(obj),
            )
        ]
    if kind == "tool_result":
        failed = obj.get("isError") is True
        return DROID, [
            Result(
                text_id(obj.get("id")),
                failed,
                error=obj.get("value") if failed else None,
                size=content_size(obj.get("value")),
            )
        ]
    if kind == "completion":
        return DROID, NOTHING
    return None


def _message(obj: dict[str, Any]) -> str | None:
    message = obj.get("messageId")
    return message if type(message) is str else None
