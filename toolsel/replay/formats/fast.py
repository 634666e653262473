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

import sys
from collections.abc import Callable, Iterator
from typing import IO, Any

import msgspec
import orjson

from toolsel.inputs import UTF16_BOMS, UTF16_TEXT, BinaryData, LongLine, past_long_line
from toolsel.replay import lines
from toolsel.replay.events import (
    NOTHING,
    AgentFile,
    Decoded,
)
from toolsel.replay.formats import EXEC_EVENTS
from toolsel.replay.formats.claude import (
    CLAUDE_CODE,
    CLAUDE_LINE_TYPES,
    FLAT_RECORDS,
)
from toolsel.replay.formats.fast_claude import claude_message, stream_message
from toolsel.replay.formats.fast_codex import rollout
from toolsel.replay.formats.fast_shapes import (
    ABSENT,
    DECODE_ERRORS,
    FALLBACK,
    Line,
    Message,
)
from toolsel.replay.lines import (
    UNREADABLE,
    Progress,
    Reading,
    Unreadable,
    jsonl_stream,
    parse_line,
    read_objects,
    record_special,
)

#: After this many lines, a file whose lines mostly take the full path stops trying the fast
#: one (its structs are decoded for nothing).
TRIAL_LINES = 1000
Record = tuple[int, Any, "Decoded | None"]


def records(
    path: str,
    reading: Reading,
    progress: Progress | None,
    detect: Callable[[Any], Decoded | None],
    humans: list[bool] | None = None,
) -> Iterator[Record]:
    """(line number, value, what `detect` makes of it) for every readable line, as
    `read_objects` and `detect` give them. A line the fast path decoded comes with its raw
    bytes as the value (`value` parses them when needed). While `humans[0]` is false, a
    person's messages are not worked out on the fast path (`decode_line`)."""
    handle = jsonl_stream(path)
    if handle is None:
        for number, obj in read_objects(path, reading, progress):
            yield number, obj, detect(obj)
        return
    decode = msgspec.json.Decoder(Line).decode
    wanted = humans if humans is not None else [True]
    untold = 0  # bytes read since progress was last told
    tried = missed = 0  # lines the fast path was tried on, and those it left to the full path
    trying = True
    for first, pieces, ends, checked in line_blocks(handle, reading):
        if pieces.__class__ is not list:
            record_special(pieces, first, reading)
            continue
        if progress is not None:
            untold = _tell(progress, pieces, first, ends, untold)
        last = len(pieces) - 1
        if trying and tried >= TRIAL_LINES and missed * 2 > tried:
            trying = False  # a file of other shapes (OpenAI Chat): the full path only
        tried += len(pieces)
        for offset, piece in enumerate(pieces):
            if trying and (checked or piece.isascii() or is_utf8(piece)):
                try:
                    line = decode(piece)
                except DECODE_ERRORS:
                    pass
                else:
                    decoded = decode_line(line, wanted[0])
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


#: Bytes read at a time by `line_blocks` (whole lines are completed past it).
BLOCK_BYTES = 1 << 20


#: A block of lines (`line_blocks`): the number of its first line, its lines without their
#: line breaks (or a `LongLine` or `BinaryData`), whether its last line ends in a break, and
#: whether every line is known to be UTF-8 (else each is checked where it is decoded).
Block = tuple[int, Any, bool, bool]


def line_blocks(handle: IO[bytes], reading: Reading) -> Iterator[Block]:
    """What `bounded_lines` reads, a block of whole lines at a time, about BLOCK_BYTES: the
    rest of a block's last line is read apart, so that the block is never copied to cut it
    at a line break, and its lines are counted by the split (not by `bytes.count`, which
    costs more than the split). A line over MAX_LINE_BYTES comes alone as `LongLine`,
    binary data as `BinaryData` (and the end). Sets `reading.lines`; a read that fails is
    unreadable; closes `handle` (unless it is stdin)."""
    number = 1
    try:
        first = handle.peek(2)[:2] if hasattr(handle, "peek") else b""
        if first in UTF16_BOMS:
            yield 1, BinaryData(UTF16_TEXT), False, False
            number = 2
            return
        # a pipe gives what has arrived (a live session is read as it is written)
        read = handle.read if handle.seekable() else handle.read1  # type: ignore[attr-defined]
        size = min(BLOCK_BYTES, lines.MAX_LINE_BYTES)  # a line in a block is within it
        while block := read(size):
            rest = b""
            if not block.endswith(b"\n"):
                cut = block.rfind(b"\n") + 1
                started = len(block) - cut  # the bytes of the last line in the block
                rest = handle.readline(lines.MAX_LINE_BYTES + 1 - started)
                if started + len(rest) > lines.MAX_LINE_BYTES and not rest.endswith(b"\n"):
                    if cut:
                        found = _block_lines(block[:cut], b"")
                        yield (number, *found)
                        number += len(found[0])
                    special = past_long_line(handle, block[cut:] + rest)
                    yield number, special, False, False
                    number += 1
                    if special.__class__ is not LongLine:
                        return
                    continue
            found = _block_lines(block, rest)
            yield (number, *found)
            number += len(found[0])
    except OSError as error:  # a read that fails half-way (a device, a network file system)
        from toolsel.inputs import os_reason

        last = number - 1  # the line before the failed read, as `read_objects` says
        reading.unreadable.append(Unreadable(last or 1, f"read failed: {os_reason(error)}"))
    finally:
        reading.lines = number - 1
        if handle is not sys.stdin.buffer:
            handle.close()


def _block_lines(block: bytes, rest: bytes) -> tuple[list[bytes], bool, bool]:
    """A block's lines, its last completed by `rest` (whole lines: see `line_blocks`);
    whether the last ends in a line break; whether all are known to be UTF-8."""
    pieces = block.split(b"\n")
    if rest:  # the block's last line goes on in `rest`
        ends = rest.endswith(b"\n")
        pieces[-1] += rest[:-1] if ends else rest
        # a character may be cut at the block's end: then each line is checked
        return pieces, ends, block.isascii() and rest.isascii()
    ends = block.endswith(b"\n")
    if ends:
        pieces.pop()  # the empty text after the last line break
    return pieces, ends, block.isascii() or is_utf8(block)


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def value(obj: Any) -> Any:
    """The JSON value of a record `records` gave (the fast path gives its raw bytes)."""
    if obj.__class__ is not bytes:
        return obj
    try:
        return orjson.loads(obj)
    except orjson.JSONDecodeError:  # a number beyond a double's range, which it skipped
        return None


def decode_line(line: Line, humans: bool = True) -> Any:
    """What `detect` gives for the line, or FALLBACK (the same branches, in its order); a
    person's message is left out unless `humans`."""
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
        return claude_message(line, kind, humans)
    if line.payload is not ABSENT:
        return rollout(line, line.payload)
    if kind is not None and (kind.startswith("item.") or kind in EXEC_EVENTS or kind == "error"):
        return FALLBACK  # a `codex exec` event
    if (
        line.parent_tool_use_id is not ABSENT
        or kind == "result"
        or (kind == "system" and line.session_id is not ABSENT)
    ):
        return stream_message(line, humans)
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
            return claude_message(line, kind, humans)
        if kind in FLAT_RECORDS:
            return FALLBACK
        agent = line.agent_id
        return CLAUDE_CODE, ([AgentFile(agent)] if agent and type(agent) is str else NOTHING)
    return FALLBACK
