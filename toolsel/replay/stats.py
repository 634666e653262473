"""Usage analytics (`toolsel stats`): per-tool calls, errors and latency, registry tools
never called, and tools used in the same transcript; and the one reduction behind them.

`UsageSums` holds partial sums that add up in any order: per tool its calls, answered
calls, errors, the units (transcripts, or sessions) that used it and its latencies (every
value, or a sketch within 1%), and the co-used pairs. Every engine produces or merges it:
transcripts (`replay.totals.UsageTotals`, also in worker processes), the charts over time
(`replay.series`), the usage store's records and roll-ups (`records_stats`, `totals_stats`,
`serve.rollups`) and the event tables in SQL (`events.reduce`). `UsageSums.stats` shapes
any of them into `UsageStats`, the one result every renderer takes.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from toolsel.registry.model import Registry

#: How many co-used pairs the statistics keep (the most frequent).
TOP_PAIRS = 20
#: Pairs are counted among each transcript's most-called tools only, so one transcript
#: with thousands of distinct tools costs at most PAIR_TOOLS * (PAIR_TOOLS - 1) / 2 pairs.
PAIR_TOOLS = 50
#: Beyond this many distinct pairs, the rarest are dropped (their counts could no longer
#: reach the top); memory stays bounded however many transcripts are read.
MAX_PAIRS = 100_000
#: A tool's sums that add as numbers, in this order: the SQL of each engine that keeps them
#: (`events.reduce`, `serve.rollups`) is written from this tuple.
COUNTS = ("calls", "answered", "errors", "units", "latency_count", "latency_sum")


@dataclass(frozen=True, slots=True)
class SizeSummary:
    """The sizes (UTF-8 bytes, `replay.sizes`) of a tool's results or inputs: how many were
    measured, their total, median and nearest-rank 95th percentile; tokens as estimated
    by `sizes.TOKEN_METHOD`."""

    count: int
    total: int
    median: float
    p95: float


def size_summary(values: Sequence[float]) -> SizeSummary | None:
    """None when no size was measured."""
    if not values:
        return None
    ordered = sorted(values)  # not numpy: 0.1 s to import, more than a million values take
    count, middle = len(ordered), len(ordered) // 2
    median = ordered[middle] if count % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    high = ordered[max(0, -(-95 * count // 100) - 1)]
    return SizeSummary(count, int(sum(ordered)), float(median), float(high))


@dataclass(frozen=True, slots=True)
class ToolUsage:
    name: str
    calls: int
    errors: int
    transcripts: int  # how many transcripts called it
    median_latency_s: float | None
    answered: int = 0  # calls that got a result
    p95_latency_s: float | None = None  # nearest-rank 95th percentile
    #: the most frequent error messages (normalised: `replay.failures.normalise`) and how
    #: many failing calls said each, most frequent first
    top_errors: tuple[tuple[str, int], ...] = ()
    result_size: SizeSummary | None = None  # of the answered calls, where measured
    input_size: SizeSummary | None = None

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
    orphan_results: int = 0  # results whose call no transcript holds: under no tool
    orphan_errors: int = 0  # the errors among them

    @property
    def unreadable_lines(self) -> int:
        return sum(u.lines for u in self.unreadable)


def p95(values: Sequence[float]) -> float | None:
    """The nearest-rank 95th percentile (None for no values)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, -(-95 * len(ordered) // 100) - 1)]


#: A tool's (median, p95) latency in seconds, either None when it has none.
Quantiles = tuple[float | None, float | None]


@dataclass(slots=True)
class ToolSums:
    """One tool's partial sums. Latencies are kept as every value (`exact`, seconds), or
    as a sketch of milliseconds (`sketch`, plus encoded parts in `stored`: see
    `replay.sketch`). `seen` holds the units themselves where one may be summed twice (a
    file's calls in several slices of time), `last_at` the latest use (roll-ups)."""

    calls: int = 0
    answered: int = 0
    errors: int = 0
    units: int = 0  # transcripts (or sessions) that used the tool
    latency_count: int = 0
    latency_sum: float = 0.0  # milliseconds
    sketch: dict[int, int] = field(default_factory=dict)
    stored: list[bytes] = field(default_factory=list)
    exact: array[float] = field(default_factory=lambda: array("d"))
    seen: set[int] | None = None
    last_at: str = ""
    #: normalised error message -> failing calls that said it (`add_messages`)
    messages: dict[str, int] = field(default_factory=dict)
    #: bytes of the answered calls' results and inputs (`replay.sizes`), every value
    result_sizes: array[float] = field(default_factory=lambda: array("d"))
    input_sizes: array[float] = field(default_factory=lambda: array("d"))

    def add(self, other: ToolSums, sign: int = 1) -> None:
        """Add (or, with sign -1, take away) another's sums."""
        from toolsel.replay.sketch import merge

        self.calls += sign * other.calls
        self.answered += sign * other.answered
        self.errors += sign * other.errors
        self.units += sign * other.units
        self.latency_count += sign * other.latency_count
        self.latency_sum += sign * other.latency_sum
        merge(self.sketch, other.sketch, sign)
        self.stored.extend(other.stored)
        self.exact.extend(other.exact)
        self.result_sizes.extend(other.result_sizes)
        self.input_sizes.extend(other.input_sizes)
        if other.seen is not None:
            self.seen = other.seen | (self.seen or set())
        self.last_at = max(self.last_at, other.last_at)
        if other.messages:
            add_messages(self.messages, other.messages.items(), sign)

    def quantiles(self) -> Quantiles:
        """The median (of an even count: the mean of the middle two) and the nearest-rank
        95th percentile, in seconds: exact from every value, else within 1%."""
        if self.exact:
            import statistics

            return statistics.median(self.exact), p95(self.exact)
        if not self.stored and not self.sketch:
            return None, None
        from toolsel.replay.sketch import quantiles, stored_quantiles

        median, high = (
            stored_quantiles(self.stored, self.sketch) if self.stored else quantiles(self.sketch)
        )
        if median is None or high is None:
            return None, None
        return median / 1000.0, high / 1000.0


@dataclass(slots=True)
class UsageSums:
    """Partial sums of usage: per tool, per co-used pair, and the units (transcripts or
    sessions) counted; with the unreadable files and notes of transcripts."""

    tools: dict[str, ToolSums] = field(default_factory=dict)
    pairs: dict[tuple[str, str], int] = field(default_factory=dict)
    units: int = 0
    unreadable: list[UnreadableFile] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: results whose call is in no transcript (no tool to count them under), and the errors
    #: among them: `replay` counts them, so `stats` does too
    orphans: int = 0
    orphan_errors: int = 0

    def tool(self, name: str) -> ToolSums:
        """The tool's sums, new ones when it has none yet."""
        found = self.tools.get(name)
        if found is None:
            found = self.tools[name] = ToolSums()
        return found

    def merge(self, other: UsageSums, *, pairs: bool = True) -> None:
        """Add another's sums (its pairs too, unless the caller adds them its own way)."""
        for name, sums in other.tools.items():
            self.tool(name).add(sums)
        if pairs:
            for pair, count in other.pairs.items():
                self.pairs[pair] = self.pairs.get(pair, 0) + count
        self.units += other.units
        self.unreadable.extend(other.unreadable)
        self.notes.extend(other.notes)
        self.orphans += other.orphans
        self.orphan_errors += other.orphan_errors

    def stats(
        self,
        registry: Registry | None = None,
        quantiles: Callable[[ToolSums], Quantiles] = ToolSums.quantiles,
    ) -> UsageStats:
        """Per-tool usage (tools with calls), most called first; the registry's tools never
        called; the top pairs. `quantiles` gives each tool's latency."""
        used = sorted(
            ((name, t) for name, t in self.tools.items() if t.calls),
            key=lambda item: (-item[1].calls, item[0]),
        )
        tools = tuple(
            ToolUsage(
                name,
                t.calls,
                t.errors,
                t.units,
                median,
                t.answered,
                high,
                top_errors(t),
                size_summary(t.result_sizes),
                size_summary(t.input_sizes),
            )
            for name, t in used
            for median, high in (quantiles(t),)
        )
        listed = {name for name, _ in used}
        never = None
        if registry is not None:
            never = tuple(sorted(t.name for t in registry.tools if t.name not in listed))
        counted = [(pair, n) for pair, n in self.pairs.items() if n]
        top = sorted(counted, key=lambda kv: (-kv[1], kv[0]))[:TOP_PAIRS]
        return UsageStats(
            transcripts=self.units,
            tools=tools,
            never_called=never,
            co_used_pairs=tuple(CoUsedPair(pair, n) for pair, n in top),
            unreadable=tuple(self.unreadable),
            notes=tuple(self.notes),
            orphan_results=self.orphans,
            orphan_errors=self.orphan_errors,
        )


#: Error messages listed per tool, and the distinct ones kept per tool while counting
#: (past it, the rarest are dropped: their counts could no longer reach the top).
TOP_ERRORS = 5
MAX_MESSAGES = 500


def add_messages(
    messages: dict[str, int], counted: Iterable[tuple[str, int]], sign: int = 1
) -> None:
    """Add (or take away) counts of normalised error messages, keeping at most
    MAX_MESSAGES of them."""
    for message, count in counted:
        left = messages.get(message, 0) + sign * count
        if left > 0:
            messages[message] = left
        else:
            messages.pop(message, None)
    if len(messages) > MAX_MESSAGES:
        keep = sorted(messages.items(), key=lambda kv: (-kv[1], kv[0]))[: MAX_MESSAGES // 2]
        messages.clear()
        messages.update(keep)


def top_errors(sums: ToolSums) -> tuple[tuple[str, int], ...]:
    """A tool's TOP_ERRORS most frequent messages, most frequent first."""
    if not sums.messages:
        return ()
    return tuple(sorted(sums.messages.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_ERRORS])


def pairs_of(calls: Mapping[str, int]) -> tuple[tuple[str, str], ...]:
    """The pairs a transcript counts: among its PAIR_TOOLS most-called tools."""
    names = sorted(calls)
    if len(names) > PAIR_TOOLS:
        names = sorted(sorted(calls, key=lambda n: (-calls[n], n))[:PAIR_TOOLS])
    return tuple(combinations(names, 2))


def add_pairs(
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
    sums = UsageSums()
    used: dict[str | None, tuple[set[str], list[str]]] = {}  # tools seen, first PAIR_TOOLS
    for tool, ok, latency, session, at in rows:
        inside = (since is None or at >= since) and (until is None or at < until)
        seen = used.get(session)
        if seen is None:
            seen = used[session] = (set(), [])
            sums.units += inside
        if tool not in seen[0]:
            seen[0].add(tool)
            if inside:
                sums.tool(tool).units += 1
            if len(seen[1]) < PAIR_TOOLS:
                if inside:
                    _pair_with(sums.pairs, tool, seen[1])
                seen[1].append(tool)
        if inside:
            t = sums.tool(tool)
            t.calls += 1
            t.answered += 1  # a record is a call that was answered
            t.errors += not ok
            if latency is not None:
                t.exact.append(latency / 1000.0)
    return sums.stats(registry)


def totals_stats(
    tools: dict[str, ToolSums],
    pairs: dict[tuple[str, str], int],
    sessions: int,
    registry: Registry | None = None,
) -> UsageStats:
    """The statistics from a window's sums (the usage store's roll-ups): equal to
    `records_stats` on the same records, the latency percentiles within 1%."""
    return UsageSums(tools, pairs, sessions).stats(registry)


def _pair_with(pairs: dict[tuple[str, str], int], tool: str, earlier: Iterable[str]) -> None:
    add_pairs(pairs, ((other, tool) if other < tool else (tool, other) for other in earlier))
