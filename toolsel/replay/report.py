"""The replay report: what one transcript file held (`FileReport`, built by `build`; kept
packed by `packing`), and what a run of files held (`ReplayResult`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from operator import attrgetter
from typing import Any

from toolsel.replay.lines import Unreadable
from toolsel.schemas import Output, schema_name

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


#: The report's list of each kind of finding (CONFLICTING and UNRECOGNISED are worked out).
_FINDINGS = {kind: kind.value.replace("-", "_") for kind in FailOn}
_FINDINGS[FailOn.DUPLICATES] = "duplicate_calls"


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


#: The finding kinds that are a list of the report, and those worked out file by file.
_LISTED = tuple((kind, name) for kind, name in _FINDINGS.items() if name in SUMMED)
_WORKED_OUT = tuple(kind for kind in FailOn if _FINDINGS[kind] not in SUMMED)


@dataclass(slots=True)
class Totals:
    """`ReplayResult.totals` and `found`, summed one file at a time."""

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SUMMED, 0))
    #: the kinds some file has that are not a list of findings (`_has` works them out)
    worked_out: set[FailOn] = field(default_factory=set)

    def add(self, report: FileReport) -> None:
        counts = self.counts
        for name, value in zip(SUMMED, _summed(report), strict=True):
            if value:
                counts[name] += value if type(value) is int else len(value)
        for kind in _WORKED_OUT:
            if kind not in self.worked_out and _has(report, kind):
                self.worked_out.add(kind)

    def merge(self, other: Totals, copied: int = 0) -> None:
        """Add `other`'s totals (a worker's, over a chunk of files), and `copied` calls that
        the copy pass found in those files."""
        counts = self.counts
        for name, value in other.counts.items():
            counts[name] += value
        counts["copied_calls"] += copied
        self.worked_out |= other.worked_out

    @property
    def found(self) -> frozenset[FailOn]:
        """The finding kinds some file has: a list's, where its count is not 0."""
        listed = (kind for kind, name in _LISTED if self.counts[name])
        return frozenset((*self.worked_out, *listed))


_summed = attrgetter(*SUMMED)


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


#: The schema every `replay --format jsonl` line names.
EVENT_SCHEMA = schema_name(Output.REPLAY_EVENT)


def event_payload(event: ToolEvent, display: str | None) -> dict[str, Any]:
    """The event as a `toolsel.replay-event` JSON object (`replay --format jsonl`, and what
    `replay --post` sends to `/v1/usage`)."""
    payload: dict[str, Any] = {
        "schema": EVENT_SCHEMA,
        "event": event.event,
        "id": event.id,
        "tool": event.tool,
        "display_name": display,
        "parent": event.parent,
        "parent_rule": event.parent_rule,
        "turn_id": event.turn_id,
        "file": event.file,
        "line": event.line,
        "at": event.at,  # the call's own time: /v1/usage records it at that time
        "copied": event.copied,  # a resumed session's copy: /v1/usage does not count it
    }
    if event.event == "tool_result":  # what `toolsel serve`'s /v1/usage records
        payload["is_error"] = event.is_error
        payload["latency_ms"] = event.latency_ms
        payload["result_bytes"] = event.result_bytes
        payload["error_text"] = event.error_text
    return payload
