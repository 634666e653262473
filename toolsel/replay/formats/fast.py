"""The fast path of format detection: JSON lines decoded straight into msgspec structs that
hold only the fields replay reads, for the shapes most lines have (Claude Code messages,
stream-json messages, Codex rollout lines).

A tool result's text, a reasoning item's encrypted content and every other field replay
does not read are skipped by the parser, never built as Python objects. A call's input is
kept as its JSON text, decoded on use (`Call.encoded`).

The result is the one `detect` gives on the full parse, or the line takes the full path:
  - the struct types are narrow, so a value of any other type fails validation;
  - a line of another shape, of a type its format does not know, or that the full path
    would refuse (not UTF-8, blank, not JSON, nested too deep) goes to `detect`;
  - a block that is not valid UTF-8 is checked line by line (skipped strings are not
    validated by msgspec).
The one difference: a number beyond a double's range (`1e400`) in a field replay does not
read is skipped, where the full parse refuses the whole line (orjson cannot represent it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final

import msgspec
import orjson
from msgspec import Raw, Struct, UnsetType, field

from toolsel.replay import lines
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
from toolsel.replay.formats import EXEC_EVENTS, codex
from toolsel.replay.formats.claude import (
    CLAUDE_CODE,
    CLAUDE_LINE_TYPES,
    FLAT_RECORDS,
    STREAM_JSON,
    failure_content,
    server_result_failed,
    structured_error,
)
from toolsel.replay.formats.shared import arguments_call
from toolsel.replay.lines import (
    UNREADABLE,
    Progress,
    Reading,
    jsonl_stream,
    line_blocks,
    parse_line,
    read_objects,
    record_special,
)
from toolsel.replay.sizes import raw_content_size, text_bytes

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


class _Fallback:
    __slots__ = ()


#: The line is not one the fast path decodes: the full path reads it.
FALLBACK: Final[Any] = _Fallback()
#: After this many lines, a file whose lines mostly take the full path stops trying the fast
#: one (its structs are decoded for nothing).
TRIAL_LINES = 1000
DECODE_ERRORS = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)
Record = tuple[int, Any, "Decoded | None"]


def records(
    path: str,
    reading: Reading,
    progress: Progress | None,
    detect: Callable[[Any], Decoded | None],
) -> Iterator[Record]:
    """(line number, value, what `detect` makes of it) for every readable line, as
    `read_objects` and `detect` give them. A line the fast path decoded comes with its raw
    bytes as the value (`value` parses them when needed)."""
    handle = jsonl_stream(path)
    if handle is None:
        for number, obj in read_objects(path, reading, progress):
            yield number, obj, detect(obj)
        return
    decode = msgspec.json.Decoder(Line).decode
    untold = 0  # bytes read since progress was last told
    tried = missed = 0  # lines the fast path was tried on, and those it left to the full path
    trying = True
    for first, block, rest in line_blocks(handle, reading):
        if block.__class__ is not bytes:
            record_special(block, first, reading)
            continue
        pieces = block.split(b"\n")
        if rest:  # the block's last line goes on in `rest`
            ends = rest.endswith(b"\n")
            pieces[-1] += rest[:-1] if ends else rest
            # a character may be cut at the block's end: then each line is checked
            checked = block.isascii() and rest.isascii()
        else:
            ends = block.endswith(b"\n")
            if ends:
                pieces.pop()  # the empty text after the last line break
            checked = block.isascii() or _is_utf8(block)
        if progress is not None:
            untold = _tell(progress, pieces, first, ends, untold)
        last = len(pieces) - 1
        if trying and tried >= TRIAL_LINES and missed * 2 > tried:
            trying = False  # a file of other shapes (OpenAI Chat): the full path only
        tried += len(pieces)
        for offset, piece in enumerate(pieces):
            if trying and (checked or piece.isascii() or _is_utf8(piece)):
                try:
                    line = decode(piece)
                except DECODE_ERRORS:
                    pass
                else:
                    decoded = decode_line(line)
                    if decoded is not FALLBACK:
                        yield first + offset, piece, decoded
                        continue
            missed += 1
            raw = piece + b"\n" if ends or offset < last else piece
            obj = parse_line(raw, first + offset, reading)
            if obj is not UNREADABLE:
                yield first + offset, obj, detect(obj)
    if progress is not None and untold:
        progress(untold)


def _tell(progress: Progress, pieces: list[bytes], first: int, ends: bool, untold: int) -> int:
    """Tell `progress` the bytes read at every PROGRESS_LINES-th line of a block, as
    `read_objects` does; the bytes not told yet."""
    every = lines.PROGRESS_LINES
    told = 0  # pieces already told
    line = -(-first // every) * every  # the first such line from `first`
    while line < first + len(pieces):
        upto = line - first + 1
        breaks = upto - told - (upto == len(pieces) and not ends)
        progress(untold + sum(map(len, pieces[told:upto])) + breaks)
        untold, told, line = 0, upto, line + every
    rest = pieces[told:]
    return untold + sum(map(len, rest)) + len(rest) - (0 if ends or not rest else 1)


def value(obj: Any) -> Any:
    """The JSON value of a record `records` gave (the fast path gives its raw bytes)."""
    if obj.__class__ is not bytes:
        return obj
    try:
        return orjson.loads(obj)
    except orjson.JSONDecodeError:  # a number beyond a double's range, which it skipped
        return None


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def decode_line(line: Line) -> Any:
    """What `detect` gives for the line, or FALLBACK (the same branches, in its order)."""
    kind = line.type
    if kind is ABSENT:
        kind = None
    if line.role is not ABSENT and kind is None:
        return FALLBACK  # a chat message
    if line.system_payload is not ABSENT or (
        type(line.message) is Message and line.message.parts is not ABSENT
    ):
        return FALLBACK  # Qwen Code's records, in Claude Code's envelope
    if (
        (kind == "assistant" or kind == "user")
        and line.uuid is not ABSENT
        and line.parent_tool_use_id is ABSENT
    ):
        return _claude_message(line, kind)
    if line.payload is not ABSENT:
        return _rollout(line, line.payload)
    if kind is not None and (kind.startswith("item.") or kind in EXEC_EVENTS or kind == "error"):
        return FALLBACK  # a `codex exec` event
    if (
        line.parent_tool_use_id is not ABSENT
        or kind == "result"
        or (kind == "system" and line.session_id is not ABSENT)
    ):
        return _stream_message(line)
    if (
        kind is not None
        and kind in CLAUDE_LINE_TYPES
        and (
            line.uuid is not ABSENT
            or (line.session is not ABSENT and kind not in FLAT_RECORDS)
            or kind in ("summary", "file-history-snapshot")
        )
    ):
        if kind == "user" or kind == "assistant":
            return _claude_message(line, kind)
        if kind in FLAT_RECORDS:
            return FALLBACK
        agent = line.agent_id
        return CLAUDE_CODE, ([AgentFile(agent)] if agent and type(agent) is str else NOTHING)
    return FALLBACK


def _claude_message(line: Line, kind: str) -> Decoded:
    """`claude.claude_message` on the struct."""
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
    if kind == "user" and not sidechain and not line.meta:
        text = _human_text(content)
        if text is not None:
            events.append(Human(text))
    return CLAUDE_CODE, events


def _stream_message(line: Line) -> Decoded:
    """`claude.stream_message` on the struct."""
    message = line.message
    content = ABSENT if message is ABSENT or message is None else message.content
    parent = line.parent_tool_use_id
    if parent is ABSENT:
        parent = None
    if type(content) is str:
        text = human_text(content) if line.type == "user" else None
        return STREAM_JSON, [Human(text)] if text is not None and parent is None else NOTHING
    if type(content) is not list:
        session = line.session_id
        if line.type == "system" and type(session) is str:
            return STREAM_JSON, [Session(session)]
        return STREAM_JSON, NOTHING
    assert message is not ABSENT and message is not None
    events: list[Event] = []
    if line.type == "user" and parent is None:
        text = _human_text(content)
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
            events.append(
                Result(
                    call_id if type(call_id) is str else "",
                    failed,
                    parent,
                    timestamp,
                    agent,
                    False,  # implicit
                    error,
                    0 if raw is ABSENT else raw_content_size(bytes(raw)),
                )
            )


def _raw_value(raw: Raw | UnsetType) -> Any:
    """A raw JSON value decoded (None when absent or not JSON)."""
    if raw is ABSENT:
        return None
    try:
        return msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return None


def _human_text(content: Any) -> str | None:
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


def _rollout(line: Line, payload: Payload) -> Any:
    """`codex.rollout` on the struct, for the common lines (FALLBACK for the others)."""
    line_type = line.type
    kind = payload.type
    if line_type == "response_item":
        if type(kind) is not str:
            return FALLBACK
        timestamp = line.timestamp if type(line.timestamp) is str else None
        if kind == "function_call" or kind == "custom_tool_call":
            call_id = payload.call_id
            if type(call_id) is not str:
                return FALLBACK
            raw: Any = payload.arguments
            if raw is ABSENT:
                raw = payload.input
                if raw is ABSENT and payload.action is not ABSENT:
                    return FALLBACK  # an action as the arguments
            name = payload.name
            tool = name if type(name) is str and name else kind
            return codex.ROLLOUT, [
                arguments_call(call_id, tool, None if raw is ABSENT else raw, timestamp, kind=kind)
            ]
        if kind == "function_call_output" or kind == "custom_tool_call_output":
            call_id, output = payload.call_id, payload.output
            if (
                type(call_id) is not str
                or type(output) is not str
                or payload.status is not ABSENT
                or payload.success is not ABSENT
            ):
                return FALLBACK
            failed = output_failed(output)
            error = output if failed else None
            size = text_bytes(output)
            return codex.ROLLOUT, [
                Result(call_id, failed, timestamp=timestamp, error=error, size=size)
            ]
        if kind == "message" and payload.role == "user":
            text = _human_text(payload.content)
            return codex.ROLLOUT, [Human(text)] if text is not None else []
        if kind in codex.RESPONSES_OTHER:
            return codex.ROLLOUT, NOTHING
        return FALLBACK
    if line_type == "event_msg":
        if type(kind) is str and kind in codex.END_EVENTS:
            return FALLBACK
        return codex.ROLLOUT, NOTHING
    if line_type == "session_meta" and type(payload.id) is str:
        return codex.ROLLOUT, [Session(payload.id)]
    if type(line_type) is str and line_type in codex.ROLLOUT_LINES:
        return codex.ROLLOUT, NOTHING
    return FALLBACK


class _Metadata(Struct, gc=False):
    metadata: Raw | UnsetType = ABSENT


_decode_output = msgspec.json.Decoder(_Metadata).decode


def output_failed(output: str) -> bool:
    """`codex.output_failed`, reading only `metadata` of a JSON output (its text is skipped)."""
    if output.startswith("{"):
        try:
            metadata = _decode_output(output).metadata
        except DECODE_ERRORS:
            return codex.output_failed(output)
        if metadata is ABSENT:
            return False
        try:
            parsed = orjson.loads(memoryview(metadata))
        except orjson.JSONDecodeError:
            return codex.output_failed(output)
        code = parsed.get("exit_code") if type(parsed) is dict else None
        return type(code) is int and code != 0
    return codex.output_failed(output)
