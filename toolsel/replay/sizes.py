"""What a tool costs the context: the size of a call's input and of its result, in UTF-8
bytes, measured on what the reader already holds (no value is serialised again on the fast
path), and the one token estimate toolsel names.

- A result's size is the UTF-8 bytes of its text: a string; in a list, each string and
  each block's text; in an object (a block, or an MCP result), its `text`, else the text
  of its `content`, else of its `output` (a command's `{output, exitCode}`), one level
  down. A function response (`{output}` or `{error}`: Gemini CLI, Qwen Code) is the text
  of its `output`, else of its `error`. An image or other non-text block, a number or other
  value counts 0: its cost is not its bytes, and parsers disagree on how to write numbers.
- An input's size is its compact JSON text. Where the reader kept the text as recorded
  (the fast path, OpenAI arguments) and it holds no space, line break or escape, that is
  its length (numbers count as written); else the value is decoded and written compact.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
import orjson

#: How tokens are estimated from bytes, named in every output that shows them.
TOKEN_METHOD = "bytes/4"


def estimated_tokens(size: float) -> int:
    """About four bytes a token: the rule `toolsel prompt` applies to definitions."""
    return int(-(-size // 4))


def text_bytes(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def content_size(content: Any, depth: int = 3) -> int:
    """The UTF-8 bytes of a result's text (see the module's docstring)."""
    kind = type(content)
    if kind is str:
        return text_bytes(content)
    if depth <= 0:
        return 0
    if kind is list:
        return sum(content_size(part, depth - 1) for part in content)
    if kind is dict:
        text = content.get("text")
        if type(text) is str:
            return text_bytes(text)
        if "content" in content:
            return content_size(content["content"], depth - 1)
        return content_size(content.get("output"), depth - 1)
    return 0


def response_size(response: Any) -> int:
    """`content_size` of a function response: its `output`, else its `error` (Gemini CLI,
    Qwen Code: `{"output": ...}` or `{"error": ...}`)."""
    if type(response) is dict and "output" not in response:
        return content_size(response.get("error"), 2)
    return content_size(response)


def raw_content_size(raw: bytes) -> int:
    """`content_size` of the JSON value `raw` holds: a string with no escape is its bytes
    between the quotes (most short tool output); any other is decoded (msgspec's decoder is
    several times faster than `bytes.count` over its escapes)."""
    if raw[:1] == b'"':
        if b"\\" not in raw:
            return len(raw) - 2
        try:
            return text_bytes(_decode(raw))
        except msgspec.DecodeError:
            return 0
    try:
        return content_size(_decode(raw))
    except msgspec.DecodeError:
        return 0


_decode = msgspec.json.Decoder().decode


_LOOSE = re.compile(rb"[\s\\]")


def input_size(value: Any, encoded: bool) -> int:
    """The bytes of a call's input as compact JSON (see the module's docstring)."""
    if encoded:
        raw = value if type(value) is bytes else value.encode("utf-8", "surrogatepass")
        if _LOOSE.search(raw) is None:
            return len(raw)
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:  # not JSON: the text itself
            return len(raw)
    if value is None:
        return 0
    try:
        return len(orjson.dumps(value))
    except TypeError:  # an integer past 64 bits, or lists and objects over 255 levels deep
        return _compact_size(value)


def _compact_size(value: Any) -> int:
    """The bytes of a value as compact JSON, counted without recursion (a JSON line may
    nest 1,000 levels, past what a recursive writer can)."""
    size, stack = 0, [value]
    while stack:
        item = stack.pop()
        if type(item) is list:
            size += 2 + max(len(item) - 1, 0)  # brackets and commas
            stack += item
        elif type(item) is dict:
            size += 2 + max(len(item) - 1, 0) + len(item)  # braces, commas and colons
            stack += item.keys()
            stack += item.values()
        else:
            size += len(msgspec.json.encode(item))  # a scalar: integers of any size too
    return size
