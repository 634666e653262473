"""Usage analytics across replayed transcripts (`toolsel stats`): per-tool calls, errors
and latency, registry tools never called, and tools used in the same transcript."""

from __future__ import annotations

import statistics
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations

from toolsel.registry.model import Registry
from toolsel.replay.report import FileReport, ReplayResult

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


def p95(values: Sequence[float]) -> float | None:
    """The nearest-rank 95th percentile (None for no values)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, -(-95 * len(ordered) // 100) - 1)]


def usage_stats(result: ReplayResult, registry: Registry | None = None) -> UsageStats:
    """Calls copied from an earlier file of the run (resumed sessions) are counted once,
    with their results, errors and latencies. The totals gathered while replaying are
    used when the result has them (its files may not hold every latency)."""
    totals = result.usage
    if totals is None:
        totals = UsageTotals()
        for report in result.files:
            totals.add(report)
    assert isinstance(totals, UsageTotals)
    return totals.stats(registry)


@dataclass(slots=True)
class UsageTotals:
    """What `usage_stats` counts, summed one file report at a time, so that the reports
    need not be kept: memory grows with tools, pairs and answered calls (8 bytes a
    latency), not with files.

    A worker process sums a chunk of files in one (`bounded` False: it keeps every pair),
    before the copies are known; `add_chunk` adds it here and takes the copies back."""

    files: int = 0
    calls: dict[str, int] = field(default_factory=dict)
    answered: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    transcripts: dict[str, int] = field(default_factory=dict)
    latencies: dict[str, array[float]] = field(default_factory=dict)
    pairs: dict[tuple[str, str], int] = field(default_factory=dict)
    unreadable: list[UnreadableFile] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: latencies of copied calls that a worker counted, taken out of `latencies` by `stats`
    taken: dict[str, array[float]] = field(default_factory=dict)
    bounded: bool = True  # at most MAX_PAIRS pairs kept (see `_add_pairs`)

    def add(self, f: FileReport) -> None:
        self.files += 1
        # a tool whose calls in this file are all copies of an earlier file's does not count
        used = {name: s for name, s in f.tools.items() if s.calls > s.copied}
        calls, answered, errors, transcripts = (
            self.calls,
            self.answered,
            self.errors,
            self.transcripts,
        )
        for name, s in used.items():
            calls[name] = calls.get(name, 0) + s.calls - s.copied
            answered[name] = answered.get(name, 0) + s.answered - s.copied_answered
            errors[name] = errors.get(name, 0) + s.errors - s.copied_errors
            transcripts[name] = transcripts.get(name, 0) + 1
            if s.latencies:
                times = self.latencies.get(name)
                if times is None:
                    times = self.latencies[name] = array("d")
                times.extend(s.latencies)
        _add_pairs(self.pairs, _pairs_of({name: s.calls for name, s in used.items()}), self.bounded)
        if f.unreadable:
            self.unreadable.append(UnreadableFile(f.path, len(f.unreadable), f.unreadable[0].line))
        self.notes.extend(f.notes)

    def add_chunk(
        self,
        chunk: UsageTotals,
        copies: Sequence[FileCopies],
        used: Callable[[], Iterable[Mapping[str, int]]],
    ) -> None:
        """Add a worker's sums over a chunk of files, in which no call was known for a
        copy, less the `copies` the copy pass found in them: the totals `add` gives.
        `used` gives, if it is needed, each file's tools that are not all copies, and their
        calls (copies included), in path order."""
        self.files += chunk.files
        for mine, theirs in (
            (self.calls, chunk.calls),
            (self.answered, chunk.answered),
            (self.errors, chunk.errors),
            (self.transcripts, chunk.transcripts),
        ):
            for name, count in theirs.items():
                mine[name] = mine.get(name, 0) + count
        for name, times in chunk.latencies.items():
            mine_times = self.latencies.get(name)
            if mine_times is None:
                self.latencies[name] = times
            else:
                mine_times.extend(times)
        self.unreadable.extend(chunk.unreadable)
        self.notes.extend(chunk.notes)
        changed = [change for f in copies if (change := self._take_back(f)) is not None]
        pairs = self.pairs
        if self.bounded and len(pairs) + len(chunk.pairs) > MAX_PAIRS:
            # some file's pairs may go past the bound, and drop the rarest: pair the files
            # one by one, as `add` does
            for tools in used():
                _add_pairs(pairs, _pairs_of(tools))
            return
        for pair, count in chunk.pairs.items():
            pairs[pair] = pairs.get(pair, 0) + count
        for before, after in changed:
            for pair in before:
                if pairs[pair] == 1:
                    del pairs[pair]
                else:
                    pairs[pair] -= 1
            _add_pairs(pairs, after, bounded=False)

    def _take_back(
        self, f: FileCopies
    ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]] | None:
        """Take back the counts of a file's copied calls; the file's pairs before and after
        when a tool of it is left with only copies (then it no longer counts)."""
        tools, copied = f
        moved: dict[str, int] = {}
        for tool, answered, error, latency in copied:
            moved[tool] = moved.get(tool, 0) + 1
            self.calls[tool] -= 1
            self.answered[tool] -= answered
            self.errors[tool] -= error
            if latency is not None:
                taken = self.taken.get(tool)
                if taken is None:
                    taken = self.taken[tool] = array("d")
                taken.append(latency)
        gone = [tool for tool, count in moved.items() if count == tools[tool]]
        if not gone:
            return None
        for tool in gone:
            self.transcripts[tool] -= 1
            if not self.transcripts[tool]:
                for counts in (self.calls, self.answered, self.errors, self.transcripts):
                    del counts[tool]
        before = list(_pairs_of(tools))
        after = list(_pairs_of({tool: n for tool, n in tools.items() if tool not in gone}))
        return before, after

    def stats(self, registry: Registry | None = None) -> UsageStats:
        quantiles = {
            name: _exact_quantiles(_without(values, self.taken.get(name)))
            for name, values in self.latencies.items()
        }
        stats = _summarise(
            self.calls,
            self.errors,
            self.transcripts,
            quantiles,
            self.answered,
            self.pairs,
            registry,
        )
        return replace(
            stats,
            transcripts=self.files,
            unreadable=tuple(self.unreadable),
            notes=tuple(self.notes),
        )


#: A file's copied calls, as `UsageTotals.add_chunk` takes them back: the file's calls per
#: tool (copies included), and each copied call's tool, whether it was answered, whether
#: with an error, and its latency (None: none was counted).
FileCopies = tuple[Mapping[str, int], Sequence[tuple[str, bool, bool, float | None]]]


def _without(values: Sequence[float], taken: Sequence[float] | None) -> Sequence[float]:
    """`values` less one of each of `taken` (which it holds), in any order."""
    if not taken:
        return values
    import numpy as np

    ordered = np.sort(np.asarray(values, np.float64))
    out = np.sort(np.asarray(taken, np.float64))
    # the k-th of equal values taken out is the k-th of them in `ordered`
    at = np.searchsorted(ordered, out) + np.arange(len(out)) - np.searchsorted(out, out)
    return array("d", np.delete(ordered, at).tobytes())


def _count_pairs(pairs: dict[tuple[str, str], int], calls: Mapping[str, int]) -> None:
    """Count the pairs of the tools a transcript used (`calls`: each one's calls)."""
    _add_pairs(pairs, _pairs_of(calls))


def _pairs_of(calls: Mapping[str, int]) -> tuple[tuple[str, str], ...]:
    """The pairs a transcript counts: among its PAIR_TOOLS most-called tools."""
    names = sorted(calls)
    if len(names) > PAIR_TOOLS:
        names = sorted(sorted(calls, key=lambda n: (-calls[n], n))[:PAIR_TOOLS])
    return tuple(combinations(names, 2))


def _add_pairs(
    pairs: dict[tuple[str, str], int], found: Iterable[tuple[str, str]], bounded: bool = True
) -> None:
    """Count one transcript's pairs; past MAX_PAIRS distinct pairs (when `bounded`), the
    rarest are dropped (their counts could no longer reach the top)."""
    for pair in found:
        pairs[pair] = pairs.get(pair, 0) + 1
    if bounded and len(pairs) > MAX_PAIRS:
        keep = sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0]))[: MAX_PAIRS // 2]
        pairs.clear()
        pairs.update(keep)


#: One stored usage record as `records_stats` reads it: (tool, ok, latency in ms, session, at).
UsageRow = tuple[str, bool, float | None, str | None, str]


@dataclass(slots=True)
class ToolTotals:
    """One tool's sums over a window, as the usage store's roll-ups keep them."""

    calls: int = 0
    errors: int = 0
    sessions: int = 0  # sessions whose first use of the tool is in the window
    latency_count: int = 0
    latency_sum: float = 0.0  # milliseconds
    sketch: dict[int, int] = field(default_factory=dict)  # latency ms (see replay.sketch)
    stored: list[bytes] = field(default_factory=list)  # encoded sketches to add to it

    def add(self, other: ToolTotals) -> None:
        from toolsel.replay.sketch import merge

        self.calls += other.calls
        self.errors += other.errors
        self.sessions += other.sessions
        self.latency_count += other.latency_count
        self.latency_sum += other.latency_sum
        merge(self.sketch, other.sketch)
        self.stored.extend(other.stored)


def records_stats(
    rows: Iterable[UsageRow],
    registry: Registry | None = None,
    *,
    since: str | None = None,
    until: str | None = None,
) -> UsageStats:
    """The statistics of a usage store's records (`toolsel serve`, `stats --db --exact`),
    exactly: `rows` are every record in the order they were stored; those with
    `since <= at < until` are counted. A session plays the part of a transcript (records
    without one are one session), counted by first use, so that sums over hours add up:

    - a session counts for a tool in the window holding its first use of the tool;
    - a pair counts for a session in the window holding the first use that completes it,
      among the session's first PAIR_TOOLS tools (by first use);
    - a session counts in the window holding its first record.
    """
    calls: dict[str, int] = {}
    errors: dict[str, int] = {}
    sessions: dict[str, int] = {}
    latencies: dict[str, list[float]] = {}
    pairs: dict[tuple[str, str], int] = {}
    session_count = 0
    used: dict[str | None, tuple[set[str], list[str]]] = {}  # tools seen, first PAIR_TOOLS
    for tool, ok, latency, session, at in rows:
        inside = (since is None or at >= since) and (until is None or at < until)
        seen = used.get(session)
        if seen is None:
            seen = used[session] = (set(), [])
            session_count += inside
        if tool not in seen[0]:
            seen[0].add(tool)
            if inside:
                sessions[tool] = sessions.get(tool, 0) + 1
            if len(seen[1]) < PAIR_TOOLS:
                if inside:
                    _pair_with(pairs, tool, seen[1])
                seen[1].append(tool)
        if inside:
            calls[tool] = calls.get(tool, 0) + 1
            if not ok:
                errors[tool] = errors.get(tool, 0) + 1
            if latency is not None:
                latencies.setdefault(tool, []).append(latency / 1000.0)
    quantiles = {name: _exact_quantiles(values) for name, values in latencies.items()}
    stats = _summarise(calls, errors, sessions, quantiles, calls, pairs, registry)
    return replace(stats, transcripts=session_count)


def totals_stats(
    tools: dict[str, ToolTotals],
    pairs: dict[tuple[str, str], int],
    sessions: int,
    registry: Registry | None = None,
) -> UsageStats:
    """The statistics from a window's sums (the usage store's roll-ups): equal to
    `records_stats` on the same records, the latency percentiles within 1%."""
    from toolsel.replay.sketch import quantiles, stored_quantiles

    used = {name: t for name, t in tools.items() if t.calls}
    latency: dict[str, tuple[float | None, float | None]] = {}
    for name, t in used.items():
        median, high = stored_quantiles(t.stored, t.sketch) if t.stored else quantiles(t.sketch)
        if median is not None and high is not None:
            latency[name] = (median / 1000.0, high / 1000.0)
    calls = {name: t.calls for name, t in used.items()}
    stats = _summarise(
        calls,
        {name: t.errors for name, t in used.items()},
        {name: t.sessions for name, t in used.items()},
        latency,
        calls,
        {pair: n for pair, n in pairs.items() if n},
        registry,
    )
    return replace(stats, transcripts=sessions)


def _pair_with(pairs: dict[tuple[str, str], int], tool: str, earlier: Iterable[str]) -> None:
    for other in earlier:
        pair = (other, tool) if other < tool else (tool, other)
        pairs[pair] = pairs.get(pair, 0) + 1
    if len(pairs) > MAX_PAIRS:
        keep = sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0]))[: MAX_PAIRS // 2]
        pairs.clear()
        pairs.update(keep)


def _exact_quantiles(values: Sequence[float]) -> tuple[float | None, float | None]:
    return (statistics.median(values) if values else None), p95(values)


def _summarise(
    calls: dict[str, int],
    errors: dict[str, int],
    units: dict[str, int],
    latency: dict[str, tuple[float | None, float | None]],
    answered: dict[str, int],
    pairs: dict[tuple[str, str], int],
    registry: Registry | None,
) -> UsageStats:
    """Per-tool usage, most called first; the registry's tools never called; the top pairs.
    `units` counts the transcripts (or sessions) that called each tool; `latency` holds
    each tool's (median, p95) in seconds."""
    tools = tuple(
        ToolUsage(
            name,
            calls[name],
            errors.get(name, 0),
            units.get(name, 0),
            latency.get(name, (None, None))[0],
            answered.get(name, 0),
            latency.get(name, (None, None))[1],
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
