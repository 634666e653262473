"""Reading a window's sums (`stats --db`): whole days and hours from the roll-ups, the
partial hours at its edges from the records. An hour is `YYYY-MM-DDTHH` (grain `h`), a
day `YYYY-MM-DD` (grain `d`): the first characters of the stored ISO time, so periods
compare as strings."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from toolsel.replay.stats import ToolSums
from toolsel.serve.rollups.pairs import pair_counts, record_pairs
from toolsel.serve.rollups.sql import (
    LISTED,
    RECORD_SQL,
    Executor,
    add_columns,
)
from toolsel.timeparse import iso, parse_iso

#: Later than any hour or day that can be stored (9999-12-31T23 has no next hour).
AFTER_LAST_HOUR = "9999-12-31T24"
AFTER_LAST_DAY = "9999-12-32"

#: A range of roll-ups: (grain, first period, end period), None: unbounded.
Range = tuple[str, str | None, str | None]


def default_since(now: datetime | None = None, days: int = 7) -> str:
    """The start of the default analytics window: the hour `days` days ago."""
    hour = (now or datetime.now(UTC)).astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    return iso(hour - timedelta(days=days))


def period_start(period: str) -> str:
    """The stored time at which an hour (`YYYY-MM-DDTHH`) or a day (`YYYY-MM-DD`) starts."""
    return period + (":00:00.000Z" if len(period) == 13 else "T00:00:00.000Z")


def next_period(period: str) -> str:
    """The hour or day after this one."""
    hour = len(period) == 13
    last = AFTER_LAST_HOUR if hour else AFTER_LAST_DAY
    if period >= last:
        return last
    moment = datetime(int(period[:4]), int(period[5:7]), int(period[8:10]), int(period[11:13] or 0))
    try:
        after = moment + timedelta(hours=1 if hour else 24)
    except OverflowError:
        return last
    text = f"{after.year:04d}-{after.month:02d}-{after.day:02d}"
    return f"{text}T{after.hour:02d}" if hour else text


def pieces(since: str | None, until: str | None) -> tuple[list[Range], list[tuple[str, str]]]:
    """A window `since <= at < until` as roll-up ranges and the partial hours at its
    edges, to read from the records."""
    if since is not None and until is not None and since >= until:
        return [], []
    edges = []
    low = high = None
    if since is not None:
        low = since[:13]
        if since != period_start(low):
            if until is not None and until[:13] == low:
                return [], [(since, until)]
            low = next_period(low)
            edges.append((since, period_start(low)))
    if until is not None:
        high = until[:13]
        if until != period_start(high):
            edges.append((period_start(high), until))
    if low is not None and high is not None and low >= high:
        return [], edges
    return _ranges(low, high), edges


def _ranges(low: str | None, high: str | None) -> list[Range]:
    """Whole hours [low, high) as whole days, and the hours before and after them."""
    first_day = (
        None if low is None else (low[:10] if low.endswith("T00") else next_period(low[:10]))
    )
    end_day = None if high is None else high[:10]
    if first_day is not None and end_day is not None and first_day >= end_day:
        return [("h", low, high)]
    ranges: list[Range] = [("d", first_day, end_day)]
    if low is not None and first_day is not None and low < first_day + "T00":
        ranges.append(("h", low, first_day + "T00"))
    if high is not None and end_day is not None and end_day + "T00" < high:
        ranges.append(("h", end_day + "T00", high))
    return ranges


def range_sql(grain: str, low: str | None, high: str | None) -> tuple[str, list[str]]:
    return bounds_sql("grain = ?", [grain], "period", low, high)


def bounds_sql(
    where: str, values: list[str], column: str, low: str | None, high: str | None
) -> tuple[str, list[str]]:
    """`where` (with its `values`) and `low <= column < high`, for each bound given."""
    for bound, value in ((">=", low), ("<", high)):
        if value is not None:
            where += f" AND {column} {bound} ?"
            values.append(value)
    return where, values


def window_parts(
    since: str | None, until: str | None
) -> tuple[list[Range], list[tuple[str, str, int]]]:
    """A window as roll-up ranges (`pieces`) and record ranges `(low, high, sign)` to add
    (+1) or take away (-1): a partial hour's smaller part is read from the records, either
    the part inside the window, or the whole hour's sums less the part outside."""
    ranges, edges = pieces(since, until)
    records = []
    for low, high in edges:
        hour = low[:13]
        start, end = period_start(hour), period_start(next_period(hour))
        outside = [(a, b) for a, b in ((start, low), (high, end)) if a < b]
        if _seconds(low, high) <= sum(_seconds(a, b) for a, b in outside):
            records.append((low, high, 1))
        else:
            ranges.append(("h", hour, next_period(hour)))
            records.extend((a, b, -1) for a, b in outside)
    return ranges, records


