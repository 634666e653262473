"""The replay report: what one transcript file held, built once from the matcher's state."""

from __future__ import annotations

import pickle
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from enum import StrEnum
from operator import attrgetter
from typing import Any, overload

from toolsel.replay.lines import Reading, Unreadable
from toolsel.replay.matcher import Matcher, ToolTally

#: A file's format when none of its records was of a format toolsel reads.
UNKNOWN_FORMAT = "unknown"


@dataclass(frozen=True, slots=True)
class Unanswered:
    id: str
    tool: str
    line: int
    interrupted: bool  # no result arrived after it: the session ended (or was killed) while it ran


@dataclass(frozen=True, slots=True)
class UnreadTools:
    """A record holding tool-call-like content that no decoder turned into calls or results
    (a format or record type toolsel does not read): `where` names the first such content."""

    line: int
    where: str


@dataclass(frozen=True, slots=True)
class Orphan:
    id: str
    line: int
    is_error: bool = False  # the result says its call failed


@dataclass(frozen=True, slots=True)
class DuplicateCall:
    id: str
    kind: str  # identical | enriched | conflicting | reused
    lines: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DuplicateResult:
    id: str
    lines: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Subagent:
    parent_id: str
    tool: str
    calls: int
    rule: str  # parent_tool_use_id | sidechain-prompt | single-active-parent | agent-file


@dataclass(frozen=True, slots=True)
class Violation:
    id: str
    tool: str
    rule: str
    message: str
    line: int


@dataclass(frozen=True, slots=True)
class FailedCall:
    """A call whose result was an error, and what that result said first
    (`replay.failures.error_message`: one line, secrets masked, "" when it said nothing)."""

    id: str
    tool: str
    line: int  # the result's
    message: str
    copied: bool = False  # a copy of an earlier file's call (known where copies are)
    number: int = 0  # the how-manieth call the file opened (the copy pass's key)


@dataclass(frozen=True, slots=True)
class ToolStats:
    calls: int = 0
    errors: int = 0
    answered: int = 0  # calls that got a result
    copied: int = 0  # calls copied from an earlier file of the run (resumed sessions)
    copied_errors: int = 0
    copied_answered: int = 0
    #: seconds from call to result, where both have a time (copies excluded: counted once,
    #: in the file they were copied from)
    latencies: tuple[float, ...] = ()
    #: the median of the latencies, where they were not kept (`replay` of many files)
    median_s: float | None = None
    #: bytes of the results (where the format records them) and of the inputs of the
    #: answered calls, copies excluded (`replay.sizes`); not kept where latencies are not
    result_sizes: tuple[float, ...] = ()
    input_sizes: tuple[float, ...] = ()

    @property
    def median_latency(self) -> float | None:
        import statistics

        return statistics.median(self.latencies) if self.latencies else self.median_s


@dataclass(frozen=True, slots=True)
class ToolEvent:
    """One line of `replay --format jsonl`: a call starting, or its result arriving."""

    event: str  # tool_start | tool_result
    id: str
    tool: str | None
    parent: str | None
    parent_rule: str | None
    turn_id: str | None
    file: str
    line: int
    is_error: bool | None = None  # tool_result only: whether the result was an error
    latency_ms: float | None = None  # tool_result only, when both ends carry a timestamp
    copied: bool = False  # the call repeats an earlier file's id and tool (a resumed session)
    at: str | None = None  # the call's own timestamp (ISO 8601), when its line has one
    #: tool_result only: UTF-8 bytes of the result's text (`replay.sizes`); None where the
    #: format's reader does not measure it
    result_bytes: int | None = None
    #: tool_result only, for an error: its first line (`replay.failures.error_message`)
    error_text: str | None = None


