"""The map step: one transcript file's calls as rows (`map_file`), with nothing from any
other file, so files can be mapped anywhere and in any order. The copy marks, which need
the files before, are added in path order (`toolsel.events.copies`) or derived by the
reduce's SQL."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolsel.events.schema import CALL_COLUMNS, FILE_COLUMNS, Column, arrow_schema, require
from toolsel.replay.sizes import input_size
from toolsel.timeparse import seconds_between

if TYPE_CHECKING:
    import pyarrow as pa

    from toolsel.replay.events import Result
    from toolsel.replay.lines import Progress
    from toolsel.replay.matcher import Matcher, OpenCall
    from toolsel.replay.report import FileReport


@dataclass(frozen=True, slots=True)
class FileEvents:
    """One file's rows: `calls` column by column (CALL_COLUMNS' names), `file` its record
    (FILE_COLUMNS' names)."""

    calls: dict[str, list[Any]]
    file: dict[str, Any]

    @property
    def rows(self) -> int:
        return len(self.calls["call_id"])


def map_file(
    path: str, file_no: int, *, input_format: str | None = None, progress: Progress | None = None
) -> FileEvents:
    """Replay one transcript alone and return its calls, one row each (`copied` is None:
    see `toolsel.events.copies`). `file_no` is the file's place in path order; `progress`
    is told the bytes read."""
    from toolsel.replay.file import replay_file

    recorder: _CallRecorder | None = None

    def watch(matcher: Matcher) -> _CallRecorder:
        nonlocal recorder
        recorder = _CallRecorder(matcher, file_no)
        return recorder

    report = replay_file(path, input_format=input_format, watch=watch, progress=progress)
    assert recorder is not None
    return recorder.finish(report)


def numbered(events: FileEvents, file_no: int) -> FileEvents:
    """`events` (mapped as some other file number, in a worker) as file `file_no`."""
    events.calls["file_no"] = [file_no] * events.rows
    events.file["file_no"] = file_no
    return events


class _CallRecorder:
    """A matcher listener that writes a row when a call starts and fills it in when the
    call is answered."""

    def __init__(self, matcher: Matcher, file_no: int) -> None:
        self.matcher = matcher
        self.file_no = file_no
        self.columns: dict[str, list[Any]] = {c.name: [] for c in CALL_COLUMNS}
        self.open_rows: dict[str, int] = {}  # open call id -> its row
        self.sessions: list[str] = []  # in the order the file named them

    def _sessions_seen(self) -> int:
        named = self.matcher.sessions
        if len(named) != len(self.sessions):
            known = set(self.sessions)
            self.sessions.extend(sorted(s for s in named if s not in known))
        return len(self.sessions)

    def started(self, opened: OpenCall, line: int) -> None:
        call = opened.call
        seen = self._sessions_seen()
        self.open_rows[call.id] = len(self.columns["call_id"])
        row = {
            "file_no": self.file_no,
            "file": "",  # filled in by finish: the report's name for the file
            "session": self.sessions[0] if seen else None,
            "turn": call.message_id,
            "seq": len(self.columns["call_id"]),
            "line": line,
            "call_id": call.id,
            "result_id": None,
            "result_line": None,
            "tool": call.tool,
            "started_at": call.timestamp,
            "answered": False,
            "is_error": None,
            "latency_s": None,
            "parent_call_id": opened.parent,
            "parent_rule": opened.parent_rule,
            "agent_id": None,
            "duplicate": None,
            "duplicate_results": 0,
            "sessions_seen": seen,
            "copied": None,
            "error_text": None,
            "result_bytes": None,
            "input_bytes": None,
        }
        for name, value in row.items():
            self.columns[name].append(value)

    def enriched(self, opened: OpenCall, line: int) -> None:
        pass  # the same call, its input completed: still one row

    def paired(self, opened: OpenCall, result: Result, line: int) -> None:
        index = self.open_rows.pop(opened.call.id)
        columns = self.columns
        columns["result_id"][index] = result.id
        columns["result_line"][index] = line
        columns["answered"][index] = True
        columns["is_error"][index] = result.is_error
        columns["latency_s"][index] = seconds_between(opened.call.timestamp, result.timestamp)
        columns["agent_id"][index] = result.agent_id
        if result.is_error:  # only an error's text is read
            from toolsel.replay.failures import error_message

            columns["error_text"][index] = error_message(result.error)
        call = opened.call
        columns["result_bytes"][index] = result.size if result.size >= 0 else None
        columns["input_bytes"][index] = input_size(call.input, call.encoded)

    def finish(self, report: FileReport) -> FileEvents:
        self._sessions_seen()
        columns = self.columns
        count = len(columns["call_id"])
        columns["file"] = [report.path] * count
        duplicates = {d.id: d.kind for d in report.duplicate_calls}
        extra = {d.id: len(d.lines) - 1 for d in report.duplicate_results}
        if duplicates or extra:
            for index, call_id in enumerate(columns["call_id"]):
                columns["duplicate"][index] = duplicates.get(call_id)
                columns["duplicate_results"][index] = extra.get(call_id, 0)
        unreadable = report.unreadable
        record = {
            "file_no": self.file_no,
            "file": report.path,
            "format": report.format,
            "lines": report.lines,
            "calls": report.calls,
            "agent_id": report.agent_id,
            "sessions": list(self.sessions),
            "unreadable_lines": len(unreadable),
            "first_unreadable_line": unreadable[0].line if unreadable else None,
            "notes": list(report.notes),
            "orphan_results": len(report.orphans),
            "orphan_errors": sum(o.is_error for o in report.orphans),
        }
        return FileEvents(columns, record)


def calls_batch(mapped: list[FileEvents]) -> pa.RecordBatch:
    """The calls of several files as one record batch."""
    return _batch(CALL_COLUMNS, lambda name: [v for m in mapped for v in m.calls[name]])


def files_batch(mapped: list[FileEvents]) -> pa.RecordBatch:
    """The file records of several files as one record batch."""
    return _batch(FILE_COLUMNS, lambda name: [m.file[name] for m in mapped])


def _batch(columns: tuple[Column, ...], values: Callable[[str], list[Any]]) -> pa.RecordBatch:
    pa = require("pyarrow")
    schema = arrow_schema(columns)
    arrays = [pa.array(values(c.name), type=schema.field(c.name).type) for c in columns]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)
