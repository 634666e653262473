"""File reports packed for keeping and for crossing processes: as plain tuples (`flatten`),
pickled (`pack`), and a sequence of pickled reports unpacked as they are read
(`PackedReports`)."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import fields
from operator import attrgetter
from typing import Any, overload

from toolsel.replay.lines import Unreadable
from toolsel.replay.report import (
    DuplicateCall,
    DuplicateResult,
    FailedCall,
    FileReport,
    Orphan,
    Subagent,
    ToolStats,
    Unanswered,
    UnreadTools,
    Violation,
)


def _fields_getter(kind: Any) -> Callable[[Any], tuple[Any, ...]]:
    """A dataclass's fields, in order, as one tuple (it has several)."""
    return attrgetter(*(f.name for f in fields(kind)))


_NAMES = tuple(FileReport.__dataclass_fields__)
#: Where each field of a report is in its flat tuple (`flatten`, `compact_values`).
AT = {name: at for at, name in enumerate(_NAMES)}
_TOOLS = AT["tools"]
#: The fields of a report that hold findings, and their kind.
_NESTED = tuple(
    (AT[name], kind)
    for name, kind in (
        ("unreadable", Unreadable),
        ("unanswered", Unanswered),
        ("orphans", Orphan),
        ("duplicate_calls", DuplicateCall),
        ("duplicate_results", DuplicateResult),
        ("subagents", Subagent),
        ("violations", Violation),
        ("unread_tools", UnreadTools),
        ("failures", FailedCall),
    )
)
_FIELDS_OF = {kind: _fields_getter(kind) for _, kind in _NESTED}
_report_fields = _fields_getter(FileReport)
_counts = attrgetter("calls", "errors", "answered", "copied", "copied_errors", "copied_answered")
_tool_fields = _fields_getter(ToolStats)


class PackedReports(Sequence[FileReport]):
    """File reports kept pickled (about 0.5 kB each, one object), for a run of many files
    whose output lists every file: each is unpacked when it is read."""

    def __init__(self, packed: list[bytes]) -> None:
        self.packed = packed

    def __len__(self) -> int:
        return len(self.packed)

    @overload
    def __getitem__(self, index: int) -> FileReport: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[FileReport, ...]: ...

    def __getitem__(self, index: int | slice) -> FileReport | tuple[FileReport, ...]:
        if isinstance(index, slice):
            return tuple(unpack(p) for p in self.packed[index])
        return unpack(self.packed[index])

    def __iter__(self) -> Iterator[FileReport]:
        for packed in self.packed:
            yield unpack(packed)

    def values(self) -> Iterator[tuple[Any, ...]]:
        """Each report's `compact_values`, unpickled but not built (what renderers read)."""
        return map(pickle.loads, self.packed)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return tuple(self) == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


def pack(report: FileReport) -> bytes:
    return pickle.dumps(flatten(report), pickle.HIGHEST_PROTOCOL)


def pack_compact(report: FileReport) -> bytes:
    """`pack` of the report with each tool's median latency in place of its latencies
    (what `replay` keeps of each file), without building that report first."""
    return pickle.dumps(compact_values(report), pickle.HIGHEST_PROTOCOL)


def compact_values(report: FileReport) -> tuple[Any, ...]:
    """The report's fields as plain tuples (`flatten`'s), each tool's as (name, calls,
    errors, answered, copied, copied_errors, copied_answered, (), median latency): what
    `pack_compact` keeps, and what renderers read of a report (each field at `AT[name]`)."""
    values = list(_report_fields(report))
    for at, kind in _NESTED:
        if values[at]:
            values[at] = tuple(map(_FIELDS_OF[kind], values[at]))
    values[_TOOLS] = tuple(
        (name, *_counts(s), (), s.median_latency) for name, s in report.tools.items()
    )
    return tuple(values)


def values_of(reports: Sequence[FileReport]) -> Iterator[tuple[Any, ...]]:
    """Each report's `compact_values`: read straight from packed reports, never built."""
    if isinstance(reports, PackedReports):
        return reports.values()
    return map(compact_values, reports)


def unpack(packed: bytes) -> FileReport:
    return unflatten(pickle.loads(packed))


def flatten(report: FileReport) -> tuple[Any, ...]:
    """A report as plain tuples, to pickle: a slotted dataclass pickles field by field in
    Python, several times slower (and a run of many files pickles each report twice)."""
    values = list(_report_fields(report))
    for at, kind in _NESTED:
        values[at] = tuple(map(_FIELDS_OF[kind], values[at]))
    values[_TOOLS] = tuple((name, *_tool_fields(s)) for name, s in report.tools.items())
    return tuple(values)


_COPIED_CALLS = AT["copied_calls"]
_FAILURES = AT["failures"]
_SUBAGENTS = AT["subagents"]


class Flat:
    """A report packed compact (`pack_compact`), unpickled but not built: its tools as
    (name, calls, errors, answered, copied, copied_errors, copied_answered, (), median)."""

    def __init__(self, packed: bytes) -> None:
        self.values = list(pickle.loads(packed))
        self.tools: tuple[tuple[Any, ...], ...] = self.values[_TOOLS]

    def mark_copied(self, copied: set[int]) -> None:
        """Count `copied` (call numbers) as copies, and mark their failures."""
        self.values[_COPIED_CALLS] += len(copied)
        failures = self.values[_FAILURES]  # (id, tool, line, message, copied, number)
        if failures:
            self.values[_FAILURES] = tuple(
                (*f[:4], True, f[5]) if f[5] in copied else f for f in failures
            )

    def add_subagents(self, subagents: Iterable[Subagent]) -> None:
        """Link sub-agent files to the report (after those it has)."""
        self.values[_SUBAGENTS] += tuple(map(_FIELDS_OF[Subagent], subagents))

    def pack(self) -> bytes:
        self.values[_TOOLS] = self.tools
        return pickle.dumps(tuple(self.values), pickle.HIGHEST_PROTOCOL)


def unflatten(flat: tuple[Any, ...]) -> FileReport:
    values = list(flat)
    for at, kind in _NESTED:
        if values[at]:
            values[at] = tuple(kind(*item) for item in values[at])
    values[_TOOLS] = {name: ToolStats(*counts) for name, *counts in values[_TOOLS]}
    return FileReport(*values)
