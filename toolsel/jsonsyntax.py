"""Why a text is not JSON, in JSON's words and at JSON's position.

The registry parser reads JSON with YAML's scanner (for positions), whose errors speak of
YAML ("did not find expected <document start>") and land where YAML gave up, which may be
many lines after the first thing JSON forbids (a trailing comma, a raw newline in a string).
`json_syntax_error` asks Python's JSON parser instead and words its complaint for a person."""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class JsonSyntax:
    """The first thing that makes a text invalid JSON; line and column are 1-based."""

    problem: str  # "expected ',' or '}'"
    line: int
    column: int

    @property
    def message(self) -> str:
        return f"invalid JSON: {self.problem}"  # the caller says where: FILE:LINE:COLUMN


def json_syntax_error(text: str) -> JsonSyntax | None:
    """The first syntax error of `text` as JSON; None when it is JSON, or when only the
    size of what it holds stops Python's parser (nesting, a number of thousands of digits),
    which is not a syntax error."""
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        return _worded(error, text)
    except (RecursionError, ValueError):
        return None
    return None


def looks_like_json(text: str) -> bool:
    """Text that starts as a JSON object or array does (YAML documents seldom do)."""
    return text.lstrip("\ufeff \t\r\n")[:1] in ("{", "[")


def _worded(error: json.JSONDecodeError, text: str) -> JsonSyntax:
    pos, msg = error.pos, error.msg
    at_end = not text[pos:].strip()
    before = _previous_token(text, pos)
    if msg == "Expecting ',' delimiter":
        words = f"expected ',' or '{_closer(text, pos)}'"
    elif msg == "Expecting ':' delimiter":
        words = "expected ':' after the property name"
    elif msg.startswith("Expecting property name") or msg == "Expecting value":
        if before is not None and text[before] == "," and text[pos : pos + 1] in ("}", "]"):
            return _at(text, before, f"trailing comma before '{text[pos]}' (JSON allows none)")
        words = "expected a property name in double quotes" if "property" in msg else ""
        words = words or "expected a value"
        if not at_end:
            words += f", found {text[pos]!r}"
    elif msg == "Extra data":
        words = "unexpected text after the JSON value"
    elif msg.startswith("Unterminated string"):
        words = "unterminated string"
    elif msg.startswith("Invalid control character"):
        words = "a control character (a raw newline or tab) inside a string; write \\n or \\t"
    elif msg.startswith("Invalid \\"):
        words = "invalid escape in a string"
    else:
        words = msg[:1].lower() + msg[1:]
    if at_end and not words.startswith("unterminated"):
        words = f"unexpected end of file: {words}"
    return _at(text, pos, words)


def _at(text: str, pos: int, words: str) -> JsonSyntax:
    line = text.count("\n", 0, pos) + 1
    return JsonSyntax(words, line, pos - (text.rfind("\n", 0, pos) + 1) + 1)


def _previous_token(text: str, pos: int) -> int | None:
    index = len(text[:pos].rstrip(" \t\r\n")) - 1
    return index if index >= 0 else None


def _closer(text: str, pos: int) -> str:
    """What closes the innermost object or array open at `pos`: '}' or ']'."""
    stack: list[str] = []
    in_string = escaped = False
    for char in text[:pos]:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]" and stack:
            stack.pop()
    return stack[-1] if stack else "}"
