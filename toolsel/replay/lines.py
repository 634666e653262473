"""Read transcripts: which files a command names, and each file's lines as parsed JSON.

Nothing is lost: every line that cannot be read is kept with its number and the reason
(not UTF-8, not JSON, truncated, over the size limit), and blank lines are counted.
orjson parses each raw line first; only a line that fails is looked at again.
"""

from __future__ import annotations

import glob
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from toolsel.errors import UsageError
from toolsel.inputs import BadLine, BinaryData, json_reason
from toolsel.replay.documents import document_after_preamble, whole_document

MAX_LINE_BYTES = 64 * 1024 * 1024
WHOLE_DOCUMENT_SUFFIXES = (".json", ".traj")
TRANSCRIPT_SUFFIXES = (".jsonl", ".json", ".traj", ".ndjson")

#: Called with the number of bytes read since the last call.
Progress = Callable[[int], None]


#: A line replay could not read: its number and the reason (one type for every reader).
Unreadable = BadLine


@dataclass(slots=True)
class Reading:
    """What reading one file found besides its JSON values."""

    lines: int = 0
    blank: int = 0
    unreadable: list[Unreadable] = field(default_factory=list)
    #: steps of an agent trajectory whose actions are text (old SWE-agent .traj): if no
    #: call is found, the report says the format has none rather than showing a silent 0
    text_actions: int = 0
    #: the file's first line, when it is not JSON (its opening, up to 80 characters): what a
    #: file of another kind says it is (an Aider chat history opens "# aider chat started")
    first_text: str = ""


def expand_inputs(paths: list[str]) -> list[str]:
    """Files, pipes, directories (recursively: *.jsonl, *.json, *.traj, *.ndjson) and globs;
    '-' is stdin. A path that cannot be read says why (a symlink loop, a dangling symlink)."""
    from toolsel.inputs import InputProblem, check_path
    from toolsel.replay.remote import expand_remote, is_remote

    found: list[str] = []
    for raw in paths:
        if raw == "-":
            found.append(raw)
            continue
        if is_remote(raw):  # s3://, gs://: listed through fsspec
            found.extend(expand_remote(raw))
            continue
        try:
            kind = check_path(raw)
        except InputProblem as problem:
            if any(ch in raw for ch in "*?[") and not Path(raw).exists():
                matches = sorted(glob.glob(raw, recursive=True))  # noqa: PTH207 - user patterns may be absolute
                if not matches:
                    raise UsageError(f"{raw}: no file matches this pattern") from None
                found.extend(matches)
                continue
            raise UsageError(f"{raw}: {problem}") from None
        if kind.is_dir:
            found.extend(transcripts_under(raw))
        else:
            _refuse_companion(raw)
            found.append(raw)
    if not found:
        raise UsageError("no transcript files found", hint="pass files, directories or globs")
    return found


def _refuse_companion(path: str) -> None:
    """A file that sits beside a transcript and holds none (a Cline task's `ui_messages.json`),
    named on its own, is refused with the file to give instead; in a folder it is read as
    nothing."""
    from toolsel.replay.formats.cline import companion_refusal

    refusal = companion_refusal(path)
    if refusal is not None:
        raise UsageError(refusal)


def expand_since(paths: list[str], since: float | None) -> list[str]:
    """The transcript files under `paths` (`expand_inputs`), less those last modified
    before `since`; a usage error when that leaves none."""
    inputs = expand_inputs(paths)
    if since is None:
        return inputs
    inputs = [path for path in inputs if not modified_before(path, since)]
    if not inputs:
        from toolsel.timeparse import iso

        raise UsageError(
            f"no transcript file was modified since {iso(since)}",
            hint="pass an earlier --since, or none",
        )
    return inputs


def modified_before(path: str, since: float) -> bool:
    """Whether a file was last modified before `since` (stdin and unreadable files never
    are: reading them says what is wrong)."""
    if path == "-":
        return False
    try:
        return Path(path).stat().st_mtime < since
    except OSError:
        return False


