"""OpenAI Responses items and the Codex CLI: rollout files
(`~/.codex/sessions/**/rollout-*.jsonl`, Responses items wrapped in `response_item` lines)
and `codex exec --json` events (`item.started` / `item.completed`).

Codex outputs carry no error flag: a failed command shows only in its output (see
`output_failed`). `event_msg` lines repeat call ids for display and are never calls.
"""

from __future__ import annotations

from typing import Any

import orjson

from toolsel.replay.events import NOTHING, Call, Decoded, Event, Result
from toolsel.replay.formats.chat import arguments_call

RESPONSES = "openai-responses"
ROLLOUT = "codex-rollout"
EXEC = "codex-exec"
RESPONSES_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
RESPONSES_RESULTS = frozenset(
    {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}
)
RESPONSES_OTHER = frozenset({"message", "reasoning"})
CODEX_TOOL_ITEMS = frozenset(
    {"command_execution", "mcp_tool_call", "file_change", "web_search", "local_shell_call"}
)
#: What an `item.started` call records of a built-in Codex tool item as its input.
EXEC_INPUT_KEYS = ("command", "server", "tool", "arguments", "changes", "query")


def responses(obj: Any) -> Decoded | None:
    """A Responses API item (`--input-format openai-responses`)."""
    if type(obj) is not dict:
        return None
    kind = obj.get("type")
    if type(kind) is not str:
        return None
    if kind in RESPONSES_CALLS or kind in RESPONSES_RESULTS:
        return RESPONSES, item_events(obj, None)
    if kind in RESPONSES_OTHER:
        return RESPONSES, NOTHING
    return None


def item_events(item: dict[str, Any], timestamp: str | None) -> list[Event]:
    call_id = item.get("call_id")
    if type(call_id) is not str:
        return []
    kind = item.get("type")
    if kind in RESPONSES_CALLS:
        raw = item.get("arguments", item.get("input", item.get("action")))
        return [arguments_call(call_id, str(item.get("name", kind)), raw, timestamp)]
    return [Result(call_id, output_failed(item.get("output")), timestamp=timestamp)]


def output_failed(output: Any) -> bool:
    """A Codex output is JSON text (`{"output": ..., "metadata": {"exit_code": N}}`) whose
    exit code says whether the command failed."""
    if type(output) is not str or not output.startswith("{"):
        return False
    try:
        parsed = orjson.loads(output)
    except orjson.JSONDecodeError:
        return False
    metadata = parsed.get("metadata") if type(parsed) is dict else None
    code = metadata.get("exit_code") if type(metadata) is dict else None
    return type(code) is int and code != 0


def rollout(obj: Any) -> Decoded | None:
    """A rollout line (`--input-format codex-rollout`): calls are `response_item` payloads."""
    if type(obj) is not dict:
        return None
    payload = obj.get("payload")
    if type(payload) is not dict:
        return None
    if obj.get("type") == "response_item":
        kind = payload.get("type")
        if type(kind) is str and (kind in RESPONSES_CALLS or kind in RESPONSES_RESULTS):
            timestamp = obj.get("timestamp")
            return ROLLOUT, item_events(payload, timestamp if type(timestamp) is str else None)
    return ROLLOUT, NOTHING


def exec_event(obj: Any) -> Decoded | None:
    """A `codex exec --json` event (`--input-format codex-exec`)."""
    if type(obj) is not dict:
        return None
    kind = obj.get("type")
    if type(kind) is not str:
        return None
    item = obj.get("item")
    if (
        type(item) is not dict
        or type(item.get("type")) is not str
        or item["type"] not in CODEX_TOOL_ITEMS
        or type(item.get("id")) is not str
    ):
        return EXEC, NOTHING
    if kind == "item.started":
        return EXEC, [_exec_call(item)]
    if kind == "item.completed":
        code = item.get("exit_code")
        failed = item.get("status") == "failed" or (type(code) is int and code != 0)
        return EXEC, [Result(item["id"], failed)]
    return EXEC, NOTHING


def _exec_call(item: dict[str, Any]) -> Call:
    # an MCP tool call is named by its tool, and its arguments are its input (checked against
    # the registry); a built-in item is named by its kind (command_execution)
    named = item.get("tool") if item.get("type") == "mcp_tool_call" else None
    if type(named) is str and named:
        arguments = item.get("arguments")
        return Call(item["id"], named, arguments if arguments is not None else {})
    return Call(
        item["id"], str(item.get("type")), {k: v for k, v in item.items() if k in EXEC_INPUT_KEYS}
    )
