"""The fast path's Claude Code and stream-json messages (`claude.claude_message` and
`claude.stream_message` on the structs of `fast_shapes`)."""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import Raw, UnsetType

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
from toolsel.replay.formats.claude import (
    CLAUDE_CODE,
    STREAM_JSON,
    failure_content,
    server_result_failed,
    structured_error,
)
from toolsel.replay.formats.fast_shapes import ABSENT, Block, Line, Structured
from toolsel.replay.sizes import raw_content_size


def claude_message(line: Line, kind: str, humans: bool = True) -> Decoded:
    """`claude.claude_message` on the struct (a person's message only with `humans`)."""
    events: list[Event] = []
    agent = line.agent_id
    if agent and type(agent) is str:
        events.append(AgentFile(agent))
    message = line.message
    if message is ABSENT or message is None:
        return CLAUDE_CODE, events
    content = message.content
    sidechain = bool(line.sidechain)
    if type(content) is list:
        _add_blocks(
            events,
            content,
            message.id,
            UNSET,
            line.timestamp if type(line.timestamp) is str else None,
            sidechain,
            line,
        )
    elif (
        sidechain
        and kind == "user"
        and type(content) is str
        and (line.parent_uuid is ABSENT or line.parent_uuid is None)
    ):
        events.append(SidechainStart(content))
    if humans and kind == "user" and not sidechain and not line.meta:
        text = struct_human_text(content)
        if text is not None:
            events.append(Human(text))
    return CLAUDE_CODE, events


def stream_message(line: Line, humans: bool = True) -> Decoded:
    """`claude.stream_message` on the struct (a person's message only with `humans`)."""
    message = line.message
    content = ABSENT if message is ABSENT or message is None else message.content
    parent = line.parent_tool_use_id
    if parent is ABSENT:
        parent = None
    if type(content) is str:
        text = human_text(content) if humans and line.type == "user" else None
        return STREAM_JSON, [Human(text)] if text is not None and parent is None else NOTHING
    if type(content) is not list:
        session = line.session_id
        if line.type == "system" and type(session) is str:
            return STREAM_JSON, [Session(session)]
        return STREAM_JSON, NOTHING
    assert message is not ABSENT and message is not None
    events: list[Event] = []
    if humans and line.type == "user" and parent is None:
        text = struct_human_text(content)
        if text is not None:
            events.append(Human(text))
    _add_blocks(
        events,
        content,
        message.id,
        parent,
        line.timestamp if type(line.timestamp) is str else None,
        bool(line.sidechain),
        line,
    )
    return STREAM_JSON, events


def _structured(line: Line) -> Any:
    """`toolUseResult`, else `tool_use_result` (None when neither is there)."""
    if line.tool_use_result is not ABSENT:
        return line.tool_use_result
    sdk = line.tool_use_result_sdk
    return None if sdk is ABSENT else sdk


def _add_blocks(
    events: list[Event],
    content: list[Block],
    message_id: Any,
    parent: Any,
    timestamp: str | None,
    sidechain: bool,
    line: Line,
) -> None:
    """`claude.add_blocks` on structs: a call's input stays JSON text until it is used.
    (Events are built with positional arguments: keywords cost twice as much here.)"""
    msg_id = message_id if type(message_id) is str else None
    for block in content:
        kind = block.type
        if type(kind) is not str:
            continue
        if kind == "tool_use" or kind.endswith("tool_use"):
            call_id, name, raw = block.id, block.name, block.input
            if raw is ABSENT:
                arguments: Any = {}
            else:
                arguments = bytes(raw)
            events.append(
                Call(
                    call_id if type(call_id) is str else "",
                    name if type(name) is str else ("" if name is ABSENT else "None"),
                    arguments,
                    msg_id,
                    parent,
                    timestamp,
                    sidechain,
                    raw is not ABSENT,  # encoded
                )
            )
        elif kind == "tool_result" or kind.endswith("tool_result"):
            events.append(_result(block, kind, line, parent, timestamp))


def _result(block: Block, kind: str, line: Line, parent: Any, timestamp: str | None) -> Result:
    """A `tool_result` block (or a server tool's `*_tool_result`) as a Result."""
    call_id, flag = block.tool_use_id, block.is_error
    structured = _structured(line)
    agent = None
    if structured.__class__ is Structured:
        agent = structured.agent_id if type(structured.agent_id) is str else None
    if type(flag) is bool:
        failed = flag
    elif kind != "tool_result":  # a server tool's result: its content says
        failed = server_result_failed(_raw_value(block.content))
    else:
        failed = structured_error(structured)
    error = None
    if failed:  # the content is decoded for an error only
        error = failure_content(_raw_value(block.content), structured)
    raw = block.content
    return Result(
        call_id if type(call_id) is str else "",
        failed,
        parent,
        timestamp,
        agent,
        False,  # implicit
        error,
        0 if raw is ABSENT else raw_content_size(bytes(raw)),
    )


def _raw_value(raw: Raw | UnsetType) -> Any:
    """A raw JSON value decoded (None when absent or not JSON)."""
    if raw is ABSENT:
        return None
    try:
        return msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return None


def struct_human_text(content: Any) -> str | None:
    """`events.human_text` on a struct's content."""
    if type(content) is not list:
        return human_text(content if type(content) is str else None)
    parts = []
    for block in content:
        kind = block.type
        if type(kind) is str and kind.endswith("tool_result"):
            return None
        if (kind == "text" or kind == "input_text") and type(block.text) is str:
            parts.append(block.text)
    return human_text("\n".join(parts))
