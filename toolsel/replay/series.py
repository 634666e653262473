"""Usage over time from transcripts: what `stats --format html` charts when it reads
transcripts rather than a usage store. Built from the `tool_start`/`tool_result` events
the matcher emits (`replay_paths(on_event=...)`), so nothing is read twice.

A call counts in the time slice holding its start (the call's own timestamp); its result,
error and latency count with it. Calls copied from an earlier file of the run (resumed
sessions) are left out, as `stats` leaves them out. Calls with no readable timestamp are
counted in `untimed` and drawn nowhere.

Memory is bounded by time, not by calls: calls are summed per second and tool, and past
`MAX_BUCKETS` sums they are merged into minutes, then hours, then days. Latency percentiles come
from a sketch (`toolsel.replay.sketch`: within 1%)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolsel.replay.report import ToolEvent
from toolsel.replay.stats import Quantiles, ToolSums, UsageStats, UsageSums
from toolsel.timeparse import epoch_seconds, iso

if TYPE_CHECKING:
    from toolsel.replay.lines import Progress
    from toolsel.replay.totals import UsageTotals
    from toolsel.replay.window import CallWindow

#: How many slices the charts over time draw (as the usage store's series does).
WINDOWS = 14
#: Distinct (time, tool) sums kept before they are merged into a coarser unit.
MAX_BUCKETS = 50_000
#: The units calls are summed in, finest first (seconds).
UNITS = (1, 60, 3600, 86400)


def usage_over_time(
    paths: list[str],
    *,
    jobs: int = 1,
    since: float | None = None,
    window: CallWindow | None = None,
    progress: Progress | None = None,
) -> tuple[UsageTotals, SeriesRecorder]:
    """What `stats` counts of the transcripts (`usage_paths`, which takes `jobs`, `since`
    and `window`), and every call counted told to a recorder (the window's only)."""
    from toolsel.replay.driver import usage_paths

    recorder = SeriesRecorder()

    def in_window(event: ToolEvent) -> None:
        if window is None or window(event.at):
            recorder(event)

    totals = usage_paths(
        paths, on_event=in_window, jobs=jobs, since=since, window=window, progress=progress
    )
    return totals, recorder


class SeriesRecorder:
    """An event sink; `finish()` gives the series: (slice start as ISO 8601, statistics)."""

    def __init__(self, max_buckets: int = MAX_BUCKETS) -> None:
        self.max_buckets = max_buckets
        self.unit = 0  # index into UNITS
        self.sums: dict[tuple[int, str], ToolSums] = {}
        self.open: dict[tuple[int, str], tuple[int, str] | None] = {}  # (file, id) -> key
        self.file_ids: dict[str, int] = {}
        self.untimed = 0  # calls with no readable time
        self.low: float | None = None
        self.high: float | None = None

    def __call__(self, event: ToolEvent) -> None:
        number = self.file_ids.setdefault(event.file, len(self.file_ids))
        ident = (number, event.id)
        if event.event == "tool_start":
            if ident in self.open or event.copied or event.tool is None:
                return  # announced again (enriched), or a copy `stats` does not count
            at = epoch_seconds(event.at)
            if at is None:
                self.untimed += 1
                self.open[ident] = None
                return
            self.low = at if self.low is None else min(self.low, at)
            self.high = at if self.high is None else max(self.high, at)
            key = (int(at // UNITS[self.unit]) * UNITS[self.unit], event.tool)
            sums = self.sums.get(key)
            if sums is None:
                sums = self.sums[key] = ToolSums(seen=set())
                if len(self.sums) > self.max_buckets:
                    while len(self.sums) > self.max_buckets and self.unit < len(UNITS) - 1:
                        self._coarsen()  # as many units coarser as it takes, up to days
                    key = (int(at // UNITS[self.unit]) * UNITS[self.unit], event.tool)
                    sums = self.sums[key]
            sums.calls += 1
            if sums.seen is not None:
                sums.seen.add(number)
            self.open[ident] = key
            return
        if ident not in self.open:
            return
        opened = self.open.pop(ident)
        if opened is None:
            return
        sums = self.sums[opened]
        sums.answered += 1
        sums.errors += bool(event.is_error)
        if event.latency_ms is not None:
            from toolsel.replay.sketch import bucket

            index = bucket(event.latency_ms)
            sums.sketch[index] = sums.sketch.get(index, 0) + 1

    def _coarsen(self) -> None:
        self.unit += 1
        size = UNITS[self.unit]
        merged: dict[tuple[int, str], ToolSums] = {}
        moved: dict[tuple[int, str], tuple[int, str]] = {}
        for (start, tool), sums in self.sums.items():
            key = (start // size * size, tool)
            moved[(start, tool)] = key
            into = merged.get(key)
            if into is None:
                merged[key] = sums
            else:
                into.add(sums)
        self.sums = merged
        for ident, was in self.open.items():
            if was is not None:
                self.open[ident] = moved[was]

    def finish(self, windows: int = WINDOWS) -> tuple[tuple[str, UsageStats], ...]:
        """At most `windows` equal slices, each a whole number of the units calls were
        summed in, from the first call's unit to the last's end; empty when no call
        carries a time."""
        if self.low is None or self.high is None:
            return ()
        size = UNITS[self.unit]
        start = int(self.low // size) * size
        end = (int(self.high // size) + 1) * size
        step = -(-(end - start) // (windows * size)) * size  # whole units, never straddled
        windows = -(-(end - start) // step)
        slices = [UsageSums() for _ in range(windows)]
        for (at, tool), sums in self.sums.items():
            slices[(at - start) // step].tool(tool).add(sums)
        return tuple(
            (iso(start + n * step, "seconds"), _slice_stats(slices[n])) for n in range(windows)
        )


def _slice_stats(sums: UsageSums) -> UsageStats:
    """A slice's statistics: a file counts once for each tool it called in the slice."""
    files: set[int] = set()
    for t in sums.tools.values():
        assert t.seen is not None
        t.units = len(t.seen)
        files |= t.seen
    sums.units = len(files)
    return sums.stats(quantiles=_nearest_ranks)


def _nearest_ranks(sums: ToolSums) -> Quantiles:
    """The charts' percentiles: the nearest-rank median and 95th percentile of the sketch
    (within 1%), to the microsecond."""
    from toolsel.replay.sketch import ranked

    count = sum(sums.sketch.values())
    if not count:
        return None, None
    median, high = -(-count // 2) - 1, -(-95 * count // 100) - 1
    found = ranked(sums.sketch, {median, high})
    return round(found[median] / 1000, 6), round(found[high] / 1000, 6)
