"""Tool-call-like content in a record no decoder read: the guard against a silent zero.

A record of a type toolsel does not know is checked before it is skipped, and so is every
record that yielded nothing while its file has shown no call yet: when one holds what looks
like a tool call or result (a `tool_calls` list, a block of type `tool_use`, an object with
a call id, a tool name and arguments), the report says where, and `replay` exits 1
(`--fail-on unread-tools`). Only JSON structure is looked at, never the text of strings,
and at most `BUDGET` values of a record.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Any, Final

#: Keys whose non-empty value holds tool calls or results in the formats toolsel knows of.
TOOL_KEYS: Final = frozenset(
    {"tool_calls", "toolCalls", "toolRequests", "tool_call", "toolCall", "tool_uses",
     "function_call", "functionCall", "functionResponse", "tool_use", "toolUse",
     "tool_result", "toolResult"}
)  # fmt: skip
#: `type` values of call and result records or blocks.
TOOL_TYPES: Final = frozenset(
    {"tool_use", "server_tool_use", "mcp_tool_use", "tool_result", "tool_call", "tool-call",
     "tool-result", "tool.call", "tool.result", "toolCall", "toolResult", "toolUse",
     "function_call", "function_call_output", "function_call_result", "custom_tool_call",
     "custom_tool_call_output", "local_shell_call", "local_shell_call_output",
     "tool_search_call", "tool_search_output", "web_search_call", "image_generation_call",
     "mcp_call", "computer_call", "computer_call_output", "code_interpreter_call",
     "file_search_call", "shell_call", "shell_call_output", "apply_patch_call",
     "apply_patch_call_output"}
)  # fmt: skip
#: A call is recognised by its shape too: an id, a tool name and arguments side by side.
CALL_IDS: Final = frozenset(
    {"tool_call_id", "toolCallId", "call_id", "callId", "tool_use_id", "toolUseId", "tool_id"}
)
CALL_NAMES: Final = frozenset({"name", "tool_name", "toolName", "function_name"})
CALL_ARGUMENTS: Final = frozenset({"arguments", "args", "input", "parameters"})
#: How many values of one record are looked at, at most (a record can be megabytes).
BUDGET: Final = 2000
#: Every key and type above holds one of these, and so does the JSON text of any record
#: holding tool content (unless an escape spells it): a cheap test of a raw line first.
MARKERS: Final = re.compile(rb"tool|call|Call|function|\\u")


def may_hold_tool_content(raw: bytes) -> bool:
    """False when the JSON text `raw` cannot hold tool content (`tool_content` is None)."""
    return MARKERS.search(raw) is not None


def tool_content(record: Any) -> str | None:
    """Where `record` holds something shaped like a tool call or result (a JSON pointer and
    what was seen there), or None."""
    queue: deque[tuple[str, Any]] = deque([("", record)])
    seen = 0
    while queue and seen < BUDGET:
        pointer, value = queue.popleft()
        seen += 1
        if type(value) is dict:
            found = _in_object(value)
            if found is not None:
                return f"`{found}` at {pointer or '/'}"
            queue.extend(
                (f"{pointer}/{_escape(key)}", item)
                for key, item in value.items()
                if type(item) is dict or type(item) is list
            )
        elif type(value) is list:
            queue.extend(
                (f"{pointer}/{index}", item)
                for index, item in enumerate(value)
                if type(item) is dict or type(item) is list
            )
    return None


def _in_object(value: dict[Any, Any]) -> str | None:
    kind = value.get("type")
    if type(kind) is str and kind in TOOL_TYPES:
        return f"type {kind}"
    for key in TOOL_KEYS.intersection(value):
        if value[key]:  # an empty list, or null, holds no call
            return str(key)
    keys = value.keys()
    if CALL_IDS & keys and CALL_NAMES & keys and CALL_ARGUMENTS & keys:
        return "an id, a tool name and arguments"
    return None


def _escape(key: Any) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")
