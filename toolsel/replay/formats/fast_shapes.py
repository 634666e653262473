"""The msgspec structs the fast path decodes JSON lines into (`replay.formats.fast`): only
the fields replay reads, of the shapes most lines have (Claude Code and stream-json
messages, Codex rollout lines)."""

from __future__ import annotations

from typing import Any, Final

import msgspec
from msgspec import Raw, Struct, UnsetType, field

#: A key the line does not have (msgspec's UNSET; `events.UNSET` is a parent not given).
ABSENT: Final = msgspec.UNSET
Text = str | None | UnsetType


class Block(Struct, gc=False):
    """An Anthropic content block (or a Responses message part): what calls, results and
    human text need. A tool result's `content` is kept as its JSON text: measured without
    being decoded (`sizes.raw_content_size`), and decoded only for an error."""

    type: Text = ABSENT
    id: Text = ABSENT
    name: Text = ABSENT
    input: Raw | UnsetType = ABSENT
    tool_use_id: Text = ABSENT
    is_error: bool | UnsetType | None = ABSENT
    text: Text = ABSENT
    content: Raw | UnsetType = ABSENT  # a result's: kept raw, decoded only for an error


Content = str | list[Block] | None | UnsetType


class Message(Struct, gc=False):
    id: Text = ABSENT
    content: Content = ABSENT
    parts: Raw | UnsetType = ABSENT  # Gemini content (a Qwen Code record): the full path


class Structured(Struct, gc=False):
    """Claude Code's `toolUseResult` object: only the sub-agent it launched is read."""

    agent_id: Text = field(name="agentId", default=ABSENT)


StructuredResult = Structured | str | list[Raw] | None | UnsetType


class Payload(Struct, gc=False):
    """A Codex rollout line's payload (a Responses item or an event)."""

    type: Text = ABSENT
    role: Text = ABSENT
    id: Text = ABSENT
    name: Text = ABSENT
    call_id: Text = ABSENT
    arguments: Text = ABSENT
    input: Text = ABSENT
    action: Raw | UnsetType = ABSENT
    output: Text = ABSENT
    status: Raw | UnsetType = ABSENT
    success: Raw | UnsetType = ABSENT
    content: Content = ABSENT


class Line(Struct, gc=False):
    """The keys `detect` tells the common shapes apart by, and what their decoders read."""

    type: Text = ABSENT
    uuid: Raw | UnsetType = ABSENT
    role: Raw | UnsetType = ABSENT
    payload: Payload | UnsetType = ABSENT
    parent_tool_use_id: Text = ABSENT
    session_id: Text = ABSENT
    session: Raw | UnsetType = field(name="sessionId", default=ABSENT)
    message: Message | UnsetType | None = ABSENT
    timestamp: Text = ABSENT
    agent_id: Text = field(name="agentId", default=ABSENT)
    sidechain: bool | UnsetType | None = field(name="isSidechain", default=ABSENT)
    meta: bool | UnsetType | None = field(name="isMeta", default=ABSENT)
    parent_uuid: Text = field(name="parentUuid", default=ABSENT)
    tool_use_result: StructuredResult = field(name="toolUseResult", default=ABSENT)
    tool_use_result_sdk: StructuredResult = field(name="tool_use_result", default=ABSENT)
    system_payload: Raw | UnsetType = field(name="systemPayload", default=ABSENT)  # Qwen Code


class Fallback:
    __slots__ = ()


#: The line is not one the fast path decodes: the full path reads it.
FALLBACK: Final[Any] = Fallback()
DECODE_ERRORS = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)
