"""Turn one parsed transcript line into tool-call and tool-result events.

Formats are detected per line (a file may mix them): Claude Code sessions, Agent SDK
stream-json, Anthropic or OpenAI chat messages, OpenAI Responses items and Codex rollouts,
and `codex exec --json` events. Only JSON structure is read: ids inside strings never count.
`progress` lines (copies of sub-agent messages) and Codex `event_msg` call ids are never
calls or results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CODEX_TOOL_ITEMS = frozenset(
    {"command_execution", "mcp_tool_call", "file_change", "web_search", "local_shell_call"}
)
CLAUDE_LINE_TYPES = frozenset(
    {"user", "assistant", "system", "summary", "progress", "file-history-snapshot", "queue-operation",
     "last-prompt", "custom-title", "ai-title", "permission-mode", "attachment", "pr-link", "worktree-state", "mode"}
)  # fmt: skip
RESPONSES_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
RESPONSES_RESULTS = frozenset(
    {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}
)
_UNSET: Any = object()


@dataclass(slots=True)
class Call:
    id: str
    tool: str
    input: Any
    message_id: str | None = None
    parent: Any = _UNSET  # explicit parent id when the format says (None = explicitly none)
    timestamp: str | None = None
    sidechain: bool = False


@dataclass(slots=True)
class Result:
    id: str
    is_error: bool
    parent: Any = _UNSET
    timestamp: str | None = None
    agent_id: str | None = None  # Claude Code: the sub-agent a Task result names


@dataclass(slots=True)
class SidechainStart:
    """A Claude Code 1.0.x sidechain root: its prompt text names the Task that started it."""

    prompt: str


@dataclass(slots=True)
class Decoded:
    format: str | None  # None: valid JSON of no known shape
    events: list[Call | Result | SidechainStart] = field(default_factory=list)
    agent_id: str | None = None  # Claude Code sub-agent files: the agent this line belongs to


def has_explicit_parent(event: Call | Result) -> bool:
    return event.parent is not _UNSET


INPUT_FORMATS = (
    "claude-code",
    "stream-json",
    "anthropic",
    "openai-chat",
    "openai-responses",
    "codex-rollout",
    "codex-exec",
)


def decode_as(obj: Any, fmt: str) -> Decoded:
    """Decode a line as `fmt` (`--input-format`); anything else is an unexpected shape."""
    if not isinstance(obj, dict):
        return Decoded(None)
    kind = obj.get("type")
    if fmt == "claude-code" and kind in CLAUDE_LINE_TYPES:
        return _claude_code(obj)
    if fmt == "stream-json" and isinstance(kind, str):
        return _claude_message_line(obj, "stream-json", explicit_parent=True)
    if fmt in ("anthropic", "openai-chat") and "role" in obj:
        decoded = _message(obj)
        decoded.format = fmt
        return decoded
    if fmt == "openai-responses" and (
        kind in RESPONSES_CALLS or kind in RESPONSES_RESULTS or kind in ("message", "reasoning")
    ):
        return Decoded(fmt, _responses_item(obj))
    if fmt == "codex-rollout" and isinstance(obj.get("payload"), dict):
        return _codex_rollout(obj)
    if fmt == "codex-exec" and isinstance(kind, str):
        return _codex_exec(obj)
    return Decoded(None)


def decode(obj: Any) -> Decoded:
    if isinstance(obj, dict):
        kind = obj.get("type")
        # the common case first: Claude Code message lines
        if (
            (kind == "assistant" or kind == "user")
            and "uuid" in obj
            and "parent_tool_use_id" not in obj
        ):
            return _claude_code(obj)
        if "payload" in obj and isinstance(obj.get("payload"), dict):
            return _codex_rollout(obj)
        if (
            isinstance(kind, str)
            and (kind.startswith(("item.", "thread.", "turn.")) or kind == "error")
            and ("item" in obj or kind != "error")
        ):
            return _codex_exec(obj)
        if (
            "parent_tool_use_id" in obj
            or kind == "result"
            or (kind == "system" and "session_id" in obj)
        ):
            return _claude_message_line(obj, "stream-json", explicit_parent=True)
        if kind in CLAUDE_LINE_TYPES and (
            "uuid" in obj or "sessionId" in obj or kind in ("summary", "file-history-snapshot")
        ):
            return _claude_code(obj)
        if kind in RESPONSES_CALLS or kind in RESPONSES_RESULTS:
            return Decoded("openai-responses", _responses_item(obj))
        if "role" in obj:
            return _message(obj)
    return Decoded(None)


# -- Claude Code and the Agent SDK --------------------------------------------------------


def _claude_code(obj: dict[str, Any]) -> Decoded:
    kind = obj.get("type")
    decoded = (
        _claude_message_line(obj, "claude-code", explicit_parent=False)
        if kind in ("user", "assistant")
        else Decoded("claude-code")
    )
    agent = obj.get("agentId")
    decoded.agent_id = agent if isinstance(agent, str) else None
    if kind == "user" and obj.get("isSidechain") and obj.get("parentUuid") is None:
        content = (obj.get("message") or {}).get("content")
        if isinstance(content, str):
            decoded.events.insert(0, SidechainStart(content))
    return decoded


def _claude_message_line(obj: dict[str, Any], fmt: str, *, explicit_parent: bool) -> Decoded:
    message = obj.get("message")
    decoded = Decoded(fmt)
    if not isinstance(message, dict):
        return decoded
    parent = obj.get("parent_tool_use_id") if explicit_parent else _UNSET
    timestamp = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else None
    sidechain = bool(obj.get("isSidechain"))
    structured = obj.get("toolUseResult", obj.get("tool_use_result"))
    decoded.events = _blocks(
        message.get("content"), message.get("id"), parent, timestamp, sidechain, structured
    )
    return decoded


def _blocks(
    content: Any,
    message_id: Any,
    parent: Any,
    timestamp: str | None,
    sidechain: bool,
    structured: Any,
) -> list[Call | Result | SidechainStart]:
    events: list[Call | Result | SidechainStart] = []
    if not isinstance(content, list):
        return events
    msg_id = message_id if isinstance(message_id, str) else None
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if not isinstance(kind, str):
            continue
        if kind.endswith("tool_use") and isinstance(block.get("id"), str):
            events.append(
                Call(
                    block["id"],
                    str(block.get("name", "")),
                    block.get("input", {}),
                    msg_id,
                    parent,
                    timestamp,
                    sidechain,
                )
            )
        elif kind.endswith("tool_result") and isinstance(block.get("tool_use_id"), str):
            events.append(
                Result(
                    block["tool_use_id"],
                    _is_error(block, structured),
                    parent,
                    timestamp,
                    _agent_id(structured),
                )
            )
    return events


def _is_error(block: dict[str, Any], structured: Any) -> bool:
    if isinstance(block.get("is_error"), bool):
        return bool(block["is_error"])
    return structured_error(structured)


def structured_error(structured: Any) -> bool:
    """Claude Code's `toolUseResult` as a string says an error when the block does not."""
    return isinstance(structured, str) and structured.startswith(("Error", "User rejected"))