@dataclass(frozen=True, slots=True)
class FileReport:
    path: str
    format: str = "unknown"  # UNKNOWN_FORMAT
    lines: int = 0
    blank: int = 0
    calls: int = 0
    results: int = 0
    paired: int = 0
    error_results: int = 0
    copied_calls: int = 0  # calls whose id and tool an earlier file of the run already had
    unreadable: tuple[Unreadable, ...] = ()
    unanswered: tuple[Unanswered, ...] = ()
    orphans: tuple[Orphan, ...] = ()
    duplicate_calls: tuple[DuplicateCall, ...] = ()
    duplicate_results: tuple[DuplicateResult, ...] = ()
    subagents: tuple[Subagent, ...] = ()
    violations: tuple[Violation, ...] = ()
    tools: Mapping[str, ToolStats] = field(default_factory=dict)
    agent_id: str | None = None  # set for Claude Code sub-agent files
    #: what the reader could not count, said once (e.g. a format with no tool calls)
    notes: tuple[str, ...] = ()
    task_agents: Mapping[str, tuple[str, str]] = field(
        default_factory=dict
    )  # agentId -> (Task id, tool)
    calls_without_id: int = 0  # named noid:<line>:<n>, answered by position
    results_without_id: int = 0
    #: records of a type no decoder knows, with no tool content in them: skipped, not lost
    skipped_records: int = 0
    unread_tools: tuple[UnreadTools, ...] = ()
    #: every counted call whose result was an error, in the order the results came
    failures: tuple[FailedCall, ...] = ()


class FailOn(StrEnum):
    """Finding kinds that `replay --fail-on` can turn into exit code 1."""

    UNANSWERED = "unanswered"
    ORPHANS = "orphans"
    DUPLICATES = "duplicates"
    CONFLICTING = "conflicting"
    DUPLICATE_RESULTS = "duplicate-results"
    UNREADABLE = "unreadable"
    VIOLATIONS = "violations"
    UNREAD_TOOLS = "unread-tools"  # tool-call-like content that no decoder read
    UNRECOGNISED = "unrecognised"  # no record of the file is of a format toolsel reads


DEFAULT_FAIL_ON = (
    FailOn.ORPHANS,
    FailOn.CONFLICTING,
    FailOn.UNREADABLE,
    FailOn.VIOLATIONS,
    FailOn.UNREAD_TOOLS,
    FailOn.UNRECOGNISED,
)


_FINDINGS = {
    FailOn.UNANSWERED: "unanswered",
    FailOn.ORPHANS: "orphans",
    FailOn.DUPLICATES: "duplicate_calls",
    FailOn.DUPLICATE_RESULTS: "duplicate_results",
    FailOn.UNREADABLE: "unreadable",
    FailOn.VIOLATIONS: "violations",
    FailOn.UNREAD_TOOLS: "unread_tools",
}


def _has(report: FileReport, kind: FailOn) -> bool:
    if kind is FailOn.CONFLICTING:
        return any(d.kind == "conflicting" for d in report.duplicate_calls)
    if kind is FailOn.UNRECOGNISED:
        return unrecognised(report)
    return bool(getattr(report, _FINDINGS[kind]))


def unrecognised(report: FileReport) -> bool:
    """No record of the file was of a format toolsel reads, though it has some: "format not
    recognised" rather than a silent empty report (an empty file is just empty)."""
    return (
        report.format == UNKNOWN_FORMAT
        and report.lines > report.blank
        and report.calls == report.results == 0
    )


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
    values = list(_report_fields(report))
    for at, kind in _NESTED:
        if values[at]:
            values[at] = tuple(map(_FIELDS_OF[kind], values[at]))
    values[_TOOLS] = tuple(
        (name, *_counts(s), (), s.median_latency) for name, s in report.tools.items()
    )
    return pickle.dumps(tuple(values), pickle.HIGHEST_PROTOCOL)


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


def unflatten(flat: tuple[Any, ...]) -> FileReport:
    values = list(flat)
    for at, kind in _NESTED:
        if values[at]:
            values[at] = tuple(kind(*item) for item in values[at])
    values[_TOOLS] = {name: ToolStats(*counts) for name, *counts in values[_TOOLS]}
    return FileReport(*values)


