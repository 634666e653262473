"""Parse YAML or JSON text into plain values plus the position of every node.

Positions are addressed by RFC 6901 JSON pointer (`/tools/3/requires/0`) and are 1-based.
The walk over libyaml's node graph is iterative, so nesting depth never reaches Python's
recursion limit, and alias expansion is budgeted up front, so a "billion laughs" document
is refused in milliseconds instead of being expanded.
"""

from __future__ import annotations

import gc
import re

from yaml.nodes import Node, ScalarNode

from toolsel.registry.nodes import Walker, check_alias_expansion, children, compose
from toolsel.registry.pointer import escape_token, join_pointer, split_pointer, unescape_token
from toolsel.registry.sourcemap import (
    Comment,
    DuplicateKey,
    ParsedDocument,
    SourceMap,
    SourceSyntaxError,
)

__all__ = [
    "Comment", "DuplicateKey", "ParsedDocument", "SourceMap", "SourceSyntaxError", "escape_token",
    "join_pointer", "parse_text", "split_pointer", "unescape_token",
]  # fmt: skip

# JSON writes characters outside the BMP as escaped surrogate pairs, which libyaml rejects.
_SURROGATE_PAIR = re.compile(
    r"(?<!\\)((?:\\\\)*)\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})", re.IGNORECASE
)


def _join_surrogates(match: re.Match[str]) -> str:
    high, low = int(match.group(2), 16), int(match.group(3), 16)
    return match.group(1) + chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))


def parse_text(text: str, *, is_json: bool = False) -> ParsedDocument:
    """Parse one YAML/JSON document. Raises SourceSyntaxError with a 1-based mark.

    JSON lines (one JSON object per line, as the Berkeley Function Calling Leaderboard
    keeps its function docs) read as a list of those objects, with every position on the
    line it came from."""
    from toolsel.jsonsyntax import json_syntax_error, looks_like_json

    if is_json and not _looks_like_json_lines(text):
        syntax = json_syntax_error(text)  # YAML reads more than JSON: a trailing comma, ...
        if syntax is not None:
            raise SourceSyntaxError(syntax.message, syntax.line, syntax.column)
    try:
        return _parse_document(text, is_json=is_json)
    except SourceSyntaxError:
        if not is_json and looks_like_json(text):
            syntax = json_syntax_error(text)  # JSON text in a .yaml file, or on stdin
            if syntax is not None:
                raise SourceSyntaxError(syntax.message, syntax.line, syntax.column) from None
            return _parse_document(text, is_json=True)
        if not is_json or not _looks_like_json_lines(text):
            raise
    # each line becomes one list item; positions are shifted back by the "[" line
    lines = text.splitlines()
    last = max(i for i, line in enumerate(lines) if line.strip())
    wrapped = (
        "[\n"
        + "\n".join(
            line + ("," if line.strip() and i < last else "") for i, line in enumerate(lines)
        )
        + "\n]\n"
    )
    parsed = _parse_document(wrapped, is_json=True)
    shift = {k: (line - 1, column) for k, (line, column) in parsed.source.values.items()}
    keys = {k: (line - 1, column) for k, (line, column) in parsed.source.keys.items()}
    duplicates = tuple(
        DuplicateKey(d.pointer, d.key, d.line - 1, d.column, d.first_line - 1)
        for d in parsed.duplicate_keys
    )
    return ParsedDocument(parsed.value, SourceMap(shift, keys), duplicates, ())


def _looks_like_json_lines(text: str) -> bool:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return len(lines) > 1 and all(line.startswith("{") and line.endswith("}") for line in lines)


def _parse_document(text: str, *, is_json: bool) -> ParsedDocument:
    if is_json:
        # Tabs are whitespace between JSON tokens and invalid inside JSON strings, so swapping
        # them for spaces changes no value and no column, and lets the YAML scanner read it.
        text = _SURROGATE_PAIR.sub(_join_surrogates, text.replace("\t", " "))
    gc_was_enabled = gc.isenabled()
    gc.disable()  # the node graph is acyclic garbage; collection passes only cost time here
    try:
        root = compose(text)
        if root is None:
            return ParsedDocument(None, SourceMap({}, {}), (), _comments(text, None, is_json))
        if "&" in text:
            check_alias_expansion(root, len(text))
        parsed = Walker(is_json=is_json).walk(root)
        comments = _comments(text, root, is_json)
        return ParsedDocument(parsed.value, parsed.source, parsed.duplicate_keys, comments)
    finally:
        if gc_was_enabled:
            gc.enable()


def _comments(text: str, root: Node | None, is_json: bool) -> tuple[Comment, ...]:
    """The comments that mention toolsel (any case), found where YAML would see a comment:
    a `#` at the start of a line or after whitespace, outside every scalar. JSON has no
    comments at all, so nothing in a JSON file is one."""
    if is_json or "toolsel" not in text.lower():
        return ()
    spans = sorted(_scalar_spans(root)) if root is not None else []
    found: list[Comment] = []
    offset = 0
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        column = line.find("#")
        while column != -1:
            if column == 0 or line[column - 1] in " \t":
                position = offset + column
                if not any(start <= position < end for start, end in spans):
                    comment = line[column:].rstrip("\r\n")
                    if "toolsel" in comment.lower():
                        found.append(Comment(number, column + 1, comment))
                    break  # the rest of the line is this comment
            column = line.find("#", column + 1)
        offset += len(line)
    return tuple(found)


def _scalar_spans(root: Node) -> list[tuple[int, int]]:
    """Where each scalar holding a `#` sits in the text (character offsets)."""
    spans: list[tuple[int, int]] = []
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            if "#" in node.value:
                spans.append((node.start_mark.index, node.end_mark.index))
        else:
            stack.extend(children(node))
    return spans
