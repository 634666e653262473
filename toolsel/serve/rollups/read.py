"""Reading a window's sums (`stats --db`): whole days and hours from the roll-ups, the
partial hours at its edges from the records, each a `Part`, which the bounded read of
`toolsel serve` (`top`) sums the same way. An hour is `YYYY-MM-DDTHH` (grain `h`), a
day `YYYY-MM-DD` (grain `d`): the first characters of the stored ISO time, so periods
compare as strings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from toolsel.replay.stats import ToolSums
from toolsel.serve.rollups.pairs import ids_of, pair_arrays, record_pairs
from toolsel.serve.rollups.sql import LISTED, RECORD_SQL, Executor, add_columns, marks
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
    last_at: str | None = None  # the latest use (`top_summary` only)


@dataclass(frozen=True, slots=True)
class Part:
    """Rows a window's read sums: a roll-up range, or records (their sums times `sign`)."""

    where: str
    values: tuple[Any, ...]
    records: bool = False
    sign: int = 1

    def sums(self, only: Sequence[str] = ()) -> tuple[str, list[Any]]:
        """The part's per-tool sums (of the `only` tools, if given), in COLUMNS' order."""
        where = self.where + (f" AND tool IN ({marks(len(only))})" if only else "")
        if not self.records:
            return f"SELECT tool, {LISTED} FROM usage_rollup WHERE {where}", [*self.values, *only]
        listed = ", ".join(f"{self.sign} * {sql} AS {c}" for c, sql in RECORD_SQL.items())
        sql = f"SELECT tool, {listed} FROM usage_records WHERE {where} GROUP BY tool"
        return sql, [*self.values, *only]


def parts_of(since: str | None, until: str | None, session: str | None = None) -> list[Part]:
    """A window as roll-up ranges and record ranges (`window_parts`); a session's, as its
    records."""
    if session is not None:
        where, values = bounds_sql("session = ?", [session], "at", since, until)
        return [Part(where, tuple(values), records=True)]
    ranges, records = window_parts(since, until)
    found = []
    for grain, low_period, high_period in ranges:
        where, values = range_sql(grain, low_period, high_period)
        found.append(Part(where, tuple(values)))
    found += [Part("at >= ? AND at < ?", (low, high), True, sign) for low, high, sign in records]
    return found


def window_totals(db: Executor, since: str | None, until: str | None) -> Totals:
    """The sums over `since <= at < until`, of every tool and pair: whole days and hours
    from the roll-ups, the partial hours at the edges from the records (a partial hour with
    no record outside the window is read as the whole hour)."""
    found = parts_of(since, until)
    totals = Totals()
    for part in found:
        sql, values = part.sums()
        for tool, *sums in db.run(sql, values):
            add_columns(totals.tool(tool), sums)
        totals.sessions += started(db, part)
        add_latencies(db, totals, part)
    keys, counts = pair_sums(db, found)
    if len(keys):
        names = dict(db.run("SELECT id, tool FROM usage_tools"))
        for key, count in zip(keys.tolist(), counts.tolist(), strict=True):
            totals.pairs[names[key >> 32], names[key & 0xFFFFFFFF]] = count
    return totals


def started(db: Executor, part: Part) -> int:
    """Sessions started in a part."""
    if part.records:
        sql = "SELECT SUM(CASE WHEN session_first THEN 1 ELSE 0 END) FROM usage_records"
    else:
        sql = "SELECT SUM(started) FROM usage_sessions_rollup"
    return part.sign * int(db.run(f"{sql} WHERE {part.where}", part.values)[0][0] or 0)


def add_latencies(
    db: Executor, totals: Totals, part: Part, only: Sequence[str] = (), *, exact: bool = False
) -> None:
    """A part's latencies (of the `only` tools, if given; each in `totals.tools`): roll-ups'
    sketches, records' values (bucketed as on write, or kept as they are with `exact`)."""
    from toolsel.replay.sketch import bucket

    table, column = ("usage_records", "latency_ms") if part.records else ("usage_rollup", "sketch")
    listed = f" AND tool IN ({marks(len(only))})" if only else ""
    for tool, value in db.run(
        f"SELECT tool, {column} FROM {table} WHERE {part.where} AND {column} IS NOT NULL{listed}",
        [*part.values, *only],
    ):
        if not part.records:
            totals.tools[tool].stored.append(value)
        elif exact:
            totals.latencies.setdefault(tool, []).append(value)
        else:
            sketch = totals.tools[tool].sketch
            index = bucket(value)
            sketch[index] = sketch.get(index, 0) + part.sign


def pair_sums(db: Executor, found: Sequence[Part]) -> tuple[Any, Any]:
    """Every pair's count over the parts, as (keys, counts) arrays, counted pairs only."""
    import numpy as np

    blobs: list[bytes] = []
    keyed: list[tuple[int, int]] = []
    for part in found:
        if part.records:
            completed = record_pairs(db, part.where, part.values, part.sign)
            ids = ids_of(db, sorted({name for pair in completed for name in pair}))
            keyed.extend((ids[a] << 32 | ids[b], n) for (a, b), n in completed.items())
        else:
            sql = f"SELECT pairs FROM usage_pairs_rollup WHERE {part.where}"
            blobs.extend(row[0] for row in db.run(sql, part.values))
    keys, counts = pair_arrays(blobs)
    if keyed:
        extra = np.array(keyed, dtype=np.int64)
        keys, where = np.unique(np.concatenate([keys, extra[:, 0]]), return_inverse=True)
        summed = np.zeros(len(keys), dtype=np.int64)
        np.add.at(summed, where, np.concatenate([counts, extra[:, 1]]))
        counts = summed
    kept = counts > 0
    return keys[kept], counts[kept]