@dataclass(frozen=True, slots=True)
class ReplayResult:
    files: Sequence[FileReport]
    #: the usage totals (`toolsel.replay.totals.UsageTotals`), gathered file by file while
    #: replaying: they hold what `files` may no longer (latencies; files not kept)
    usage: Any = None
    #: each count and list of `FileReport` summed over the files, and the finding kinds
    #: some file has, when gathered while replaying (else worked out from `files`)
    totals: Mapping[str, int] | None = None
    found: frozenset[FailOn] | None = None

    def total(self, name: str) -> int:
        """A count summed over files; for a list of findings, how many there are."""
        if self.totals is not None:
            return self.totals[name]
        return sum(
            value if isinstance(value := getattr(f, name), int) else len(value) for f in self.files
        )

    def fails(self, kinds: Iterable[FailOn]) -> bool:
        """Whether any file has a finding of these kinds (`--fail-on`)."""
        wanted = tuple(kinds)
        if self.found is not None:
            return any(kind in self.found for kind in wanted)
        return any(_has(f, kind) for f in self.files for kind in wanted)


#: The counts and lists of a file report that `ReplayResult.total` sums.
SUMMED = tuple(
    name
    for name in FileReport.__dataclass_fields__
    if name not in ("path", "format", "tools", "agent_id", "task_agents", "failures")
)


@dataclass(slots=True)
class Totals:
    """`ReplayResult.totals` and `found`, summed one file at a time."""

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SUMMED, 0))
    found: set[FailOn] = field(default_factory=set)

    def add(self, report: FileReport) -> None:
        counts = self.counts
        for name, value in zip(SUMMED, _summed(report), strict=True):
            if value:
                counts[name] += value if type(value) is int else len(value)
        if len(self.found) < len(FailOn):
            self.found.update(kind for kind in FailOn if _has(report, kind))

    def merge(self, other: Totals, copied: int = 0) -> None:
        """Add `other`'s totals (a worker's, over a chunk of files), and `copied` calls that
        the copy pass found in those files."""
        counts = self.counts
        for name, value in other.counts.items():
            counts[name] += value
        counts["copied_calls"] += copied
        self.found |= other.found


_summed = attrgetter(*SUMMED)


def build_report(
    path: str,
    reading: Reading,
    matcher: Matcher,
    formats: Counter[str],
    violations: Iterable[Violation] = (),
    skipped_records: int = 0,
    unread_tools: Iterable[UnreadTools] = (),
) -> FileReport:
    """Turn what was read and matched into the file's report."""
    unread = tuple(unread_tools)
    return FileReport(
        path=path,
        format=formats.most_common(1)[0][0] if formats else UNKNOWN_FORMAT,
        lines=reading.lines,
        blank=reading.blank,
        calls=matcher.calls,
        results=matcher.results,
        paired=matcher.paired,
        error_results=matcher.error_results,
        copied_calls=matcher.copied_calls,
        unreadable=tuple(reading.unreadable),
        notes=_notes(reading, matcher, unread, formats),
        violations=tuple(violations),
        tools={name: _tool_stats(t) for name, t in matcher.tools.items()},
        agent_id=matcher.agent_id,
        task_agents=dict(matcher.task_agents),
        calls_without_id=matcher.calls_without_id,
        results_without_id=matcher.results_without_id,
        skipped_records=skipped_records,
        unread_tools=unread,
        failures=tuple(FailedCall(*failure) for failure in matcher.failures),
        **_matcher_findings(matcher),
    )


def _tool_stats(t: ToolTally) -> ToolStats:
    """A tool's tally in the matcher, as the report keeps it."""
    return ToolStats(
        t.calls,
        t.errors,
        t.answered,
        t.copied,
        t.copied_errors,
        t.copied_answered,
        tuple(t.latencies),
        None,
        tuple(t.result_sizes),
        tuple(t.input_sizes),
    )


