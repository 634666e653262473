"""Whole JSON documents (`.json`, `.traj`, a JSON array of messages): their records, each
with the line it starts on."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from toolsel.replay.lines import Reading

#: Keys under which a whole JSON document keeps its messages (SWE-agent .traj, chat logs,
#: tau-bench runs, the Claude Code web export's `loglines`).
DOCUMENT_LISTS = ("history", "messages", "traj", "loglines")  # and a response's `output`


def whole_document(data: bytes, reading: Reading) -> list[tuple[int, Any]] | None:
    """The records of a whole JSON document, each with the line it starts on: the elements
    of an array, of the list a known key holds (`messages`, `history`, ..., a response
    object's `output`), or the document itself. None when it is not one JSON value."""
    body = data.removeprefix(b"\xef\xbb\xbf")
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    key: str | None = None
    if isinstance(document, list):
        elements = document
    elif isinstance(document, dict):
        steps = document.get("trajectory")
        if isinstance(steps, list):
            reading.text_actions = sum(
                1
                for step in steps
                if isinstance(step, dict) and isinstance(step.get("action"), str)
            )
        key = next((k for k in DOCUMENT_LISTS if isinstance(document.get(k), list)), None)
        if key == "history" and _whole_session(document):
            key = None
        if key is None and document.get("object") == "response":
            key = "output" if isinstance(document.get("output"), list) else None
        elements = list(document[key]) if key is not None else [document]
    else:
        return None
    reading.lines = body.count(b"\n") + (0 if body.endswith(b"\n") or not body else 1)
    lines = element_lines(
        body, key, len(elements), whole=not isinstance(document, list) and key is None
    )
    return list(zip(lines, elements, strict=True))


#: Text lines before a document that are looked past, at most (a banner, a command's echo).
MAX_PREAMBLE_LINES = 5


def document_after_preamble(data: bytes, reading: Reading) -> list[tuple[int, Any]] | None:
    """A whole JSON document that a few lines of text precede (`opencode export` prints
    "Exporting session: ..." before its JSON): its records, numbered as lines of the file,
    and each text line before it unreadable. None when no such document follows."""
    from toolsel.inputs import BadLine

    lines = data.splitlines(keepends=True)
    openers = (b"{", b"[")
    at = next(
        (
            n
            for n, line in enumerate(lines[: MAX_PREAMBLE_LINES + 1])
            if line.lstrip().startswith(openers)
        ),
        0,
    )
    if at == 0:
        return None
    records = whole_document(b"".join(lines[at:]), reading)
    if records is None:
        return None
    reading.lines += at
    for number, line in enumerate(lines[:at], start=1):
        if line.strip():
            reading.unreadable.append(
                BadLine(number, "not JSON: text before the JSON document that follows")
            )
        else:
            reading.blank += 1
    return [(number + at, record) for number, record in records]


def _whole_session(document: dict[str, Any]) -> bool:
    """A Continue session (`{sessionId, history: [{message}]}`): read as one record, because
    whether a call failed is said in the item of the call, not of its result."""
    history = document["history"]
    first = history[0] if history else None
    return "sessionId" in document and isinstance(first, dict) and "message" in first


def element_lines(body: bytes, key: str | None, count: int, *, whole: bool = False) -> list[int]:
    """The line each of a document's `count` records starts on: the elements of its
    top-level array, or of the array under `key` in its top-level object (`whole`: the
    document itself). A document on one line has every record on line 1; one whose records
    cannot be found again (it is not what the scan expects) has them all on its first line.
    The standard library's scanner skips each value in C, so a record is located without
    parsing the document twice in Python."""
    text = body.decode("utf-8", errors="replace")
    start = _WHITESPACE.match(text).end()  # type: ignore[union-attr]
    first = text.count("\n", 0, start) + 1
    if whole or count == 0 or "\n" not in text[start:].rstrip():
        return [first] * count
    try:
        offsets = _element_offsets(text, start, key)
    except (ValueError, IndexError, RecursionError):  # RecursionError: nested too deep
        offsets = []
    if len(offsets) != count:
        return [first] * count
    lines, line, position = [], 1, 0
    for offset in offsets:
        line += text.count("\n", position, offset)
        position = offset
        lines.append(line)
    return lines


_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _element_offsets(text: str, start: int, key: str | None) -> list[int]:
    """Where each element of the array begins (ValueError when the text is not shaped so)."""
    decoder = _decoder()
    skip = _WHITESPACE.match
    position = start
    if key is not None:  # find `"key": [` among the top-level object's members
        if text[position] != "{":
            raise ValueError("not an object")
        position = skip(text, position + 1).end()  # type: ignore[union-attr]
        while True:
            name, position = decoder.raw_decode(text, position)
            position = skip(text, position).end()  # type: ignore[union-attr]
            if text[position] != ":":
                raise ValueError("no colon")
            position = skip(text, position + 1).end()  # type: ignore[union-attr]
            if name == key and text[position] == "[":
                break
            _, position = decoder.raw_decode(text, position)
            position = skip(text, position).end()  # type: ignore[union-attr]
            if text[position] != ",":
                raise ValueError("key not found")
            position = skip(text, position + 1).end()  # type: ignore[union-attr]
    if text[position] != "[":
        raise ValueError("not an array")
    offsets: list[int] = []
    position = skip(text, position + 1).end()  # type: ignore[union-attr]
    if text[position] == "]":
        return offsets
    while True:
        offsets.append(position)
        _, position = decoder.raw_decode(text, position)
        position = skip(text, position).end()  # type: ignore[union-attr]
        if text[position] == "]":
            return offsets
        if text[position] != ",":
            raise ValueError("no comma")
        position = skip(text, position + 1).end()  # type: ignore[union-attr]


def _decoder() -> Any:
    import json

    return json.JSONDecoder()
