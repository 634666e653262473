"""`toolsel stats --format html`: the serve dashboard's charts, as one self-contained file,
drawn from the same `toolsel.stats` document `--format json` prints."""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

from toolsel.replay.stats import UsageStats


def stats_page(
    stats: UsageStats, *, source: str, series: Sequence[tuple[str, UsageStats]] | None = None
) -> str:
    """The page; `series` (window start as ISO 8601, statistics of that window), when
    the statistics come from a usage store, draws the charts over time."""
    from toolsel.render.html import page
    from toolsel.render.stats import stats_payload

    data: dict[str, Any] = {
        "stats": stats_payload(stats),
        "source": source,
        "series": None
        if series is None
        else [{"t": start, "stats": stats_payload(window)} for start, window in series],
    }
    return page(
        kind="stats",
        title="toolsel stats",
        command="stats",
        data=data,
        scripts=("common.js", "charts.js", "stats.js", "stats_page.js"),
    )


def render_stats_html(stats: UsageStats, out: IO[str], *, top: int = 0) -> None:
    count = stats.transcripts
    source = f"Tool usage across {count} transcript{'s' if count != 1 else ''}"
    out.write(stats_page(stats, source=source))
