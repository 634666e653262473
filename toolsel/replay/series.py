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

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from toolsel.replay.report import ToolEvent
from toolsel.replay.stats import ToolUsage, UsageStats

#: How many slices the charts over time draw (as the usage store's series does).
WINDOWS = 14
#: Distinct (time, tool) sums kept before they are merged into a coarser unit.
MAX_BUCKETS = 50_000
#: The units calls are summed in, finest first (seconds).
UNITS = (1, 60, 3600, 86400)


@dataclass(slots=True)
class _Sums:
    calls: int = 0
    answered: int = 0
    errors: int = 0
    sketch: dict[int, int] = field(default_factory=dict)
    files: set[int] = field(default_factory=set)

    def add(self, other: _Sums) -> None:
        from toolsel.replay.sketch import merge

        self.calls += other.calls
        self.answered += other.answered
        self.errors += other.errors
        merge(self.sketch, other.sketch)
        self.files |= other.files


def epoch_seconds(timestamp: str | None) -> float | None:
    """An ISO 8601 timestamp as seconds since the epoch (a time without a zone is UTC)."""
    if not timestamp:
        return None
    try:
        moment = datetime.fromisoformat(timestamp)
    except (ValueError, TypeError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


class SeriesRecorder:
    """An event sink; `finish()` gives the series: (slice start as ISO 8601, statistics)."""

    def __init__(self, max_buckets: int = MAX_BUCKETS) -> None:
        self.max_buckets = max_buckets
        self.unit = 0  # index into UNITS
        self.sums: dict[tuple[int, str], _Sums] = {}
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
                sums = self.sums[key] = _Sums()
                if len(self.sums) > self.max_buckets:
                    while len(self.sums) > self.max_buckets and self.unit < len(UNITS) - 1:
                        self._coarsen()  # as many units coarser as it takes, up to days
                    key = (int(at // UNITS[self.unit]) * UNITS[self.unit], event.tool)
                    sums = self.sums[key]
            sums.calls += 1
            sums.files.add(number)
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
        merged: dict[tuple[int, str], _Sums] = {}
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
        slices: list[dict[str, _Sums]] = [{} for _ in range(windows)]
        for (at, tool), sums in self.sums.items():
            index = (at - start) // step
            into = slices[index].get(tool)
            if into is None:
                slices[index][tool] = into = _Sums()
            into.add(sums)
        return tuple((_iso(start + n * step), _slice_stats(slices[n])) for n in range(windows))


def _iso(seconds: float) -> str:
    moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=seconds)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def _slice_stats(tools: dict[str, _Sums]) -> UsageStats:
    from toolsel.replay.sketch import bucket_value

    usage = []
    for name, sums in tools.items():
        median = p95 = None
        count = sum(sums.sketch.values())
        if count:
            ranks = {"median": -(-count // 2), "p95": -(-95 * count // 100)}
            seen = 0
            found: dict[str, float] = {}
            for index in sorted(sums.sketch):
                seen += sums.sketch[index]
                for label, rank in ranks.items():
                    if label not in found and seen >= rank:
                        found[label] = round(bucket_value(index) / 1000, 6)
            median, p95 = found["median"], found["p95"]
        usage.append(
            ToolUsage(
                name=name,
                calls=sums.calls,
                errors=sums.errors,
                transcripts=len(sums.files),
                median_latency_s=median,
                answered=sums.answered,
                p95_latency_s=p95,
            )
        )
    usage.sort(key=lambda u: (-u.calls, u.name))
    return UsageStats(
        transcripts=len(set().union(*(s.files for s in tools.values()))) if tools else 0,
        tools=tuple(usage),
        never_called=None,
        co_used_pairs=(),
    )
