"""The replay report: what one transcript file held, built once from the matcher's state."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from toolsel.replay.lines import Reading, Unreadable
from toolsel.replay.matcher import Matcher

__all__ = [
    "DuplicateCall",
    "DuplicateResult",
    "FailOn",
    "FileReport",
    "Orphan",
    "ReplayResult",
    "Subagent",
    "ToolEvent",
    "ToolStats",
    "Unanswered",
    "UnreadTools",
    "Unreadable",
    "Violation",
    "build_report",
]


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

    @property
    def median_latency(self) -> float | None:
        import statistics

        return statistics.median(self.latencies) if self.latencies else None


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


@dataclass(frozen=True, slots=True)
class FileReport:
    path: str
    format: str = "unknown"
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


DEFAULT_FAIL_ON = (
    FailOn.ORPHANS,
    FailOn.CONFLICTING,
    FailOn.UNREADABLE,
    FailOn.VIOLATIONS,
    FailOn.UNREAD_TOOLS,
)


def _has(report: FileReport, kind: FailOn) -> bool:
    if kind is FailOn.CONFLICTING:
        return any(d.kind == "conflicting" for d in report.duplicate_calls)
    attribute = {
        FailOn.UNANSWERED: "unanswered",
        FailOn.ORPHANS: "orphans",
        FailOn.DUPLICATES: "duplicate_calls",
        FailOn.DUPLICATE_RESULTS: "duplicate_results",
        FailOn.UNREADABLE: "unreadable",
        FailOn.VIOLATIONS: "violations",
        FailOn.UNREAD_TOOLS: "unread_tools",
    }[kind]
    return bool(getattr(report, attribute))


@dataclass(frozen=True, slots=True)
class ReplayResult:
    files: tuple[FileReport, ...]

    def total(self, name: str) -> int:
        """A count summed over files; for a list of findings, how many there are."""
        return sum(
            value if isinstance(value := getattr(f, name), int) else len(value) for f in self.files
        )

    def fails(self, kinds: Iterable[FailOn]) -> bool:
        """Whether any file has a finding of these kinds (`--fail-on`)."""
        wanted = tuple(kinds)
        return any(_has(f, kind) for f in self.files for kind in wanted)


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
        format=formats.most_common(1)[0][0] if formats else "unknown",
        lines=reading.lines,
        blank=reading.blank,
        calls=matcher.calls,
        results=matcher.results,
        paired=matcher.paired,
        error_results=matcher.error_results,
        copied_calls=matcher.copied_calls,
        unreadable=tuple(reading.unreadable),
        notes=_notes(reading, matcher, unread),
        unanswered=tuple(
            Unanswered(
                call_id, opened.call.tool, opened.line, opened.line > matcher.last_result_line
            )
            for call_id, opened in matcher.open_calls.items()
        ),
        orphans=tuple(
            Orphan(call_id, line)
            for call_id, waiting in matcher.waiting_results.items()
            for _, line in waiting
        ),
        duplicate_calls=tuple(
            DuplicateCall(call_id, kind, tuple(lines))
            for call_id, (kind, lines) in matcher.duplicates.items()
        ),
        duplicate_results=tuple(
            DuplicateResult(call_id, tuple(lines))
            for call_id, lines in matcher.duplicate_results.items()
        ),
        subagents=tuple(
            Subagent(parent, tool or "Task", count, rule)
            for (parent, tool, rule), count in matcher.children.items()
        ),
        violations=tuple(violations),
        tools={
            name: ToolStats(
                calls=t.calls,
                errors=t.errors,
                answered=t.answered,
                copied=t.copied,
                copied_errors=t.copied_errors,
                copied_answered=t.copied_answered,
                latencies=tuple(t.latencies),
            )
            for name, t in matcher.tools.items()
        },
        agent_id=matcher.agent_id,
        task_agents=dict(matcher.task_agents),
        calls_without_id=matcher.calls_without_id,
        results_without_id=matcher.results_without_id,
        skipped_records=skipped_records,
        unread_tools=unread,
    )


def _notes(reading: Reading, matcher: Matcher, unread: tuple[UnreadTools, ...]) -> tuple[str, ...]:
    """What the reader could not count, said once."""
    notes = []
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


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
