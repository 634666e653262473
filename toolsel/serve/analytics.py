"""Usage analytics as `toolsel serve` answers them, bounded whatever the store holds: an
answer lists the ANALYTICS_TOOLS most-called tools and sums the others in one `other` row,
both picked by the database (`rollups.bounded_totals`, `rollups.top_summary`), since a
client may record any number of distinct tool names. They run on workers of their own
(`analytics_pool`) within a budget their reads are told too: past it, 503 with
`"reason": "analytics_budget"`. `/v1/rank` never waits for them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from toolsel.serve.limits import ANALYTICS_BUDGET, ANALYTICS_QUEUE, ANALYTICS_WORKERS
from toolsel.serve.values import RequestError

if TYPE_CHECKING:
    from toolsel.registry.model import Registry
    from toolsel.replay.stats import ToolUsage, UsageStats
    from toolsel.serve.rollups import Rest, Totals
    from toolsel.serve.work import WorkPool

#: The `reason` of an analytics answer past its budget.
OVER_BUDGET = "analytics_budget"


def analytics_pool(budget: float = ANALYTICS_BUDGET) -> WorkPool:
    """The workers that answer analytics, each request within `budget` seconds."""
    from toolsel.serve.work import WorkPool

    return WorkPool(
        ANALYTICS_WORKERS,
        ANALYTICS_QUEUE,
        budget,
        deadline="the analytics budget",
        reason=OVER_BUDGET,
    )


@contextmanager
def within_budget() -> Iterator[None]:
    """A store read stopped at the budget answers as the pool does past it."""
    from toolsel.serve.store import StoreTimeout

    try:
        yield
    except StoreTimeout:
        raise RequestError(
            "usage analytics not answered within the analytics budget", 503, reason=OVER_BUDGET
        ) from None


def bounded_stats(totals: Totals, registry: Registry | None = None) -> UsageStats:
    """The statistics of a bounded read: its top tools (a session's latencies exact), and
    the registry's tools that no call in the window used, listed or not (the read must
    have been asked about the registry's names)."""
    from dataclasses import replace

    from toolsel.replay.stats import totals_stats

    stats = totals_stats(totals.tools, totals.pairs, totals.sessions)
    called = set(totals.tools) | totals.called
    never = None
    if registry is not None:
        never = tuple(sorted(t.name for t in registry.tools if t.name not in called))
    tools = tuple(_exact(t, totals.latencies.get(t.name)) for t in stats.tools)
    return replace(stats, tools=tools, never_called=never)


def _exact(tool: ToolUsage, latencies_ms: list[float] | None) -> ToolUsage:
    """The tool with its median and p95 from every latency, when they were read."""
    import statistics
    from dataclasses import replace

    from toolsel.replay.stats import p95

    if not latencies_ms:
        return tool
    seconds = [value / 1000.0 for value in latencies_ms]
    return replace(tool, median_latency_s=statistics.median(seconds), p95_latency_s=p95(seconds))


def other_payload(rest: Rest) -> dict[str, Any] | None:
    """`other`: the tools an answer leaves out, summed (None when it lists every tool)."""
    if not rest.tools:
        return None
    return {
        "tools": rest.tools,
        "calls": rest.calls,
        "errors": rest.errors,
        "error_rate": round(rest.errors / rest.calls, 4) if rest.calls else None,
        "mean_latency_s": (
            round(rest.latency_sum / rest.latency_count / 1000.0, 6) if rest.latency_count else None
        ),
    }


def other_note(rest: Rest, listed: int) -> str:
    return (
        f"{rest.tools} less-called tools ({rest.calls} calls) are summed in `other`;"
        f" the {listed} most called are listed"
    )
