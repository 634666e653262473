"""What several decoders share: ids, names and times read as text, a result that keeps what
a failure said, a person's message, and calls whose arguments may be JSON-encoded."""

from __future__ import annotations

import reprlib
from typing import Any, TypeVar

from toolsel.replay.events import NOTHING, UNSET, Call, Event, Human, Result, human_text

T = TypeVar("T")


def name_of(value: Any) -> str:
    """A string as it is, any other value as "" (a tool's name the record may lack)."""
    return value if type(value) is str else ""


def stamp_of(value: Any) -> str | None:
    """A string as it is (a timestamp, a message id), any other value as None."""
    return value if type(value) is str else None


def outcome(
    call_id: str,
    failed: bool,
    said: Any,
    size: int = -1,
    *,
    parent: Any = UNSET,
    timestamp: str | None = None,
    implicit: bool = False,
) -> Result:
    """A result that keeps what it said (`said`) only when it failed."""
    return Result(
        call_id, failed, parent, timestamp, None, implicit, said if failed else None, size
    )


def human(content: Any, empty: T = NOTHING) -> list[Event] | T:  # type: ignore[assignment]
    """A person's message in `content` as the one event of a record, else `empty`."""
    text = human_text(content)
    return [Human(text)] if text is not None else empty


def text_blocks(content: Any) -> Any:
    """Gemini content (a string, or parts with `text`), read as text blocks."""
    if type(content) is list:
        return [{"type": "text", "text": part["text"]} for part in content
                if type(part) is dict and type(part.get("text")) is str]  # fmt: skip
    return content


def text_id(value: Any) -> str:
    """An id as a string ("" when the record has none): ids are compared as strings."""
    if type(value) is str:
        return value
    if value is None or type(value) is bool or isinstance(value, (dict, list)):
        return ""
    return str(value)


#: Levels of a list or object `as_text` writes out in full (Python's own repr of a value
#: nested about 1,000 deep, which a JSON line may hold, fails with a RecursionError).
SHOWN_LEVELS = 100


def as_text(value: Any) -> str:
    """A value read as text where the format wants a string (a tool's name): a string as it
    is, another value as Python writes it, cut at a few levels when nested deeper than
    SHOWN_LEVELS."""
    if type(value) is str:
        return value
    if type(value) in (list, dict) and _deeper_than(value, SHOWN_LEVELS):
        return reprlib.repr(value)
    return str(value)


def _deeper_than(value: Any, levels: int) -> bool:
    """Whether lists and objects nest more than `levels` deep in `value` (without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > levels:
            return True
        inner = item.values() if type(item) is dict else item
        stack += [(each, depth + 1) for each in inner if type(each) in (list, dict)]
    return False


def arguments_call(
    call_id: str, tool: str, raw: Any, timestamp: str | None = None, *, kind: str = ""
) -> Call:
    """A call whose arguments may be a JSON-encoded string: kept encoded, decoded on use. A
    `custom_tool_call`'s input (`kind`) is text under a grammar, kept as it is."""
    if kind == "custom_tool_call" and type(raw) is str:
        return Call(call_id, tool, raw, timestamp=timestamp, freeform=True)
    if type(raw) is str:
        return Call(call_id, tool, raw, timestamp=timestamp, encoded=True)
    return Call(call_id, tool, raw if raw is not None else {}, timestamp=timestamp)
