"""OpenAI Responses items and the Codex CLI: rollout files
(`~/.codex/sessions/**/rollout-*.jsonl`, Responses items wrapped in `response_item` lines)
and `codex exec --json` events (`item.started` / `item.completed`).

Item types follow codex-rs `protocol/src/models.rs` (`ResponseItem`) and the Responses API:
calls carry a `call_id` (`function_call`, `custom_tool_call`, `local_shell_call`,
`tool_search_call`, ...) answered by a matching `*_output`; server-side items
(`web_search_call`, `image_generation_call`, `mcp_call`, ...) carry their outcome inside and
count as a call and a result. A response object (`{"object": "response", "output": [...]}`)
holds one model turn: its client-side calls are answered in the next request, not in it.

Codex outputs carry no error flag: a failed command shows only in its output (see
`output_failed`). Rollout `event_msg` lines repeat the actions of response items for
display: an `*_end` event is an echo of the call with its `call_id` (counted once), and an
action only when no response item reports it.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from toolsel.replay.events import NOTHING, UNKNOWN, Call, Decoded, Event, Session
from toolsel.replay.formats.shared import arguments_call, as_text, human, outcome, stamp_of, text_id
from toolsel.replay.sizes import content_size, text_bytes

RESPONSES = "openai-responses"
ROLLOUT = "codex-rollout"
EXEC = "codex-exec"
#: Calls answered by an output item with their `call_id` (`callId` in the OpenAI Agents
#: SDK's items, which CodeBuddy writes).
RESPONSES_CALLS = frozenset(
    {"function_call", "custom_tool_call", "local_shell_call", "tool_search_call",
     "computer_call", "shell_call", "apply_patch_call"}
)  # fmt: skip
RESPONSES_RESULTS = frozenset(
    {"function_call_output", "custom_tool_call_output", "local_shell_call_output",
     "tool_search_output", "computer_call_output", "shell_call_output",
     "apply_patch_call_output", "function_call_result"}
)  # fmt: skip
#: Server-side tools: the item is the call and, once it has a final status, its result.
RESPONSES_INLINE = frozenset(
    {"web_search_call", "image_generation_call", "file_search_call", "code_interpreter_call",
     "mcp_call"}
)  # fmt: skip
#: Every item type that holds a call or a result (one lookup on the hot path).
RESPONSES_TOOL_ITEMS = RESPONSES_CALLS | RESPONSES_RESULTS | RESPONSES_INLINE
RESPONSES_OTHER = frozenset(
    {"message", "reasoning", "compaction", "compaction_summary", "context_compaction",
     "compaction_trigger", "additional_tools", "agent_message", "ghost_snapshot",
     "mcp_list_tools", "mcp_approval_request", "mcp_approval_response", "item_reference",
     "configuration_update", "other"}
)  # fmt: skip
#: The statuses with which a server-side item has an outcome (others: still running). An
#: `mcp_call` as the API first returned it has no status: its `output` or `error` says.
FINAL_STATUSES = frozenset({"completed", "failed", "incomplete", "cancelled"})
#: Rollout line types (codex-rs `RolloutItem`); any other is a record of an unknown type.
ROLLOUT_LINES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted", "world_state",
     "inter_agent_communication", "inter_agent_communication_metadata", "tool_manifest",
     "sampling_boundary"}
)  # fmt: skip
#: `event_msg` events that end an action with a `call_id`: an echo of the response item
#: with that id, or, when none reports it (`mcp_tool_call_end` of an older rollout), the
#: call and its result. Each gives the tool's name and its error test.
END_EVENTS = frozenset(
    {"exec_command_end", "patch_apply_end", "mcp_tool_call_end", "dynamic_tool_call_response",
     "view_image_tool_call", "collab_tool_call", "collab_agent_spawn_end",
     "collab_agent_interaction_end", "collab_waiting_end", "collab_close_end",
     "collab_resume_end"}
)  # fmt: skip
END_EVENT_TOOLS = {
    "exec_command_end": "exec_command", "patch_apply_end": "apply_patch",
    "view_image_tool_call": "view_image", "collab_agent_spawn_end": "spawn_agent",
    "collab_agent_interaction_end": "send_input", "collab_waiting_end": "wait",
    "collab_close_end": "close_agent", "collab_resume_end": "resume_agent",
}  # fmt: skip
CODEX_TOOL_ITEMS = frozenset(
    {"command_execution", "mcp_tool_call", "file_change", "web_search", "local_shell_call",
     "collab_tool_call"}
)  # fmt: skip
#: `codex exec` items that are not tool calls (codex-rs exec `ThreadItemDetails`).
CODEX_OTHER_ITEMS = frozenset({"agent_message", "reasoning", "todo_list", "error", "plan"})
#: Items `codex exec --json` reports only with `item.completed` (codex-rs exec's JSONL event
#: processor turns PatchApplyEnd and WebSearchEnd into completed items, with no start).
COMPLETION_ONLY = frozenset({"file_change", "web_search"})
#: What an `item.started` call records of a built-in Codex tool item as its input.
EXEC_INPUT_KEYS = ("command", "server", "tool", "arguments", "changes", "query", "prompt")


def responses(obj: Any) -> Decoded | None:
    """A Responses API item, or a response object's output (`--input-format
    openai-responses`)."""
    if type(obj) is not dict:
        return None
    kind = obj.get("type")
    if type(kind) is not str:
        output = obj.get("output")
        if obj.get("object") == "response" and type(output) is list:
            items = [i for i in output if type(i) is dict and type(i.get("type")) is str]
            return RESPONSES, [event for item in items for event in item_events(item, None)]
        return None
    if kind in RESPONSES_TOOL_ITEMS:
        return RESPONSES, item_events(obj, None)
    if kind == "message" and obj.get("role") == "user":
        return RESPONSES, human(obj.get("content"), [])
    if kind in RESPONSES_OTHER:
        return RESPONSES, NOTHING
    return None


def item_events(item: dict[str, Any], timestamp: str | None) -> list[Event]:
    """The call, result, or call and result of one Responses item (of a type in
    RESPONSES_CALLS, RESPONSES_RESULTS or RESPONSES_INLINE; any other yields nothing)."""
    kind = item["type"]
    call_id = item.get("call_id")
    if type(call_id) is not str:
        call_id = _call_id(item, kind)
    if kind in RESPONSES_CALLS:
        raw = item.get("arguments", item.get("input", item.get("action")))
        return [arguments_call(call_id, _name(item, kind), raw, timestamp, kind=kind)]
    if kind in RESPONSES_RESULTS:
        output = item.get("output")
        if type(output) is str and "status" not in item and "success" not in item:
            size = text_bytes(output)
            return [outcome(call_id, output_failed(output), output, size, timestamp=timestamp)]
        size = content_size(output)
        return [outcome(call_id, _result_failed(item), item, size, timestamp=timestamp)]
    if kind not in RESPONSES_INLINE:
        return []
    item_id = text_id(item.get("id"))
    raw = item.get("action", item.get("arguments", item.get("code", item.get("queries"))))
    events: list[Event] = [arguments_call(item_id, _name(item, kind), raw, timestamp)]
    status = item.get("status")
    if (
        (type(status) is str and status in FINAL_STATUSES)
        or item.get("error")
        or (status is None and item.get("output") is not None)  # an `mcp_call` without status
    ):
        failed, size = status == "failed" or bool(item.get("error")), _hosted_size(item, kind)
        events.append(outcome(item_id, failed, item, size, timestamp=timestamp))
    return events


def _hosted_size(item: dict[str, Any], kind: str) -> int:
    """The bytes of a hosted item's text: an `mcp_call`'s `output` (else its `error`), a
    `code_interpreter_call`'s logs; -1 for the others (a web or file search, an image),
    whose results the item does not hold as text."""
    if kind == "mcp_call":
        output = item.get("output")
        return content_size(output if output is not None else item.get("error"))
    if kind == "code_interpreter_call":
        outputs = item.get("outputs")
        return sum(
            content_size(part.get("logs"))
            for part in (outputs if type(outputs) is list else ())
            if type(part) is dict
        )
    return -1


def _call_id(item: dict[str, Any], kind: str) -> str:
    """A call's id: `call_id` (`callId` in the Agents SDK's items); a `local_shell_call`
    falls back to its `id`, which Codex sets when it talks Chat Completions. "" when none."""
    value = item.get("call_id")
    if value is None:
        value = item.get("callId")
        if value is None and kind == "local_shell_call":
            value = item.get("id")
    return text_id(value)


def _name(item: dict[str, Any], kind: str) -> str:
    name = item.get("name")
    return name if type(name) is str and name else kind


def _result_failed(item: dict[str, Any]) -> bool:
    """An output item's failure: a `failed` status, an output object with `success: false`
    (Codex's failure payload), a shell outcome with a non-zero exit code, or, for text, what
    `output_failed` reads."""
    if item.get("status") == "failed" or item.get("success") is False:
        return True
    output = item.get("output")
    if type(output) is dict:
        return output.get("success") is False
    if type(output) is list:
        return any(_nonzero_exit(part) for part in output if type(part) is dict)
    return output_failed(output)


def _nonzero_exit(part: dict[str, Any]) -> bool:
    outcome = part.get("outcome")
    code = outcome.get("exit_code") if type(outcome) is dict else None
    return type(code) is int and code != 0


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
        if type(kind) is not str:
            return ROLLOUT, UNKNOWN
        if kind in RESPONSES_TOOL_ITEMS:
            return ROLLOUT, item_events(payload, stamp_of(obj.get("timestamp")))
        if kind == "message" and payload.get("role") == "user":
            return ROLLOUT, human(payload.get("content"), [])
        return ROLLOUT, NOTHING if kind in RESPONSES_OTHER else UNKNOWN
    if line_type == "event_msg":
        kind = payload.get("type")
        if type(kind) is str and kind in END_EVENTS:
            return ROLLOUT, _end_event(payload, kind, obj.get("timestamp"))
        return ROLLOUT, NOTHING
    if line_type == "session_meta" and type(payload.get("id")) is str:
        return ROLLOUT, [Session(payload["id"])]
    known = type(line_type) is str and line_type in ROLLOUT_LINES
    return ROLLOUT, NOTHING if known else UNKNOWN


def _end_event(payload: dict[str, Any], kind: str, timestamp: Any) -> list[Event]:
    """An event that ends an action: its echo (an implicit call and result, dropped when a
    response item has its `call_id`), or the action itself when no item reports it."""
    call_id = text_id(payload.get("call_id"))
    if not call_id:
        return []  # nothing to tell an echo from an action by: the response item counts
    stamp = stamp_of(timestamp)
    name, arguments = END_EVENT_TOOLS.get(kind, kind), payload.get("command", {})
    if kind == "mcp_tool_call_end":
        invocation = payload.get("invocation")
        invocation = invocation if type(invocation) is dict else {}
        server, tool = as_text(invocation.get("server", "")), as_text(invocation.get("tool", ""))
        name = f"mcp__{server}__{tool}"
        arguments = invocation.get("arguments")
    elif type(payload.get("tool")) is str and payload["tool"]:
        name = payload["tool"]
    call = Call(call_id, name, {} if arguments is None else arguments, timestamp=stamp)
    call.implicit = True
    failed, size = _end_failed(payload), _end_size(payload, kind)
    return [call, outcome(call_id, failed, payload, size, timestamp=stamp, implicit=True)]


def _end_size(payload: dict[str, Any], kind: str) -> int:
    """The bytes of an `*_end` event's text: an MCP result's `Ok` content or `Err` text, a
    command's `aggregated_output` (else its `stdout` and `stderr`), a patch's `stdout` and
    `stderr`; -1 where the event holds no text."""
    if kind == "mcp_tool_call_end":
        result = payload.get("result")
        if type(result) is not dict or not ("Ok" in result or "Err" in result):
            return -1
        return content_size(result["Ok"] if "Ok" in result else result["Err"])
    if kind == "exec_command_end" and "aggregated_output" in payload:
        return content_size(payload["aggregated_output"])
    if kind in ("exec_command_end", "patch_apply_end") and (
        "stdout" in payload or "stderr" in payload
    ):
        return content_size(payload.get("stdout")) + content_size(payload.get("stderr"))
    return -1  # a trimmed record, a web search's results, a sub-agent's state


def _end_failed(payload: dict[str, Any]) -> bool:
    """An `*_end` event's failure: `success: false`, a non-zero `exit_code`, an MCP `Err`
    result or an `Ok` result with `isError`, or a `failed` status."""
    code = payload.get("exit_code")
    if payload.get("success") is False or (type(code) is int and code != 0):
        return True
    if payload.get("status") in ("failed", "error"):
        return True
    result = payload.get("result")
    if type(result) is dict:
        ok = result.get("Ok")
        return "Err" in result or (type(ok) is dict and ok.get("isError") is True)
    return False


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
    if type(item) is not dict or type(item.get("type")) is not str:
        return EXEC, NOTHING
    if item["type"] not in CODEX_TOOL_ITEMS:
        return EXEC, NOTHING if item["type"] in CODEX_OTHER_ITEMS else UNKNOWN
    if type(item.get("id")) is not str:
        return EXEC, NOTHING
    if kind == "item.started":
        return EXEC, [_exec_call(item)]
    if kind == "item.completed":
        code = item.get("exit_code")
        failed = item.get("status") == "failed" or (type(code) is int and code != 0)
        result = outcome(item["id"], failed, item, _exec_size(item))
        if item["type"] in COMPLETION_ONLY:
            # reported only when done: the completion is the call and its result at once
            call = _exec_call(item)
            call.implicit = True
            return EXEC, [call, result]
        return EXEC, [result]
    return EXEC, NOTHING


def _exec_size(item: dict[str, Any]) -> int:
    """The bytes of a completed item's text: a command's `aggregated_output`, an MCP tool
    call's `result` (its content) or else its `error.message`; -1 for an item that holds
    none (a file change, a web search, a trimmed command)."""
    if "aggregated_output" in item:
        return content_size(item["aggregated_output"])
    result, error = item.get("result"), item.get("error")
    if result is not None:
        return content_size(result)
    if type(error) is dict:
        return content_size(error.get("message"))
    return -1


def _exec_call(item: dict[str, Any]) -> Call:
    # an MCP tool call is named by its tool, and its arguments are its input (checked against
    # the registry), a collab call by its tool (spawn_agent); a built-in item is named by its
    # kind (command_execution)
    named = item.get("tool") if item.get("type") in ("mcp_tool_call", "collab_tool_call") else None
    if type(named) is str and named:
        arguments = item.get("arguments")
        return Call(item["id"], named, arguments if arguments is not None else {})
    inputs = {k: v for k, v in item.items() if k in EXEC_INPUT_KEYS}
    return Call(item["id"], as_text(item.get("type")), inputs)
