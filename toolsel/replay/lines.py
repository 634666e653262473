"""Read transcripts: which files a command names, and each file's lines as parsed JSON.

Nothing is lost: every line that cannot be read is kept with its number and the reason
(not UTF-8, not JSON, truncated, over the size limit), and blank lines are counted.
orjson parses each raw line first; only a line that fails is looked at again.
"""

from __future__ import annotations

import glob
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from toolsel.errors import UsageError

MAX_LINE_BYTES = 64 * 1024 * 1024
WHOLE_DOCUMENT_SUFFIXES = (".json", ".traj")
TRANSCRIPT_SUFFIXES = (".jsonl", ".json", ".traj", ".ndjson")
#: Keys under which a whole JSON document keeps its messages (SWE-agent .traj, chat logs,
#: tau-bench runs).
DOCUMENT_LISTS = ("history", "messages", "traj")

#: Called with the number of bytes read since the last call.
Progress = Callable[[int], None]


@dataclass(frozen=True, slots=True)
class Unreadable:
    line: int
    error: str


@dataclass(slots=True)
class Reading:
    """What reading one file found besides its JSON values."""

    lines: int = 0
    blank: int = 0
    unreadable: list[Unreadable] = field(default_factory=list)


def expand_inputs(paths: list[str]) -> list[str]:
    """Files, directories (recursively: *.jsonl, *.json, *.traj, *.ndjson) and globs; '-' is stdin."""
    found: list[str] = []
    for raw in paths:
        if raw == "-":
            found.append(raw)
            continue
        path = Path(raw)
        if path.is_dir():
            found.extend(
                sorted(
                    str(p)
                    for p in path.rglob("*")
                    if p.is_file() and p.suffix in TRANSCRIPT_SUFFIXES
                )
            )
        elif path.is_file():
            found.append(raw)
        elif any(ch in raw for ch in "*?["):
            matches = sorted(glob.glob(raw, recursive=True))  # noqa: PTH207 - user patterns may be absolute
            if not matches:
                raise UsageError(f"{raw}: no file matches this pattern")
            found.extend(matches)
        else:
            raise UsageError(f"{raw}: no such file or directory")
    if not found:
        raise UsageError("no transcript files found", hint="pass files, directories or globs")
    return found


def read_objects(
    path: str, reading: Reading, progress: Progress | None = None
) -> Iterator[tuple[int, Any]]:
    """(line number, parsed JSON) for every readable line; the rest goes into `reading`."""
    handle = _open(path)
    if path == "-" or Path(path).suffix not in WHOLE_DOCUMENT_SUFFIXES:
        return _jsonl(handle, reading, progress, handle)
    with handle:
        data = handle.read()
    document = _whole_document(data)
    if document is None:  # not one JSON document: read it line by line after all
        return _jsonl(iter(data.splitlines(keepends=True)), reading, progress, None)
    reading.lines = 1
    return enumerate(document, start=1)


def _open(path: str) -> IO[bytes]:
    if path == "-":
        return sys.stdin.buffer
    try:
        return Path(path).open("rb")
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _whole_document(data: bytes) -> list[Any] | None:
    try:
        document = orjson.loads(data.removeprefix(b"\xef\xbb\xbf"))
    except orjson.JSONDecodeError:
        return None
    if isinstance(document, list):
        return document
    if isinstance(document, dict):
        for key in DOCUMENT_LISTS:
            if isinstance(document.get(key), list):
                return list(document[key])
        return [document]
    return None


def _jsonl(
    lines: Iterable[bytes], reading: Reading, progress: Progress | None, handle: IO[bytes] | None
) -> Iterator[tuple[int, Any]]:
    """orjson first (JSON allows the trailing newline, CR and spaces); only a line that fails
    is looked at again: a BOM, a blank line, or an unreadable one with its reason. Closes
    `handle` (unless it is stdin) when done."""
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    limit = MAX_LINE_BYTES
    number = consumed = 0
    try:
        for number, raw in enumerate(lines, start=1):
            if progress is not None:
                consumed += len(raw)
                if number % 2048 == 0:
                    progress(consumed)
                    consumed = 0
            if len(raw) > limit and len(raw.rstrip(b"\r\n")) > limit:
                size = len(raw.rstrip(b"\r\n"))
                reading.unreadable.append(
                    Unreadable(number, f"line is {size:,} bytes, over the {limit:,}-byte limit")
                )
                continue
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
    finally:
        if handle is not None and handle is not sys.stdin.buffer:
            handle.close()


_UNREADABLE: Any = object()


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
    reading.unreadable.append(Unreadable(number, _reason(stripped, error, line.endswith(b"\n"))))
    return _UNREADABLE


def _reason(line: bytes, exc: Exception, ends_with_newline: bool) -> str:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"not valid UTF-8 (byte 0x{line[bad.start]:02x} at column {bad.start + 1})"
    if not ends_with_newline and line.lstrip().startswith((b"{", b"[")):
        return "truncated last line (no newline at end of file; the writer was probably killed)"
    return f"not JSON ({str(exc).split(':')[0]})"


def shape(obj: Any) -> str:
    """A short description of a JSON value, for 'unexpected shape' messages."""
    if isinstance(obj, dict):
        keys = ", ".join(sorted(obj)[:5])
        return f"an object with keys {keys}" if keys else "an empty object"
    return type(obj).__name__
