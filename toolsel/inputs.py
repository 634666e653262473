"""Reading input files safely, for every command: what a path is, with the accurate reason
when it cannot be read (`check_path`), a whole file under a byte limit (`read_bounded`), and
a stream's lines under a per-line limit applied while reading (`bounded_lines`): no input,
however long, is ever held whole. FIFOs and character devices are inputs like any other
(`-r <(curl …)`, `/dev/stdin`): `/dev/null` is an empty input.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from itertools import chain
from pathlib import Path
from typing import IO

#: How much is read at once while skipping an over-long line or reading a non-regular file.
CHUNK = 1024 * 1024
#: Bytes sniffed for NULs (binary data) at the start of a whole-file read.
SNIFF = 8192
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
UTF16_TEXT = "UTF-16 text (byte-order mark); save the file as UTF-8"
_NUL = "binary data (NUL bytes), not text"


class InputProblem(Exception):
    """A file that cannot be used as input; `str()` is the reason, without the file name.
    `missing`: the path names nothing at all (not even a dangling symlink)."""

    def __init__(self, reason: str, *, missing: bool = False) -> None:
        super().__init__(reason)
        self.missing = missing


class TooLarge(InputProblem):
    def __init__(self, size: int | None, limit: int) -> None:
        self.size, self.limit = size, limit
        what = f"is {size:,} bytes" if size is not None else "is larger than that"
        super().__init__(f"file {what}, over the {limit:,}-byte limit")


class Binary(InputProblem):
    pass


def binary_reason(data: bytes) -> str | None:
    """Why `data` (the start of a file) is not text, or None."""
    if data.startswith(UTF16_BOMS):
        return UTF16_TEXT
    if b"\0" in data[:SNIFF]:
        return _NUL
    return None


def _problem(path: str | os.PathLike[str], error: OSError) -> InputProblem:
    if error.errno == errno.ENOENT:
        if Path(path).is_symlink():
            return InputProblem("a symlink to a file that does not exist")
        return InputProblem("no such file or directory", missing=True)
    return InputProblem(os_reason(error))


def os_reason(error: OSError) -> str:
    """An OSError as a short reason: "permission denied", "too many levels of symbolic links"."""
    if error.errno == errno.ELOOP:
        return "too many levels of symbolic links (a symlink loop)"
    if error.errno == errno.ENOENT and error.filename is not None:
        return "no such file or directory"
    return (error.strerror or str(error)).lower()


@dataclass(frozen=True, slots=True)
class PathKind:
    """What `check_path` found: a directory, a regular file, or a stream (FIFO, device)."""

    is_dir: bool = False
    is_file: bool = False
    is_stream: bool = False


def check_path(path: str | os.PathLike[str]) -> PathKind:
    """What `path` is. Raises InputProblem with the accurate reason when it cannot be an
    input: missing (and whether a symlink dangles), a symlink loop, no permission, a socket."""
    try:
        info = Path(path).stat()
    except OSError as error:
        raise _problem(path, error) from None
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        return PathKind(is_dir=True)
    if stat.S_ISREG(mode):
        return PathKind(is_file=True)
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return PathKind(is_stream=True)
    raise InputProblem("not a file, a pipe or a directory (a socket or a block device)")


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes:
    """The whole file, at most `limit` bytes; raises InputProblem (TooLarge, Binary, or an
    OS reason). A regular file's size is checked before anything is read."""
    try:
        handle = Path(path).open("rb", buffering=0)  # noqa: SIM115 - the with below closes it
    except OSError as error:
        raise _problem(path, error) from None
    with handle:
        try:
            info = os.fstat(handle.fileno())
            if stat.S_ISDIR(info.st_mode):
                raise InputProblem("is a directory")
            if stat.S_ISREG(info.st_mode) and info.st_size > limit:
                raise TooLarge(info.st_size, limit)
            chunks: list[bytes] = []
            total = 0
            while True:
                chunk = handle.read(min(CHUNK, limit + 1 - total))
                if not chunk:
                    break
                if not chunks and (reason := binary_reason(chunk)):
                    raise Binary(reason)
                chunks.append(chunk)
                total += len(chunk)
                if total > limit:
                    raise TooLarge(None, limit)
        except OSError as error:
            raise InputProblem(os_reason(error)) from None
    return b"".join(chunks)


@dataclass(frozen=True, slots=True)
class LongLine:
    """A line over the limit, skipped: its size in bytes (without the line break)."""

    size: int


@dataclass(frozen=True, slots=True)
class BinaryData:
    """NUL bytes where a line of text was expected; nothing after it is read."""

    reason: str


def bounded_lines(handle: IO[bytes], limit: int) -> Iterator[bytes | LongLine | BinaryData]:
    """Each line (with its line break) as bytes, never more than `limit` bytes held; a longer
    line is read past in chunks and yielded as `LongLine`. Binary data (a NUL byte in an
    over-long line, or UTF-16 at the start) yields one `BinaryData` and ends the lines.

    A NUL inside a short line is left to the caller's parser, which refuses it anyway; this
    keeps the common path to one C-level `readline` per line."""
    readline = handle.readline
    first = True
    while True:
        raw = readline(limit + 1)
        if not raw:
            return
        if first:
            first = False
            if raw.startswith(UTF16_BOMS):
                yield BinaryData(UTF16_TEXT)
                return
        if len(raw) <= limit or raw.endswith(b"\n"):
            yield raw
            continue
        skipped = past_long_line(handle, raw)
        yield skipped
        if skipped.__class__ is BinaryData:
            return


