"""Usage analytics across replayed transcripts (`toolsel stats`): per-tool calls, errors
and latency, registry tools never called, and tools used in the same transcript."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, replace
from itertools import combinations

from toolsel.registry.model import Registry
from toolsel.replay.report import ReplayResult, ToolStats

#: How many co-used pairs the statistics keep (the most frequent).
TOP_PAIRS = 20
#: Pairs are counted among each transcript's most-called tools only, so one transcript
#: with thousands of distinct tools costs at most PAIR_TOOLS * (PAIR_TOOLS - 1) / 2 pairs.
PAIR_TOOLS = 50
#: Beyond this many distinct pairs, the rarest are dropped (their counts could no longer
#: reach the top); memory stays bounded however many transcripts are read.
MAX_PAIRS = 100_000


@dataclass(frozen=True, slots=True)
class ToolUsage:
    name: str
    calls: int
    errors: int
    transcripts: int  # how many transcripts called it
    median_latency_s: float | None
    answered: int = 0  # calls that got a result
    p95_latency_s: float | None = None  # nearest-rank 95th percentile

    @property
    def unanswered(self) -> int:
        return self.calls - self.answered

    @property
    def error_rate(self) -> float | None:
        """Errors among the answered calls; None when no call was answered."""
        return round(self.errors / self.answered, 4) if self.answered else None

    @property
    def success_rate(self) -> float | None:
        """Answered calls that were not errors; a call with no result is not a success."""
        return round(1 - self.errors / self.answered, 4) if self.answered else None


@dataclass(frozen=True, slots=True)
class CoUsedPair:
    tools: tuple[str, str]
    transcripts: int


@dataclass(frozen=True, slots=True)
class UnreadableFile:
    """A transcript with lines that could not be read (`toolsel replay FILE` lists them)."""

    path: str
    lines: int
    first_line: int


@dataclass(frozen=True, slots=True)
class UsageStats:
    transcripts: int
    tools: tuple[ToolUsage, ...]  # most called first, then by name
    never_called: tuple[str, ...] | None  # registry tools with no call; None without a registry
    co_used_pairs: tuple[CoUsedPair, ...]
    unreadable: tuple[UnreadableFile, ...] = ()
    notes: tuple[str, ...] = ()  # e.g. a format that records no tool calls

    @property
    def unreadable_lines(self) -> int:
        return sum(u.lines for u in self.unreadable)


def p95(values: list[float]) -> float | None:
    """The nearest-rank 95th percentile (None for no values)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, -(-95 * len(ordered) // 100) - 1)]


def usage_stats(result: ReplayResult, registry: Registry | None = None) -> UsageStats:
    """Calls copied from an earlier file of the run (resumed sessions) are counted once,
    with their results, errors and latencies."""
    calls: dict[str, int] = {}
    answered: dict[str, int] = {}
    errors: dict[str, int] = {}
    transcripts: dict[str, int] = {}
    latencies: dict[str, list[float]] = {}
    pairs: dict[tuple[str, str], int] = {}
    for f in result.files:
        # a tool whose calls in this file are all copies of an earlier file's does not count
        used = {name: s for name, s in f.tools.items() if s.calls > s.copied}
        for name, s in used.items():
            calls[name] = calls.get(name, 0) + s.calls - s.copied
            answered[name] = answered.get(name, 0) + s.answered - s.copied_answered
            errors[name] = errors.get(name, 0) + s.errors - s.copied_errors
            transcripts[name] = transcripts.get(name, 0) + 1
            latencies.setdefault(name, []).extend(s.latencies)
        _count_pairs(pairs, used)
    stats = _summarise(calls, errors, transcripts, latencies, answered, pairs, registry)
    return replace(
        stats,
        transcripts=len(result.files),
        unreadable=tuple(
            UnreadableFile(f.path, len(f.unreadable), f.unreadable[0].line)
            for f in result.files
            if f.unreadable
        ),
        notes=tuple(note for f in result.files for note in f.notes),
    )


def _count_pairs(pairs: dict[tuple[str, str], int], used: dict[str, ToolStats]) -> None:
    names = sorted(used)
    if len(names) > PAIR_TOOLS:
        names = sorted(sorted(used, key=lambda n: (-used[n].calls, n))[:PAIR_TOOLS])
    for pair in combinations(names, 2):
        pairs[pair] = pairs.get(pair, 0) + 1
    if len(pairs) > MAX_PAIRS:
        keep = sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0]))[: MAX_PAIRS // 2]
        pairs.clear()
        pairs.update(keep)


def records_stats(
    rows: Iterable[tuple[str, bool, float | None, str | None]], registry: Registry | None = None
) -> UsageStats:
    """The same statistics from a usage store's records (`toolsel serve`, `stats --db`):
    (tool, ok, latency in ms, session), ordered by session. A session plays the part of a
    transcript; records without one count as one session."""
    calls: dict[str, int] = {}
    errors: dict[str, int] = {}
    sessions: dict[str, int] = {}
    latencies: dict[str, list[float]] = {}
    pairs: dict[tuple[str, str], int] = {}
    session_count = 0
    current: object = object()
    used: dict[str, ToolStats] = {}
    for tool, ok, latency, session in rows:
        if session != current:
            _count_pairs(pairs, used)
            used = {}
            current = session
            session_count += 1
        calls[tool] = calls.get(tool, 0) + 1
        if not ok:
            errors[tool] = errors.get(tool, 0) + 1
        if latency is not None:
            latencies.setdefault(tool, []).append(latency / 1000.0)
        if tool not in used:
            used[tool] = ToolStats(calls=1)
            sessions[tool] = sessions.get(tool, 0) + 1
    _count_pairs(pairs, used)
    stats = _summarise(calls, errors, sessions, latencies, calls, pairs, registry)
    return replace(stats, transcripts=session_count)


def _summarise(
    calls: dict[str, int],
    errors: dict[str, int],
    units: dict[str, int],
    latencies: dict[str, list[float]],
    answered: dict[str, int],
    pairs: dict[tuple[str, str], int],
    registry: Registry | None,
) -> UsageStats:
    """Per-tool usage, most called first; the registry's tools never called; the top pairs.
    `units` counts the transcripts (or sessions) that called each tool."""
    tools = tuple(
        ToolUsage(
            name,
            calls[name],
            errors.get(name, 0),
            units[name],
            statistics.median(latencies[name]) if latencies.get(name) else None,
            answered.get(name, 0),
            p95(latencies.get(name, [])),
        )
        for name in sorted(calls, key=lambda n: (-calls[n], n))
    )
    never = (
        tuple(sorted(t.name for t in registry.tools if t.name not in calls))
        if registry is not None
        else None
    )
    top = sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_PAIRS]
    return UsageStats(
        transcripts=0,
        tools=tools,
        never_called=never,
        co_used_pairs=tuple(CoUsedPair(pair, n) for pair, n in top),
    )
