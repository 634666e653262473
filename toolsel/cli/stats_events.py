"""`toolsel stats --events DIR`: the statistics from exported event tables, reduced in SQL."""

from __future__ import annotations

from pathlib import Path

from toolsel.cli.common import check_output, output
from toolsel.errors import UsageError
from toolsel.registry.model import Registry
from toolsel.render.formats import StatsFormat


def stats_from_events(
    events: Path,
    paths: list[str] | None,
    db: str | None,
    registry: Registry | None,
    output_format: StatsFormat,
    output_file: Path | None,
    top: int,
) -> None:
    from toolsel.events.reduce import events_stats
    from toolsel.render.stats import STATS_RENDERERS, series_page

    if paths or db is not None:
        raise UsageError("give transcripts, --db URL or --events DIR, one of them")
    check_output(output_file, ())
    recorder = None
    if output_format is StatsFormat.HTML:  # with the charts over time, as from transcripts
        from toolsel.replay.series import SeriesRecorder

        recorder = SeriesRecorder()
    result = events_stats(str(events), registry, series=recorder)
    with output(output_file) as out:
        if recorder is not None:
            out.write(series_page(result, recorder))
        else:
            STATS_RENDERERS[output_format](result, out, top=top)
