"""Amp threads (`~/.local/share/amp/threads/T-<id>.json`: `{v, id, created, title, env,
messages: [{role, messageId, content, state, meta}]}`), read message by message.

Content blocks are Anthropic's, but a result is Amp's own: `{type: tool_result, toolUseID,
run: {status, result | progress | error}}`. A run whose status is `done` answered its call;
`error`, `cancelled` and `rejected-by-user` answered it with an error; any other status
(`queued`, `in-progress`, `blocked-on-user`) is still open. (`amp --stream-json` writes
Claude's stream-json instead: read as `stream-json`.)

Told from Anthropic messages by Amp's keys: a `messageId` beside the role, or a result
block with `toolUseID`.
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import UNSET, Decoded, Event, Result
from toolsel.replay.formats.claude import add_blocks
from toolsel.replay.formats.shared import human, text_id
from toolsel.replay.sizes import content_size

AMP = "amp"
ANSWERED = frozenset({"done"})
FAILED = frozenset({"error", "cancelled", "rejected-by-user"})


def record(obj: Any) -> Decoded | None:
    """`--input-format amp`: any message with a role."""
    if type(obj) is not dict or "role" not in obj:
        return None
    return AMP, message_events(obj)


def is_message(obj: dict[str, Any]) -> bool:
    content = obj.get("content")
    if type(content) is not list:
        return False
    if type(obj.get("messageId")) is int:
        return True
    for block in content:  # noqa: SIM110 - a loop: a generator costs twice as much here
        if type(block) is dict and "toolUseID" in block:
            return True
    return False


def message_events(obj: dict[str, Any]) -> list[Event]:
    """A message's calls (`tool_use` blocks), results (`tool_result` blocks with a final
    run status) and, from a person, the request."""
    content = obj.get("content")
    if type(content) is not list:
        return []
    events: list[Event] = []
    if obj.get("role") == "user" and not any(_is_result(b) for b in content):
        events = human([b for b in content if type(b) is dict and b.get("type") == "text"], events)
    calls = [b for b in content if type(b) is dict and b.get("type") == "tool_use"]
    if calls:
        add_blocks(events, calls, None, UNSET, None, False, None)
    for block in content:
        if _is_result(block):
            result = _result(block)
            if result is not None:
                events.append(result)
    return events


def _is_result(block: Any) -> bool:
    return type(block) is dict and block.get("type") == "tool_result"


def _result(block: dict[str, Any]) -> Result | None:
    call_id = text_id(block.get("toolUseID", block.get("tool_use_id")))
    run = block.get("run")
    if type(run) is not dict:  # an Anthropic-shaped result inside an Amp thread
        flag = block.get("is_error")
        return Result(call_id, flag is True, size=content_size(block.get("content")))
    status = run.get("status")
    if type(status) is not str:
        return None
    if status in ANSWERED:
        said = run.get("result", run.get("progress"))
        return Result(call_id, False, size=content_size(said))
    if status in FAILED:
        said = run.get("error") or run.get("result") or status
        return Result(call_id, True, error=said, size=content_size(run.get("result")))
    return None
