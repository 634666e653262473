"""Claude Code session files (`~/.claude/projects/*/*.jsonl`) and the Agent SDK's
stream-json output (`claude -p --output-format stream-json`).

Both carry Anthropic message content blocks: `tool_use` blocks are calls, `tool_result`
blocks are results. Claude Code lines say who their sub-agent is through sidechains
(1.0.x) or an `agentId` (2.x); stream-json lines name their parent call in
`parent_tool_use_id`. `progress` lines are copies of sub-agent messages and never count.
"""

from __future__ import annotations

from typing import Any

from toolsel.replay.events import (
    NOTHING,
    UNSET,
    AgentFile,
    Call,
    Decoded,
    Event,
    Human,
    Result,
    Session,
    SidechainStart,
    human_text,
)
from toolsel.replay.formats.shared import as_text, human, outcome, stamp_of, text_id
from toolsel.replay.sizes import content_size

CLAUDE_CODE = "claude-code"
STREAM_JSON = "stream-json"
CLAUDE_LINE_TYPES = frozenset(
    {"user", "assistant", "system", "summary", "progress", "file-history-snapshot", "queue-operation",
     "last-prompt", "custom-title", "ai-title", "permission-mode", "attachment", "pr-link", "worktree-state", "mode",
     "tool_use", "tool_result"}
)  # fmt: skip
#: Records of the oldest sessions: a call or a result on its own line, with no message.
FLAT_RECORDS = frozenset({"tool_use", "tool_result"})


def claude_code(obj: Any) -> Decoded | None:
    """Any Claude Code session line (`--input-format claude-code`)."""
    if type(obj) is not dict:
        return None
    kind = obj.get("type")
    if type(kind) is not str or kind not in CLAUDE_LINE_TYPES:
        return None
    if kind == "user" or kind == "assistant":
        return claude_message(obj, kind)
    if kind in FLAT_RECORDS:
        return CLAUDE_CODE, flat_record(obj, kind)
    agent = obj.get("agentId")
    return CLAUDE_CODE, ([AgentFile(agent)] if agent and type(agent) is str else NOTHING)


def claude_message(obj: dict[str, Any], kind: str) -> Decoded:
    """A Claude Code `user` or `assistant` line: the hot path of every session file."""
    events: list[Event] = []
    agent = obj.get("agentId")
    if agent and type(agent) is str:
        events.append(AgentFile(agent))
    message = obj.get("message")
    if type(message) is not dict:
        return CLAUDE_CODE, events
    content = message.get("content")
    sidechain = bool(obj.get("isSidechain"))
    if type(content) is list:
        timestamp = obj.get("timestamp")
        add_blocks(
            events,
            content,
            message.get("id"),
            UNSET,
            timestamp if type(timestamp) is str else None,
            sidechain,
            obj["toolUseResult"] if "toolUseResult" in obj else obj.get("tool_use_result"),
        )
    elif sidechain and kind == "user" and type(content) is str and obj.get("parentUuid") is None:
        events.append(SidechainStart(content))
    if kind == "user" and not sidechain and not obj.get("isMeta"):
        text = human_text(content)
        if text is not None:
            events.append(Human(text))
    return CLAUDE_CODE, events


def flat_record(obj: dict[str, Any], kind: str) -> list[Event]:
    """An old flat `{type: tool_use, name, input}` or `{type: tool_result, output}` record:
    its ids, when it has any, are `id` and `tool_use_id`."""
    stamp = stamp_of(obj.get("timestamp"))
    if kind == "tool_use":
        name = obj.get("name", "")
        tool = name if type(name) is str else str(name)
        return [Call(text_id(obj.get("id")), tool, obj.get("input", {}), timestamp=stamp)]
    call_id, output = text_id(obj.get("tool_use_id")), obj.get("output", obj.get("content"))
    failed = obj.get("is_error") is True
    return [outcome(call_id, failed, output, content_size(output), timestamp=stamp)]


def stream_json(obj: Any) -> Decoded | None:
    """An Agent SDK message (`--input-format stream-json`): its parent is always explicit."""
    if type(obj) is not dict or (
        type(obj.get("type")) is not str and "parent_tool_use_id" not in obj
    ):
        return None
    return stream_message(obj)