def _agent_id(structured: Any) -> str | None:
    agent = structured.get("agentId") if isinstance(structured, dict) else None
    return agent if isinstance(agent, str) else None


# -- chat messages (Anthropic or OpenAI) -------------------------------------------------


def _message(obj: dict[str, Any]) -> Decoded:
    role = obj.get("role")
    if isinstance(obj.get("tool_calls"), list) or role in ("tool", "function"):
        return Decoded("openai-chat", _openai_message(obj))
    content = obj.get("content")
    if isinstance(content, list) and any(
        isinstance(b, dict) and str(b.get("type", "")).endswith(("tool_use", "tool_result"))
        for b in content
    ):
        return Decoded("anthropic", _blocks(content, obj.get("id"), _UNSET, None, False, None))
    return Decoded("openai-chat" if isinstance(content, str) or content is None else "anthropic")


def _openai_message(obj: dict[str, Any]) -> list[Call | Result | SidechainStart]:
    events: list[Call | Result | SidechainStart] = []
    for call in obj.get("tool_calls") or []:
        if isinstance(call, dict) and isinstance(call.get("id"), str):
            raw_function = call.get("function")
            function: dict[str, Any] = raw_function if isinstance(raw_function, dict) else {}
            events.append(
                Call(
                    call["id"], str(function.get("name", "")), _arguments(function.get("arguments"))
                )
            )
    if obj.get("role") == "tool":
        listed = obj.get("tool_call_ids")
        ids: list[Any] = listed if isinstance(listed, list) else [obj.get("tool_call_id")]
        for call_id in ids:
            if isinstance(call_id, str):
                events.append(Result(call_id, False))
    return events


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        import orjson

        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            return raw
    return raw if raw is not None else {}


