"""Usage analytics across replayed transcripts (`toolsel stats`): per-tool calls, errors
and latency, registry tools never called, and tools used in the same transcript."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from itertools import combinations

from toolsel.registry.model import Registry
from toolsel.replay.report import ReplayResult

#: How many co-used pairs the statistics keep (the most frequent).
TOP_PAIRS = 20


@dataclass(frozen=True, slots=True)
class ToolUsage:
    name: str
    calls: int
    errors: int
    transcripts: int  # how many transcripts called it
    median_latency_s: float | None

    @property
    def error_rate(self) -> float:
        return round(self.errors / self.calls, 4) if self.calls else 0.0

    @property
    def success_rate(self) -> float:
        return round(1 - self.error_rate, 4)


@dataclass(frozen=True, slots=True)
class CoUsedPair:
    tools: tuple[str, str]
    transcripts: int


@dataclass(frozen=True, slots=True)
class UsageStats:
    transcripts: int
    tools: tuple[ToolUsage, ...]  # most called first, then by name
    never_called: tuple[str, ...] | None  # registry tools with no call; None without a registry
    co_used_pairs: tuple[CoUsedPair, ...]


def usage_stats(result: ReplayResult, registry: Registry | None = None) -> UsageStats:
    """Calls copied from an earlier file of the run (resumed sessions) are counted once."""
    calls: dict[str, int] = {}
    errors: dict[str, int] = {}
    transcripts: dict[str, int] = {}
    latencies: dict[str, list[float]] = {}
    pairs: dict[tuple[str, str], int] = {}
    for f in result.files:
        # a tool whose calls in this file are all copies of an earlier file's does not count
        used = {name: s for name, s in f.tools.items() if s.calls > s.copied}
        for name, s in used.items():
            calls[name] = calls.get(name, 0) + s.calls - s.copied
            errors[name] = errors.get(name, 0) + s.errors - s.copied_errors
            transcripts[name] = transcripts.get(name, 0) + 1
            latencies.setdefault(name, []).extend(s.latencies)
        for pair in combinations(sorted(used), 2):
            pairs[pair] = pairs.get(pair, 0) + 1
    tools = tuple(
        ToolUsage(
            name,
            calls[name],
            errors[name],
            transcripts[name],
            statistics.median(latencies[name]) if latencies[name] else None,
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
        transcripts=len(result.files),
        tools=tools,
        never_called=never,
        co_used_pairs=tuple(CoUsedPair(pair, n) for pair, n in top),
    )