def _matcher_findings(matcher: Matcher) -> dict[str, tuple[Any, ...]]:
    """What the matcher left open, unanswered or seen twice, and the sub-agents it found."""
    return {
        "unanswered": tuple(
            Unanswered(
                call_id, opened.call.tool, opened.line, opened.line > matcher.last_result_line
            )
            for call_id, opened in matcher.open_calls.items()
        ),
        "orphans": tuple(
            Orphan(call_id, line, result.is_error)
            for call_id, waiting in matcher.waiting_results.items()
            for result, line in waiting
        ),
        "duplicate_calls": tuple(
            DuplicateCall(call_id, kind, tuple(lines))
            for call_id, (kind, lines) in matcher.duplicates.items()
        ),
        "duplicate_results": tuple(
            DuplicateResult(call_id, tuple(lines))
            for call_id, lines in matcher.duplicate_results.items()
        ),
        "subagents": tuple(
            Subagent(parent, tool or "Task", count, rule)
            for (parent, tool, rule), count in matcher.children.items()
        ),
    }


def _notes(
    reading: Reading,
    matcher: Matcher,
    unread: tuple[UnreadTools, ...],
    formats: Counter[str],
) -> tuple[str, ...]:
    """What the reader could not count, said once."""
    notes = []
    if not formats and reading.lines > reading.blank and not (matcher.calls or matcher.results):
        notes.append(_unrecognised(reading))
    elif formats:
        notes.extend(_lopsided(matcher, formats.most_common(1)[0][0]))
    if matcher.calls == 0 and reading.text_actions:
        notes.append(
            f"no tool calls in this format: its {reading.text_actions} trajectory steps are "
            "text actions (an older SWE-agent .traj), not tool_calls, so there is nothing to "
            "pair"
        )
    if unread:
        first = unread[0]
        notes.append(
            f"{plural(len(unread), 'record')} of a format or type toolsel does not read "
            f"{'holds' if len(unread) == 1 else 'hold'} tool-call-like content (first: line "
            f"{first.line}, {first.where}); their calls are not counted"
        )
    return tuple(notes)


#: How an Aider chat history (Markdown, not JSON) opens.
AIDER_HISTORY = "# aider chat started at"


def _unrecognised(reading: Reading) -> str:
    """The note of a file no record of which is of a format toolsel reads."""
    if reading.first_text.startswith(AIDER_HISTORY):
        return (
            "format not recognised: an Aider chat history (Markdown), not a tool-call "
            "transcript: Aider edits files through text, so there are no calls to pair"
        )
    unreadable = len(reading.unreadable)
    records = reading.lines - reading.blank - unreadable
    what = []
    if records:
        what.append(f"{plural(records, 'record')} of types no decoder knows")
    if unreadable:
        what.append(f"{plural(unreadable, 'line')} that are not JSON records")
    return (
        f"format not recognised: {' and '.join(what)}; nothing was counted "
        "(--input-format NAME forces a format)"
    )


#: A file with at least this many calls, most of them unanswered (or this many results,
#: most of them orphans), gets a note: a format read only in part looks like this.
LOPSIDED_MIN = 4


def _lopsided(matcher: Matcher, name: str) -> list[str]:
    """A note when the file's records yield calls but no results, results but no calls, or
    mostly one side: the other side may be in a form the reader (`name`) does not read."""
    calls, results = matcher.calls, matcher.results
    unanswered = len(matcher.open_calls)
    orphans = sum(len(waiting) for waiting in matcher.waiting_results.values())
    if calls == 0 and results > 0:
        found = f"{plural(results, 'result')} and no call"
    elif results == 0 and calls > 1:
        found = f"{plural(calls, 'call')} and no result"
    elif calls >= LOPSIDED_MIN and unanswered * 2 > calls:
        found = f"{unanswered} of {calls} calls without a result"
    elif results >= LOPSIDED_MIN and orphans * 2 > results:
        found = f"{orphans} of {results} results without a call"
    else:
        return []
    return [
        f"read as {name}, this file yields {found}: the other side may be in records "
        "toolsel does not read as this format (or the transcript holds only one side)"
    ]


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _fields_getter(kind: Any) -> Callable[[Any], tuple[Any, ...]]:
    """A dataclass's fields, in order, as one tuple (it has several)."""
    return attrgetter(*(f.name for f in fields(kind)))


_NAMES = tuple(FileReport.__dataclass_fields__)
_TOOLS = _NAMES.index("tools")
#: The fields of a report that hold findings, and their kind.
_NESTED = tuple(
    (_NAMES.index(name), kind)
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