def transcripts_under(top: str) -> list[str]:
    """The transcript files under a directory, sorted: what `Path(top).rglob("*")` finds
    with a transcript suffix that is not a directory, through `os.scandir` (which knows most
    entries' kind without a stat call each: a tenth of the time on a big archive).
    Symlinked directories are not entered, and an unreadable one is passed over, as rglob
    does. A FIFO, socket or device found in a folder is skipped and named (a warning on the
    "toolsel" logger): reading one would block, or never end. Named directly, it is read."""
    import os

    top = str(Path(top))
    found: list[str] = []
    folders = [top]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    name = entry.name
                    path = name if folder == "." else entry.path  # `folder` joined to `name`
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    if is_dir:
                        if not entry.is_symlink():
                            folders.append(path)
                        continue
                    dot = name.rfind(".")  # `PurePath.suffix`
                    if 0 < dot < len(name) - 1 and name[dot:] in TRANSCRIPT_SUFFIXES:
                        if _not_regular(entry):
                            _skip_special(path, entry)
                            continue
                        found.append(path)
        except PermissionError:
            continue
    found.sort()
    return found


def _not_regular(entry: os.DirEntry[str]) -> bool:
    """Neither a regular file nor a directory (a FIFO, a socket, a device)."""
    import stat

    try:
        return not entry.is_file() and not stat.S_ISREG(entry.stat().st_mode)
    except OSError:
        return False  # unreadable, or a dangling link: the reader says why


def _skip_special(path: str, entry: os.DirEntry[str]) -> None:
    import logging
    import stat

    try:
        mode = entry.stat().st_mode
    except OSError:
        return
    kind = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
    logging.getLogger("toolsel").warning(
        "%s: %s, not a regular file: skipped (name it on the command line to read it)",
        path, kind,
    )  # fmt: skip


def read_objects(
    path: str, reading: Reading, progress: Progress | None = None
) -> Iterator[tuple[int, Any]]:
    """(line number, parsed JSON) for every readable line; the rest goes into `reading`.
    A whole-document file (.json, .traj) up to MAX_LINE_BYTES is parsed whole; anything
    else, and a larger document, is read line by line with the line limit applied."""
    from toolsel.inputs import InputProblem, read_bounded
    from toolsel.replay.remote import is_remote, read_remote

    if path != "-" and suffix(path) in WHOLE_DOCUMENT_SUFFIXES:
        try:
            whole = read_remote(path, MAX_LINE_BYTES) if is_remote(path) else None
            data = whole if whole is not None else read_bounded(path, MAX_LINE_BYTES)
        except InputProblem:
            pass  # too large, binary or unreadable: the line reader says which, per line
        else:
            document = whole_document(data, reading)
            if document is None:
                document = document_after_preamble(data, reading)
            if document is not None:
                return iter(document)
            return _jsonl(_split(data), reading, progress, None)
    handle = _open(path)
    from toolsel.inputs import bounded_lines

    stream = handle if hasattr(handle, "peek") else _buffered(b"", handle)
    if _starts_an_array(stream):
        # a JSON array of messages (claude-code-action's output), whatever the file's name
        data = stream.read(MAX_LINE_BYTES + 1)
        if len(data) <= MAX_LINE_BYTES:
            if handle is not sys.stdin.buffer:
                handle.close()
            document = whole_document(data, reading)
            if document is not None:
                return iter(document)
            return _jsonl(_split(data), reading, progress, None)
        stream = _buffered(data, stream)
    return _jsonl(bounded_lines(stream, MAX_LINE_BYTES), reading, progress, handle)


def jsonl_stream(path: str) -> IO[bytes] | None:
    """The open input when `read_objects` would read it as JSON lines (not a whole-document
    file, not a JSON array), else None (and nothing is consumed: stdin keeps what was
    peeked)."""
    if path != "-" and suffix(path) in WHOLE_DOCUMENT_SUFFIXES:
        return None
    handle = _open(path)
    if hasattr(handle, "peek") and not _starts_an_array(handle):
        return handle
    if handle is not sys.stdin.buffer:
        handle.close()
    return None


def suffix(path: str) -> str:
    """`Path(path).suffix`, without building a Path (once per file read): the last
    component's, when it is a plain name."""
    name = path.rpartition(os.sep)[2]
    if not name or name == "." or (os.altsep and os.altsep in name):
        return Path(path).suffix
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def parse_line(raw: bytes, number: int, reading: Reading) -> Any:
    """One JSON line as `read_objects` reads it (`raw` with its line break): the value, or
    `UNREADABLE` once the reason (or a blank line) is recorded in `reading`."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        return _second_look(raw, number, error, reading)


def _buffered(first: bytes, rest: IO[bytes]) -> IO[bytes]:
    """`first`, then the rest of `rest`, as one buffered stream (which can peek)."""
    import io

    return io.BufferedReader(_Chain(first, rest))  # type: ignore[type-var]


def _starts_an_array(handle: IO[bytes]) -> bool:
    """Whether the input's first non-blank byte opens a JSON array (peeked, not consumed)."""
    peek = getattr(handle, "peek", None)
    if peek is None:
        return False
    try:
        head: bytes = peek(256)[:256]
    except OSError:
        return False
    return head.removeprefix(b"\xef\xbb\xbf").lstrip().startswith(b"[")


