"""`toolsel stats --format html`: the serve dashboard's charts, as one self-contained file,
drawn from the same `toolsel.stats` document `--format json` prints."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, Any

from toolsel.registry.model import Registry
from toolsel.replay.stats import UsageStats
from toolsel.replay.window import CallWindow

if TYPE_CHECKING:
    from toolsel.replay.series import SeriesRecorder


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
        scripts=("common.js", "vendor/chart.umd.min.js", "charts.js", "stats.js", "stats_page.js"),
    )


def transcripts_page(
    paths: list[str],
    registry: Registry | None,
    *,
    jobs: int = 1,
    since: float | None = None,
    window: CallWindow | None = None,
    progress: Callable[[int], None] | None = None,
) -> str:
    """The page for transcripts: the statistics `--format json` prints, and the charts over
    time from each call's own timestamp (`toolsel.replay.series`); `jobs`, `since` and
    `window` as `usage_paths` takes them (the charts draw the window's calls only)."""
    from toolsel.replay.driver import usage_paths
    from toolsel.replay.report import ToolEvent
    from toolsel.replay.series import SeriesRecorder

    recorder = SeriesRecorder()

    def in_window(event: ToolEvent) -> None:
        if window is None or window(event.at):
            recorder(event)

    totals = usage_paths(
        paths, on_event=in_window, jobs=jobs, since=since, window=window, progress=progress
    )
    return series_page(totals.stats(registry), recorder)


def series_page(stats: UsageStats, recorder: SeriesRecorder) -> str:
    """The page for statistics whose every call `recorder` was told of."""
    from dataclasses import replace

    series = recorder.finish()
    if recorder.untimed:
        calls = sum(t.calls for t in stats.tools)
        note = (
            "no call carried a timestamp readable as ISO 8601, so there are no charts over time"
            if not series
            else f"{recorder.untimed} of {calls} calls carried no timestamp readable as "
            "ISO 8601; the charts over time leave them out"
        )
        stats = replace(stats, notes=(*stats.notes, note))
    return stats_page(stats, source=_source(stats), series=series or None)


def render_stats_html(stats: UsageStats, out: IO[str], *, top: int = 0) -> None:
    out.write(stats_page(stats, source=_source(stats)))


def _source(stats: UsageStats) -> str:
    count = stats.transcripts
    return f"Tool usage across {count} transcript{'s' if count != 1 else ''}"