def past_long_line(handle: IO[bytes], start: bytes) -> LongLine | BinaryData:
    """Read past the rest of a line over the limit, whose first bytes (`start`, with no line
    break) were read, never holding it: its size as `LongLine`, or `BinaryData` when it
    holds a NUL byte."""
    size = 0
    for chunk in chain([start], iter(partial(handle.readline, CHUNK), b"")):
        if b"\0" in chunk:
            return BinaryData(_NUL)
        size += len(chunk)
        if chunk.endswith(b"\n"):
            size -= 1 + chunk.endswith(b"\r\n")
            break
    return LongLine(size)


@dataclass(frozen=True, slots=True)
class BadLine:
    """A line that could not be read, with its 1-based number, the reason, and the 1-based
    column where it stops being readable (0 when the whole line is)."""

    line: int
    error: str
    column: int = 0


@dataclass(frozen=True, slots=True)
class JsonLine:
    """One JSON value read from a JSON-lines file: its line number, the value, and the
    line's bytes (to find positions inside it)."""

    line: int
    value: object
    raw: bytes


#: Longest line of a query or case file (a prompt and a few names; far above any real one).
QUERY_LINE_BYTES = 1024 * 1024


def jsonl_values(
    path: str | os.PathLike[str], limit: int = QUERY_LINE_BYTES
) -> Iterator[tuple[int, object] | BadLine]:
    """(line number, parsed JSON) for each non-blank line of a JSON-lines file, and a
    BadLine for each line that is not JSON, too long, or binary (which ends the file).
    Raises InputProblem when the file cannot be opened."""
    try:
        handle = Path(path).open("rb")  # noqa: SIM115 - the with below closes it
    except OSError as error:
        raise _problem(path, error) from None
    with handle:
        for item in jsonl_records(handle, limit):
            yield item if isinstance(item, BadLine) else (item.line, item.value)


def jsonl_records(handle: IO[bytes], limit: int = QUERY_LINE_BYTES) -> Iterator[JsonLine | BadLine]:
    """Each non-blank line of an open JSON-lines stream as a JsonLine, and a BadLine for
    each line that is not JSON, too long, or binary (which ends the stream). Raises
    InputProblem when reading fails."""
    import orjson

    try:
        for number, raw in enumerate(bounded_lines(handle, limit), start=1):
            if isinstance(raw, LongLine):
                yield BadLine(number, f"line is {raw.size:,} bytes, over the {limit:,}-byte limit")
                continue
            if isinstance(raw, BinaryData):
                yield BadLine(number, f"{raw.reason}; the rest of the file was not read")
                return
            if number == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            if not raw.strip():
                continue
            try:
                yield JsonLine(number, orjson.loads(raw), raw)
            except orjson.JSONDecodeError as error:
                column = error.colno if isinstance(error.colno, int) else 0
                yield BadLine(number, json_reason(raw, error), column)
    except OSError as error:
        raise InputProblem(os_reason(error)) from None


def json_reason(raw: bytes, error: Exception, *, ends_with_newline: bool | None = None) -> str:
    """Why a line is not JSON, in a few words, with the column where it stops being JSON:
    binary, not UTF-8, the file's last line cut off (no newline after it), or the parser's
    reason. `ends_with_newline` when `raw` was stripped of its line end (default: look)."""
    if b"\0" in raw:
        return _NUL
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"not valid UTF-8 (byte 0x{raw[bad.start]:02x} at column {bad.start + 1})"
    if ends_with_newline is None:
        ends_with_newline = raw.endswith(b"\n")
    if not ends_with_newline and raw.lstrip().startswith((b"{", b"[")):
        return "truncated last line (no newline at end of file; the writer was probably killed)"
    column = getattr(error, "colno", None)
    at = f" at column {column}" if isinstance(column, int) and column > 0 else ""
    return f"not JSON ({str(error).splitlines()[0].split(':')[0]}{at})"


def display_path(path: str | os.PathLike[str]) -> str:
    """A file name as results carry it: bytes that are not UTF-8 (held as surrogates by
    Python) written as ``\\xNN``, as the human output shows them, so every output (JSON
    included, which cannot carry them) names the file the same way."""
    text = os.fspath(path)
    if text.isascii() or not any(0xDC80 <= ord(ch) <= 0xDCFF for ch in text):
        return text
    return "".join(
        f"\\x{ord(ch) - 0xDC00:02x}" if 0xDC80 <= ord(ch) <= 0xDCFF else ch for ch in text
    )


def undecodable_byte(text: str) -> int | None:
    """The first byte of `text` that was not UTF-8 (a command-line argument), or None."""
    return next((ord(ch) - 0xDC00 for ch in text if 0xDC80 <= ord(ch) <= 0xDCFF), None)