class _Chain:
    """Bytes already read, then the rest of a stream, as one raw stream."""

    def __init__(self, first: bytes, rest: IO[bytes]) -> None:
        self.first, self.rest = memoryview(first), rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:
        if self.first:
            n = min(len(buffer), len(self.first))
            buffer[:n] = self.first[:n]
            self.first = self.first[n:]
            return n
        data = self.rest.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    @property
    def closed(self) -> bool:
        return False


def _split(data: bytes) -> Iterator[bytes]:
    return iter(data.splitlines(keepends=True))


def _open(path: str) -> IO[bytes]:
    if path == "-":
        return sys.stdin.buffer
    from toolsel.inputs import os_reason
    from toolsel.replay.remote import is_remote, open_remote

    if is_remote(path):
        return open_remote(path)

    try:
        return open(path or ".", "rb")  # noqa: PTH123 - a Path costs more than the open
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {os_reason(exc)}") from None


#: `read_objects` tells its progress every this many lines.
PROGRESS_LINES = 2048


def _jsonl(
    lines: Iterable[Any], reading: Reading, progress: Progress | None, handle: IO[bytes] | None
) -> Iterator[tuple[int, Any]]:
    """orjson first (JSON allows the trailing newline, CR and spaces); only a line that fails
    is looked at again: a BOM, a blank line, or an unreadable one with its reason. A line
    over the limit arrives as `LongLine` and binary data as `BinaryData` (see
    `toolsel.inputs.bounded_lines`). Closes `handle` (unless it is stdin) when done."""
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    number = consumed = 0
    try:
        for number, raw in enumerate(lines, start=1):
            if raw.__class__ is not bytes:
                if record_special(raw, number, reading):
                    break
                continue
            if progress is not None:
                consumed += len(raw)
                if number % PROGRESS_LINES == 0:
                    progress(consumed)
                    consumed = 0
            try:
                parsed = loads(raw)
            except decode_error as error:
                parsed = _second_look(raw, number, error, reading)
                if parsed is _UNREADABLE:
                    continue
            yield number, parsed
        reading.lines = number
        if progress is not None and consumed:
            progress(consumed)
    except OSError as error:  # a read that fails half-way (a device, a network file system)
        from toolsel.inputs import os_reason

        reading.lines = number
        reading.unreadable.append(Unreadable(number or 1, f"read failed: {os_reason(error)}"))
    finally:
        if handle is not None and handle is not sys.stdin.buffer:
            handle.close()


def record_special(item: Any, number: int, reading: Reading) -> bool:
    """Record an over-long line or binary data; True when reading must stop (after binary
    data, as `line_blocks` does)."""

    if isinstance(item, BinaryData):
        reading.unreadable.append(
            Unreadable(number, f"{item.reason}; the rest of the file was not read")
        )
        return True
    limit = MAX_LINE_BYTES
    reading.unreadable.append(
        Unreadable(number, f"line is {item.size:,} bytes, over the {limit:,}-byte limit")
    )
    return False


_UNREADABLE: Any = object()
#: What `parse_line` returns for a line it could not read (compared by identity).
UNREADABLE: Any = _UNREADABLE


def _second_look(raw: bytes, number: int, error: Exception, reading: Reading) -> Any:
    """A line orjson refused: a BOM on the first line is dropped and the line read again; a
    blank line is counted; anything else is unreadable, with its reason."""
    line = raw.removeprefix(b"\xef\xbb\xbf") if number == 1 else raw
    stripped = line.rstrip(b"\r\n")
    if not stripped or stripped.isspace():
        reading.blank += 1
        return _UNREADABLE
    if line is not raw:
        try:
            return orjson.loads(stripped)
        except orjson.JSONDecodeError as again:
            error = again
    reason = json_reason(stripped, error, ends_with_newline=line.endswith(b"\n"))
    reading.unreadable.append(Unreadable(number, reason))
    if number == 1:
        reading.first_text = stripped[:80].decode("utf-8", errors="replace")
    return _UNREADABLE


def shape(obj: Any) -> str:
    """A short description of a JSON value, for 'unexpected shape' messages."""
    if isinstance(obj, dict):
        keys = ", ".join(sorted(obj)[:5])
        return f"an object with keys {keys}" if keys else "an empty object"
    return type(obj).__name__