def _seconds(low: str, high: str) -> float:
    """The length of [low, high), two stored times (or the end of time)."""
    if high.startswith(AFTER_LAST_HOUR):
        high = "9999-12-31T23:59:59.999Z"
    return (parse_iso(high) - parse_iso(low)).total_seconds()


@dataclass(slots=True)
class Totals:
    """A window's sums: per tool, per co-used pair, and sessions started. A bounded read
    (`bounded_totals`) has its top tools only, the others summed in `rest`."""

    tools: dict[str, ToolSums] = field(default_factory=dict)
    pairs: dict[tuple[str, str], int] = field(default_factory=dict)
    sessions: int = 0
    rest: Rest = field(default_factory=lambda: Rest())
    #: of the names a bounded read was asked about, those called though not in its top
    called: set[str] = field(default_factory=set)
    #: each top tool's latencies (ms), when read exactly from a session's records
    latencies: dict[str, list[float]] = field(default_factory=dict)

    def tool(self, name: str) -> ToolSums:
        found = self.tools.get(name)
        if found is None:
            found = self.tools[name] = ToolSums()
        return found


@dataclass(frozen=True, slots=True)
class Rest:
    """The tools a bounded read leaves out (all but its top N by calls), summed."""

    tools: int = 0
    calls: int = 0
    errors: int = 0
    sessions: int = 0  # each tool's sessions, added up (a session may count more than once)
    latency_count: int = 0
    latency_sum: float = 0.0  # milliseconds
    last_at: str | None = None  # the latest use (`summary` only)


def window_totals(db: Executor, since: str | None, until: str | None) -> Totals:
    """The sums over `since <= at < until`: whole days and hours from the roll-ups, the
    partial hours at the edges from the records (a partial hour with no record outside the
    window is read as the whole hour)."""
    ranges, records = window_parts(since, until)
    totals = Totals()
    blobs: dict[str, list[bytes]] = {}
    pair_blobs: list[bytes] = []
    for grain, low_period, high_period in ranges:
        where, values = range_sql(grain, low_period, high_period)
        _add_rollups(db, totals, blobs, where, values)
        pair_blobs.extend(
            row[0] for row in db.run(f"SELECT pairs FROM usage_pairs_rollup WHERE {where}", values)
        )
    if pair_blobs:
        names = dict(db.run("SELECT id, tool FROM usage_tools"))
        for key, count in pair_counts(pair_blobs).items():
            pair = (names[key >> 32], names[key & 0xFFFFFFFF])
            totals.pairs[pair] = totals.pairs.get(pair, 0) + count
    for low, high, sign in records:
        _add_records(db, totals, low, high, sign)
    for tool, found in blobs.items():
        totals.tools[tool].stored.extend(found)
    return totals


def _add_rollups(
    db: Executor, totals: Totals, blobs: dict[str, list[bytes]], where: str, values: list[str]
) -> None:
    rows = db.run(f"SELECT tool, {LISTED}, sketch FROM usage_rollup WHERE {where}", values)
    for tool, *sums, blob in rows:
        add_columns(totals.tool(tool), sums)
        if blob:
            blobs.setdefault(tool, []).append(blob)
    started = db.run(f"SELECT SUM(started) FROM usage_sessions_rollup WHERE {where}", values)
    totals.sessions += int(started[0][0] or 0)


def _add_records(db: Executor, totals: Totals, low: str, high: str, sign: int = 1) -> None:
    """Add (sign -1: take away) the records of [low, high), summed by the database but for
    the latency buckets, which must be computed exactly as on write."""
    from toolsel.replay.sketch import bucket

    where = "FROM usage_records WHERE at >= ? AND at < ?"
    for tool, started, *sums in db.run(
        "SELECT tool, SUM(CASE WHEN session_first THEN 1 ELSE 0 END),"
        f" {', '.join(RECORD_SQL.values())} {where} GROUP BY tool",
        (low, high),
    ):
        add_columns(totals.tool(tool), sums, sign)
        totals.sessions += sign * int(started)
    for tool, latency in db.run(
        f"SELECT tool, latency_ms {where} AND latency_ms IS NOT NULL", (low, high)
    ):
        sketch = totals.tools[tool].sketch
        index = bucket(latency)
        sketch[index] = sketch.get(index, 0) + sign
    for pair, count in record_pairs(db, "at >= ? AND at < ?", (low, high), sign).items():
        totals.pairs[pair] = totals.pairs.get(pair, 0) + count
