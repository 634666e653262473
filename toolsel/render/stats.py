"""Render `toolsel stats`: the per-tool usage table, never-called tools and co-used pairs."""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from toolsel.render.console import dumps_json, make_console
from toolsel.render.escape import visible
from toolsel.render.formats import StatsFormat
from toolsel.replay.stats import UsageStats

if TYPE_CHECKING:
    from rich.table import Table

STATS_SCHEMA = "toolsel.stats/v1"


def stats_payload(stats: UsageStats) -> dict[str, Any]:
    return {
        "schema": STATS_SCHEMA,
        "transcripts": stats.transcripts,
        "tools": {
            t.name: {
                "calls": t.calls,
                "errors": t.errors,
                "transcripts": t.transcripts,
                "error_rate": t.error_rate,
                "success_rate": t.success_rate,
                "median_latency_s": t.median_latency_s,
            }
            for t in stats.tools
        },
        "never_called": list(stats.never_called) if stats.never_called is not None else None,
        "co_used_pairs": [
            {"tools": list(p.tools), "transcripts": p.transcripts} for p in stats.co_used_pairs
        ],
    }


def render_stats_json(stats: UsageStats, out: IO[str]) -> None:
    out.write(dumps_json(stats_payload(stats)))


def usage_table(stats: UsageStats, *, title: str, transcripts: bool = True) -> Table:
    """Per tool: calls, (transcripts,) success and median latency; used by replay too."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    columns = ["tool", "calls"] + (["transcripts", "success"] if transcripts else ["errors"])
    for column in [*columns, "median latency"]:
        table.add_column(column, justify="left" if column == "tool" else "right")
    for t in stats.tools:
        latency = f"{t.median_latency_s:.2f} s" if t.median_latency_s is not None else "-"
        middle = (
            [str(t.transcripts), f"{100 * t.success_rate:.0f}%"] if transcripts else [str(t.errors)]
        )
        table.add_row(visible(t.name), str(t.calls), *middle, latency)
    return table


def render_stats_human(stats: UsageStats, out: IO[str]) -> None:
    console = make_console(out)
    count = stats.transcripts
    title = f"Tool usage across {count} transcript{'s' if count != 1 else ''}"
    console.print(usage_table(stats, title=title))
    if stats.never_called is not None:
        never = stats.never_called
        console.print(
            visible(f"Registry tools never called ({len(never)}): {', '.join(never) or '-'}")
        )
    for pair in stats.co_used_pairs[:10]:
        n = pair.transcripts
        console.print(
            visible(f"co-used in {n} transcript{'s' if n != 1 else ''}: {' + '.join(pair.tools)}")
        )


#: `stats --format F`.
STATS_RENDERERS: dict[StatsFormat, Callable[[UsageStats, IO[str]], None]] = {
    StatsFormat.HUMAN: render_stats_human,
    StatsFormat.JSON: render_stats_json,
}