# -- OpenAI Responses and Codex ----------------------------------------------------------


def _responses_item(item: dict[str, Any]) -> list[Call | Result | SidechainStart]:
    kind = item.get("type")
    call_id = item.get("call_id")
    if not isinstance(call_id, str):
        return []
    if kind in RESPONSES_CALLS:
        raw = item.get("arguments", item.get("input", item.get("action")))
        return [Call(call_id, str(item.get("name", kind)), _arguments(raw))]
    return [Result(call_id, _codex_output_failed(item.get("output")))]


def _codex_output_failed(output: Any) -> bool:
    """Codex outputs carry no error flag; a JSON-encoded output may hold an exit code."""
    if isinstance(output, str) and output.startswith("{"):
        import orjson

        try:
            parsed = orjson.loads(output)
        except orjson.JSONDecodeError:
            return False
        code = (
            parsed.get("metadata", {}).get("exit_code")
            if isinstance(parsed, dict) and isinstance(parsed.get("metadata"), dict)
            else None
        )
        return isinstance(code, int) and code != 0
    return False


def _codex_rollout(obj: dict[str, Any]) -> Decoded:
    payload = obj["payload"]
    if obj.get("type") == "response_item" and (
        payload.get("type") in RESPONSES_CALLS or payload.get("type") in RESPONSES_RESULTS
    ):
        events = _responses_item(payload)
        timestamp = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else None
        for event in events:
            if isinstance(event, (Call, Result)):
                event.timestamp = timestamp
        return Decoded("codex-rollout", events)
    return Decoded("codex-rollout")


def _codex_exec(obj: dict[str, Any]) -> Decoded:
    item = obj.get("item")
    kind = obj.get("type")
    if (
        not isinstance(item, dict)
        or item.get("type") not in CODEX_TOOL_ITEMS
        or not isinstance(item.get("id"), str)
    ):
        return Decoded("codex-exec")
    if kind == "item.started":
        # an MCP tool call is named by its tool; other items by their kind (command_execution)
        named = item.get("tool") if item.get("type") == "mcp_tool_call" else None
        if isinstance(named, str) and named:
            # an MCP call: the tool's own arguments are its input (checked against the registry)
            arguments = item.get("arguments")
            return Decoded(
                "codex-exec", [Call(item["id"], named, arguments if arguments is not None else {})]
            )
        return Decoded(
            "codex-exec",
            [
                Call(
                    item["id"],
                    str(item.get("type")),
                    {
                        k: v
                        for k, v in item.items()
                        if k in ("command", "server", "tool", "arguments", "changes", "query")
                    },
                )
            ],
        )
    if kind == "item.completed":
        failed = item.get("status") == "failed" or (
            isinstance(item.get("exit_code"), int) and item["exit_code"] != 0
        )
        return Decoded("codex-exec", [Result(item["id"], failed)])
    return Decoded("codex-exec")
