"""Why calls failed: a failing result's first line, made safe to keep and to show
(`error_message`), and the form `stats` counts it under (`normalise`), so that "File does
not exist: a.py" and "File does not exist: b.py" are one message.

Only error results are read here (a few in a hundred), so that replaying stays as fast as
it was: a decoder hands the matcher the result's content as the format holds it, and the
matcher asks for its message only when the result is an error."""

from __future__ import annotations

import functools
import re
from typing import Any

import msgspec
from msgspec import Raw

#: The longest message kept (characters, after secrets are masked).
MAX_CHARS = 200
#: How much of a first line is read at all (a minified blob is one very long line).
READ_CHARS = 4000
#: Keys of an object result that hold what it said, most telling first (`error_code`: all
#: that an Anthropic server tool's error object says; `outputs` and their `logs`: a
#: Responses `code_interpreter_call`'s; `errorMessage`, `rejected`, `failure` and a
#: `success` with a non-zero exit code: Cursor's outcomes; `functionResponse` and its
#: `response`: Gemini's recorded parts).
TEXT_KEYS = (
    "error", "message", "errorMessage", "stderr", "aggregated_output", "text", "content",
    "output", "result", "value", "Err", "error_code", "outputs", "logs", "rejected",
    "failure", "success", "functionResponse", "response",
)  # fmt: skip
#: How deep in a result's content its message is looked for (Gemini's recorded result: a
#: list of parts, a part's `functionResponse`, its `response`, its `error`).
DEPTH = 5

#: Terminal escape sequences: CSI (colours, cursor moves), OSC (titles, links) and the
#: two-character ones.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: A wrapper some clients put round the message: Claude Code's `<tool_use_error>`.
_WRAPPER = re.compile(r"^<([a-z_]+)>(.*?)(?:</\1>)?$")


def error_message(content: Any) -> str:
    """The first non-blank line of what a failing result said, with terminal escapes and
    control characters removed, every secret masked (the one redaction path), at most
    MAX_CHARS characters; "" when it said nothing readable."""
    text = _text(content, DEPTH)
    if not text:
        return ""
    return _safe_line(next((ln for ln in text[:READ_CHARS].splitlines() if ln.strip()), ""))


@functools.lru_cache(maxsize=4096)
def _safe_line(line: str) -> str:
    """A first line made safe to keep (see `error_message`); remembered, since the same
    failure is said again and again ("File does not exist", a denied permission)."""
    line = _CONTROLS.sub("", _ESCAPES.sub("", line)).strip()
    wrapped = _WRAPPER.match(line)
    if wrapped:
        line = wrapped.group(2).strip()
    if not line:
        return ""
    from toolsel.redact import mask_text

    line = mask_text(line)
    return line if len(line) <= MAX_CHARS else line[: MAX_CHARS - 1].rstrip() + "…"


def _text(content: Any, depth: int) -> str:
    """The text in a result's content: a string, the first text among blocks, or the
    first of an object's TEXT_KEYS that holds some (raw JSON is decoded first)."""
    if type(content) is str:
        return content
    if type(content) is Raw:
        try:
            content = msgspec.json.decode(content)
        except msgspec.DecodeError:
            return ""
        if type(content) is str:
            return content
    if depth == 0:
        return ""
    if type(content) is list:
        for item in content:
            text = _text(item, depth - 1)
            if text.strip():
                return text
        return ""
    if type(content) is dict:
        for key in TEXT_KEYS:
            if key in content:
                text = _text(content[key], depth - 1)
                if text.strip():
                    return text
    return ""


_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_PATH = re.compile(
    r"(?:[A-Za-z]:)?[~.]{0,2}[\w.@+-]*(?:[/\\][\w.@+-]+)+[/\\]?"  # with a separator
    r"|\b[\w-]+\.[A-Za-z][A-Za-z0-9]{0,5}\b"  # a file name: name.ext
)
_ID = re.compile(
    r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"
    r"|\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)*")


#: The message counted for a failing result that said nothing readable.
NO_MESSAGE = "(no error text)"


@functools.lru_cache(maxsize=4096)
def message_key(message: str) -> str:
    """What `stats` counts a failing call's message under: `normalise`d, or NO_MESSAGE."""
    return normalise(message) if message else NO_MESSAGE


def normalise(message: str) -> str:
    """The message with what differs from one call to the next replaced: URLs by
    `<url>`, paths and file names by `<path>`, ids (UUIDs, hex) by `<id>`, numbers by
    `<n>`."""
    message = _URL.sub("<url>", message)
    message = _PATH.sub("<path>", message)
    message = _ID.sub("<id>", message)
    return _NUMBER.sub("<n>", message)
