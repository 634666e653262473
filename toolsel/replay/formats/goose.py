"""Goose sessions: the JSONL files of Goose before its SQLite store
(`~/.local/share/goose/sessions/*.jsonl`: a metadata header line, then `{role, created,
content[]}` messages), and rows of the SQLite `messages` table dumped one per line
(`{role, content_json, created_timestamp}`, the content a JSON-encoded string).

A call is a `toolRequest` block (`id`, `toolCall.value {name, arguments}`), its result a
`toolResponse` block with the same `id` (`toolResult.status` `error`, or an `isError`
value, is a failure). A `toolCall.status` of `error` means the request itself did not
parse; it is read as a call like any other, and fails through the `toolResponse` that
answers it (a provider takes no turn with a call left unanswered), so it is never counted
twice.
"""

from __future__ import annotations

from typing import Any

import orjson

from toolsel.replay.events import NOTHING, Call, Decoded, Event
from toolsel.replay.formats.shared import human, name_of, outcome, text_id
from toolsel.replay.sizes import content_size

GOOSE = "goose"
BLOCKS = frozenset({"toolRequest", "toolResponse"})
#: The keys of the header line that opens a JSONL session.
HEADER_KEYS = ("working_dir", "message_count")


def is_header(obj: dict[str, Any]) -> bool:
    return all(key in obj for key in HEADER_KEYS) and "role" not in obj


def is_message(obj: dict[str, Any]) -> bool:
    """A Goose message: its content as a string of JSON (`content_json`, a table row), or
    blocks beside a `created` time (Anthropic and OpenAI messages carry no `created`)."""
    if type(obj.get("content_json")) is str:
        return True
    content = obj.get("content")
    return "created" in obj and type(content) is list and _has_goose_blocks(content)


def _has_goose_blocks(content: list[Any]) -> bool:
    return any(
        type(b) is dict and type(b.get("type")) is str and b["type"] in BLOCKS for b in content
    )


def record(obj: Any) -> Decoded | None:
    """A header, message or table row (`--input-format goose`)."""
    if type(obj) is not dict:
        return None
    if is_header(obj):
        return GOOSE, NOTHING
    if "role" not in obj:
        return None
    return GOOSE, message(obj)


def message(obj: dict[str, Any]) -> tuple[Event, ...] | list[Event]:
    """A message's calls and results (its content decoded first when it is a string)."""
    content = obj.get("content")
    encoded = obj.get("content_json")
    if type(encoded) is str:
        try:
            content = orjson.loads(encoded)
        except orjson.JSONDecodeError:
            return NOTHING
    if type(content) is not list:
        return NOTHING
    return _events(content, obj.get("role"))


def _events(content: list[Any], role: Any) -> list[Event]:
    events: list[Event] = []
    for block in content:
        if type(block) is not dict:
            continue
        kind = block.get("type")
        if kind == "toolRequest":
            events.extend(_request(block))
        elif kind == "toolResponse":
            result = block.get("toolResult")
            failed = type(result) is dict and (
                result.get("status") == "error" or result.get("isError") is True
            )
            events.append(outcome(text_id(block.get("id")), failed, result, _size(result)))
    if not events and role == "user":
        return human([b for b in content if type(b) is dict and b.get("type") == "text"], events)
    return events


def _size(result: Any) -> int:
    """The bytes of a `toolResult`'s text: its `value`'s blocks (a list, or an MCP
    result's `content`) meant for the model, or its `error`. A block annotated for the
    user alone (`audience` without `assistant`) is left out, as goose leaves it out of the
    request."""
    if type(result) is not dict:
        return 0
    if "value" not in result:
        return content_size(result.get("error"))
    value = result["value"]
    blocks = value.get("content") if type(value) is dict else value
    if type(blocks) is not list:
        return content_size(value)
    return sum(content_size(block, 1) for block in blocks if _for_model(block))


def _for_model(block: Any) -> bool:
    annotations = block.get("annotations") if type(block) is dict else None
    audience = annotations.get("audience") if type(annotations) is dict else None
    return type(audience) is not list or "assistant" in audience


def _request(block: dict[str, Any]) -> list[Event]:
    call_id = text_id(block.get("id"))
    request = block.get("toolCall")
    request = request if type(request) is dict else {}
    value = request.get("value")
    value = value if type(value) is dict else {}
    return [Call(call_id, name_of(value.get("name")), value.get("arguments", {}))]