def stream_message(obj: dict[str, Any]) -> Decoded:
    message = obj.get("message")
    if type(message) is dict and type(message.get("content")) is str:
        # a prompt sent as plain text (`--input-format stream-json` input lines)
        person = obj.get("type") == "user" and obj.get("parent_tool_use_id") is None
        return STREAM_JSON, human(message["content"]) if person else NOTHING
    if type(message) is not dict or type(message.get("content")) is not list:
        session = obj.get("session_id")
        if obj.get("type") == "system" and type(session) is str:
            return STREAM_JSON, [Session(session)]  # the init line names the session
        return STREAM_JSON, NOTHING
    parent = obj.get("parent_tool_use_id")
    timestamp = obj.get("timestamp")
    events: list[Event] = []
    if obj.get("type") == "user" and parent is None:
        text = human_text(message["content"])
        if text is not None:
            events.append(Human(text))
    add_blocks(
        events,
        message["content"],
        message.get("id"),
        parent if type(parent) is str else None,
        timestamp if type(timestamp) is str else None,
        bool(obj.get("isSidechain")),
        obj["toolUseResult"] if "toolUseResult" in obj else obj.get("tool_use_result"),
    )
    return STREAM_JSON, events


def add_blocks(
    events: list[Event],
    content: list[Any],
    message_id: Any,
    parent: Any,
    timestamp: str | None,
    sidechain: bool,
    structured: Any,
) -> None:
    """Append the calls and results among Anthropic content blocks (`tool_use`,
    `server_tool_use`, `mcp_tool_use`; `tool_result` and its server variants)."""
    msg_id = message_id if type(message_id) is str else None
    for block in content:
        if type(block) is not dict:
            continue
        kind = block.get("type")
        if kind == "tool_use" or (type(kind) is str and kind.endswith("tool_use")):
            call_id = block.get("id")
            name = block.get("name", "")
            events.append(
                Call(
                    call_id if type(call_id) is str else text_id(call_id),  # "": no id, by position
                    as_text(name),
                    block["input"] if "input" in block else {},  # noqa: SIM401 - .get() builds the default on every call
                    message_id=msg_id,
                    parent=parent,
                    timestamp=timestamp,
                    sidechain=sidechain,
                )
            )
        elif kind == "tool_result" or (type(kind) is str and kind.endswith("tool_result")):
            call_id = block.get("tool_use_id")
            flag = block.get("is_error")
            if type(flag) is bool:
                failed = flag
            elif kind != "tool_result":
                failed = server_result_failed(block.get("content"))
            else:
                failed = structured_error(structured)
            events.append(
                Result(
                    call_id if type(call_id) is str else text_id(call_id),
                    failed,
                    parent=parent,
                    timestamp=timestamp,
                    agent_id=_agent_id(structured) if structured is not None else None,
                    error=failure_content(block.get("content"), structured) if failed else None,
                    size=content_size(block.get("content")),
                )
            )


def server_result_failed(content: Any) -> bool:
    """A server tool's result block (`web_search_tool_result`, `code_execution_tool_result`,
    ...) carries no `is_error`: it failed when its content is an error object (its `type`
    ends in `_error`, such as `web_search_tool_result_error`), or is code execution's
    outcome with a non-zero `return_code`."""
    if type(content) is not dict:
        return False
    kind = content.get("type")
    if type(kind) is str and kind.endswith("_error"):
        return True
    code = content.get("return_code")
    return type(code) is int and code != 0


def failure_content(content: Any, structured: Any) -> Any:
    """What a failing result said: its content, else a `toolUseResult` string."""
    return content or (structured if type(structured) is str else None)


def structured_error(structured: Any) -> bool:
    """Claude Code's `toolUseResult` as a string says an error when the block does not."""
    return type(structured) is str and structured.startswith(("Error", "User rejected"))


def _agent_id(structured: Any) -> str | None:
    if type(structured) is not dict:
        return None
    agent = structured.get("agentId")
    return agent if type(agent) is str else None
