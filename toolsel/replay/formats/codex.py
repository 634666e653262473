"""OpenAI Responses items and the Codex CLI: rollout files
(`~/.codex/sessions/**/rollout-*.jsonl`, Responses items wrapped in `response_item` lines)
and `codex exec --json` events (`item.started` / `item.completed`).

Codex outputs carry no error flag: a failed command shows only in its output (see
`output_failed`). `event_msg` lines repeat call ids for display and are never calls.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from toolsel.replay.events import NOTHING, Call, Decoded, Event, Human, Result, Session, human_text
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
#: Items `codex exec --json` reports only with `item.completed` (codex-rs exec's JSONL event
#: processor turns PatchApplyEnd and WebSearchEnd into completed items, with no start).
COMPLETION_ONLY = frozenset({"file_change", "web_search"})
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
    if kind == "message" and obj.get("role") == "user":
        return RESPONSES, _human(obj)
    if kind in RESPONSES_OTHER:
        return RESPONSES, NOTHING
    return None


def _human(item: dict[str, Any]) -> list[Event]:
    text = human_text(item.get("content"))
    return [Human(text)] if text is not None else []


def item_events(item: dict[str, Any], timestamp: str | None) -> list[Event]:
    call_id = item.get("call_id")
    if type(call_id) is not str:
        return []
    kind = item.get("type")
    if kind in RESPONSES_CALLS:
        raw = item.get("arguments", item.get("input", item.get("action")))
        return [arguments_call(call_id, str(item.get("name", kind)), raw, timestamp)]
    return [Result(call_id, output_failed(item.get("output")), timestamp=timestamp)]


#: Plain-text outputs with which Codex reports a call that did not succeed (codex-rs
#: `core`: a sandbox refusal, an execution error, a patch the user rejected).
FAILURE_PREFIXES = ("failed in sandbox", "execution error", "patch rejected", "aborted")
#: The exit-code line of text outputs: "Exit code: N" (shell, 0.5x+), "Process exited
#: with code N" (exec_command), and "exit code: N" inside a sandbox failure.
EXIT_CODE = re.compile(r"(?:^|\n|, )(?:exit code:?|process exited with code) (-?\d+)", re.I)


def output_failed(output: Any) -> bool:
    """Codex outputs carry no error flag. A failure shows as JSON text whose
    `metadata.exit_code` is not 0 (0.40: `{"output": ..., "metadata": {"exit_code": N}}`),
    as a text output whose exit-code line is not 0, or as a failure message ("failed in
    sandbox ... with execution error: ...", "execution error: ...", "patch rejected by
    user")."""
    if type(output) is not str:
        return False
    head = output[:400]
    if head.startswith("{"):
        try:
            parsed = orjson.loads(output)
        except orjson.JSONDecodeError:
            parsed = None
        if type(parsed) is dict:
            metadata = parsed.get("metadata")
            code = metadata.get("exit_code") if type(metadata) is dict else None
            return type(code) is int and code != 0
    if head.lstrip().lower().startswith(FAILURE_PREFIXES):
        return True
    match = EXIT_CODE.search(head)
    return match is not None and int(match.group(1)) != 0


def rollout(obj: Any) -> Decoded | None:
    """A rollout line (`--input-format codex-rollout`): calls are `response_item` payloads."""
    if type(obj) is not dict:
        return None
    payload = obj.get("payload")
    if type(payload) is not dict:
        return None
    line_type = obj.get("type")
    if line_type == "response_item":
        kind = payload.get("type")
        if type(kind) is str and (kind in RESPONSES_CALLS or kind in RESPONSES_RESULTS):
            timestamp = obj.get("timestamp")
            return ROLLOUT, item_events(payload, timestamp if type(timestamp) is str else None)
        if kind == "message" and payload.get("role") == "user":
            return ROLLOUT, _human(payload)
    elif line_type == "session_meta" and type(payload.get("id")) is str:
        return ROLLOUT, [Session(payload["id"])]
    return ROLLOUT, NOTHING


def exec_event(obj: Any) -> Decoded | None:
    """A `codex exec --json` event (`--input-format codex-exec`)."""
    if type(obj) is not dict:
        return None
    kind = obj.get("type")
    if type(kind) is not str:
        return None
    item = obj.get("item")
    if kind == "thread.started" and type(obj.get("thread_id")) is str:
        return EXEC, [Session(obj["thread_id"])]
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
        result = Result(item["id"], failed)
        if item["type"] in COMPLETION_ONLY:
            # reported only when done: the completion is the call and its result at once
            call = _exec_call(item)
            call.implicit = True
            return EXEC, [call, result]
        return EXEC, [result]
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
