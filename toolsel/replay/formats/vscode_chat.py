"""VS Code Copilot Chat sessions (`workspaceStorage/<hash>/chatSessions/<id>.json`:
`{version, sessionId, requests: [{requestId, message, response: [...]}]}`), read whole.

A tool call is a `toolInvocationSerialized` part of a request's `response`, with its
`toolCallId` and `toolId`; it holds its own outcome: `isComplete` says it was answered,
`resultDetails.isError` that it failed, and `isConfirmed` false or a reason of kind Denied
(0) or Skipped (5) (VS Code's `ToolConfirmKind`) that it never ran, an error too. The
request's `result.metadata.toolCallRounds` restate the same calls for the model and are not
read. The newer append-only journal (`chatSessions/<id>.jsonl`, `{kind, k, v}` patches) is
not read.
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import Call, Decoded, Event, Human, Result, human_text
from toolsel.replay.formats.shared import arguments_call, text_id
from toolsel.replay.sizes import text_bytes

VSCODE_CHAT = "vscode-chat"
TOOL_PART = "toolInvocationSerialized"
#: `ToolConfirmKind` values with which the tool never ran: Denied, Skipped.
NOT_RUN = frozenset({0, 5})


def is_session(obj: dict[str, Any]) -> bool:
    """A chat session: a `requests` list whose requests carry a `requestId` and a
    `response` list, beside a `sessionId` or a `version`."""
    requests = obj.get("requests")
    if type(requests) is not list or ("sessionId" not in obj and "version" not in obj):
        return False
    return all(
        type(r) is dict and "requestId" in r and type(r.get("response")) is list
        for r in requests[:3]
    )


def record(obj: Any) -> Decoded | None:
    """A whole session (`--input-format vscode-chat`)."""
    if type(obj) is not dict or not is_session(obj):
        return None
    events: list[Event] = []
    for request in obj["requests"]:
        message = request.get("message")
        text = human_text(message.get("text")) if type(message) is dict else None
        if text is not None:
            events.append(Human(text))
        for part in request["response"]:
            if type(part) is dict and part.get("kind") == TOOL_PART:
                events.extend(_invocation(part))
    return VSCODE_CHAT, events


def _invocation(part: dict[str, Any]) -> list[Event]:
    call_id = text_id(part.get("toolCallId"))
    tool = part.get("toolId")
    details = part.get("resultDetails")
    raw = details.get("input") if type(details) is dict else None
    if raw is None:
        raw = part.get("toolSpecificData")
    call: Call = arguments_call(call_id, tool if type(tool) is str else "", raw)
    if part.get("isComplete") is not True:
        return [call]  # still running when the session was saved
    failed, error = _outcome(part, details)
    size = _output_size(details)
    return [call, Result(call_id, failed, error=error if failed else None, size=size)]


def _outcome(part: dict[str, Any], details: Any) -> tuple[bool, Any]:
    """Whether the tool failed or never ran, and what it said."""
    confirmed = part.get("isConfirmed")
    if confirmed is False or (type(confirmed) is dict and confirmed.get("type") in NOT_RUN):
        past = part.get("pastTenseMessage")
        return True, past if past is not None else "the tool did not run (denied or skipped)"
    if type(details) is dict and details.get("isError") is True:
        return True, details.get("output")
    return False, None


def _output_size(details: Any) -> int:
    """UTF-8 bytes of the text parts of `resultDetails.output` (-1: none recorded)."""
    output = details.get("output") if type(details) is dict else None
    if type(output) is not list:
        return -1
    return sum(
        text_bytes(part["value"])
        for part in output
        if type(part) is dict and type(part.get("value")) is str
    )
