"""What a recorded call works on: the paths, globs and short values of its arguments, so
that two calls can be seen to work on the same thing (`toolsel.misroutes`).

A short one-line string argument (a path, a pattern, a query, an id) is a target as it
stands; inside any one-line argument (a shell command, a sub-agent's prompt), each word
that looks like a path (`src/app.py`, `C:\\proj`, `*.py`, `pyproject.toml`) is one too.
Multi-line and long values (file contents, an edit's old and new text, a long thought)
name nothing: their words would match everything. Targets are compared case-blind, with
`\\` as `/` and without a trailing `/`; a relative path names the absolute path it ends.
"""

from __future__ import annotations

import re
from typing import Any

#: Longer string arguments are prose or content, not a thing worked on.
MAX_TARGET = 200
#: Words are looked for in one-line arguments up to this long (a command, a prompt).
MAX_SCANNED = 500
_SPLIT = re.compile(r"[\s\"'`()\[\]{},;|&<>=$]+")
_FILE_NAME = re.compile(r"^[\w*.~-]*\w\.[a-z0-9]{1,8}$")
_NOT_TARGETS = frozenset({"/dev/null", "nul", "true", "false", "none", "null"})


def call_targets(arguments: Any) -> frozenset[str]:
    """The targets of a call's arguments (any JSON value); empty when it names none."""
    found: set[str] = set()
    stack = [arguments]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str) and "\n" not in value and len(value) <= MAX_SCANNED:
            if len(value) <= MAX_TARGET:
                found.add(_normal(value))
            found.update(_normal(word) for word in _SPLIT.split(value) if _path_like(word))
    return frozenset(t for t in found if len(t) >= 3 and t not in _NOT_TARGETS)


def only_prose(arguments: Any) -> bool:
    """The call's arguments hold text, and none of it names a target: a thought or a note
    (`think`'s), not a look-up."""
    return _has_text(arguments) and not call_targets(arguments)


def _has_text(value: Any) -> bool:
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, dict):
        return any(_has_text(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_text(v) for v in value)
    return False


def share_target(first: frozenset[str], second: frozenset[str]) -> bool:
    """The two calls work on one thing: a target in common, or a path of one that ends
    with a path of the other (`src/app.py` and `/home/me/proj/src/app.py`)."""
    if first & second:
        return True
    paths = [t for t in first if _path_like(t)]
    others = [t for t in second if _path_like(t)]
    return any(a.endswith("/" + b) or b.endswith("/" + a) for a in paths for b in others)


def _normal(text: str) -> str:
    text = text.strip().replace("\\", "/").casefold()
    if text.startswith("./"):
        text = text[2:]
    return text.rstrip("/") if len(text) > 1 else text


def _path_like(word: str) -> bool:
    if "\n" in word or len(word) > MAX_TARGET:
        return False
    return "/" in word or "\\" in word or "*" in word or bool(_FILE_NAME.match(word.lower()))
