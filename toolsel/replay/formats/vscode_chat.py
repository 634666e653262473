"""VS Code Copilot Chat sessions (`workspaceStorage/<hash>/chatSessions/<id>.json`:
`{version, sessionId, requests: [{requestId, message, response: [...]}]}`), and the files
"Chat: Export Chat..." writes (the same `requests`, without `version` or `sessionId`), read
whole.

A tool call is a `toolInvocationSerialized` part of a request's `response`, with its
`toolCallId` and `toolId`; it holds its own outcome: `isComplete` says it was answered,
`resultDetails.isError` that it failed, and `isConfirmed` false or a reason of kind Denied
(0) or Skipped (5) (VS Code's `ToolConfirmKind`) that it never ran, an error too. The
request's `result.metadata.toolCallRounds` restate the same calls for the model and are not
read.

Newer VS Code keeps the session as an append-only journal (`chatSessions/<id>.jsonl`): the
session (`{kind: 0, v}`), then patches that set (`kind: 1`) or append to (`kind: 2`) the value
at a key path `k` (`["requests"]`, `["requests", 2, "response"]`, ...). A tool part is
written again as it runs and completes, so each one read from a patch is an echo
(`implicit`): counted once, answered once it is complete.
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import Call, Decoded, Event
from toolsel.replay.formats.shared import arguments_call, human, name_of, outcome, text_id
from toolsel.replay.sizes import text_bytes

VSCODE_CHAT = "vscode-chat"
TOOL_PART = "toolInvocationSerialized"
#: `ToolConfirmKind` values with which the tool never ran: Denied, Skipped.
NOT_RUN = frozenset({0, 5})


#: Keys beside `requests` that only a chat session has: a stored session has a `sessionId`
#: and a `version`; one saved with "Chat: Export Chat..." has neither, only who asked and
#: answered and where the chat was opened.
SESSION_KEYS = ("sessionId", "version", "responderUsername", "requesterUsername", "initialLocation")


def is_session(obj: dict[str, Any]) -> bool:
    """A chat session: a `requests` list whose requests carry a `requestId` and a
    `response` list, beside one of the `SESSION_KEYS`."""
    requests = obj.get("requests")
    if type(requests) is not list or not any(key in obj for key in SESSION_KEYS):
        return False
    return all(
        type(r) is dict and "requestId" in r and type(r.get("response")) is list
        for r in requests[:3]
    )


#: The journal's entry kinds: the initial session, a value set, values appended, a deletion.
JOURNAL_KINDS = frozenset({0, 1, 2, 3})


def is_journal_entry(obj: dict[str, Any]) -> bool:
    """A line of a session journal: `{kind: 0, v: session}`, or `{kind, k: [key, ...], v}`."""
    kind = obj.get("kind")
    if type(kind) is not int or kind not in JOURNAL_KINDS or ("v" not in obj and kind != 3):
        return False
    if kind == 0:
        value = obj.get("v")
        return type(value) is dict and is_session(value)
    path = obj.get("k")
    return type(path) is list and bool(path) and type(path[0]) is str


def record(obj: Any) -> Decoded | None:
    """A whole session, or a line of a session journal (`--input-format vscode-chat`)."""
    if type(obj) is not dict:
        return None
    if is_session(obj):
        return VSCODE_CHAT, _session(obj, echo=False)
    if is_journal_entry(obj):
        return VSCODE_CHAT, _journal_entry(obj)
    return None


def _session(session: dict[str, Any], *, echo: bool) -> list[Event]:
    events: list[Event] = []
    for request in session["requests"]:
        if type(request) is dict:  # past the three `is_session` looked at, any value
            _request(events, request, echo)
    return events


def _request(events: list[Event], request: dict[str, Any], echo: bool) -> None:
    message = request.get("message")
    if type(message) is dict:
        events.extend(human(message.get("text")))
    response = request.get("response")
    for part in response if type(response) is list else ():
        if type(part) is dict and part.get("kind") == TOOL_PART:
            events.extend(_invocation(part, echo))


def _journal_entry(obj: dict[str, Any]) -> list[Event]:
    """The tool parts a journal line writes: in the session it starts with, in requests it
    appends or sets, or in parts it appends to or sets in a response."""
    value = obj.get("v")
    if obj["kind"] == 0:
        return _session(obj["v"], echo=True)  # a session: `is_journal_entry` checked it
    if obj["k"][0] != "requests":
        return []  # the title, the input box, ...
    events: list[Event] = []
    for item in value if type(value) is list else (value,):
        if type(item) is not dict:
            continue
        if item.get("kind") == TOOL_PART:
            events.extend(_invocation(item, True))
        elif "requestId" in item:
            _request(events, item, True)
    return events


def _invocation(part: dict[str, Any], echo: bool) -> list[Event]:
    call_id = text_id(part.get("toolCallId"))
    tool = part.get("toolId")
    details = part.get("resultDetails")
    raw = details.get("input") if type(details) is dict else None
    if raw is None:
        raw = part.get("toolSpecificData")
    call: Call = arguments_call(call_id, name_of(tool), raw)
    call.implicit = echo
    if part.get("isComplete") is not True:
        return [call]  # still running when the session was saved
    failed, error = _outcome(part, details)
    return [call, outcome(call_id, failed, error, _output_size(details), implicit=echo)]


def _outcome(part: dict[str, Any], details: Any) -> tuple[bool, Any]:
    """Whether the tool failed or never ran, and what it said."""
    confirmed = part.get("isConfirmed")
    how = confirmed.get("type") if type(confirmed) is dict else None
    if confirmed is False or (type(how) is int and how in NOT_RUN):
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
