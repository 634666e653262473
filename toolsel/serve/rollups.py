"""The usage store's roll-ups: per-tool, per-period sums kept up to date as records are
written (in the same transaction), so that analytics costs hours, days and tools, not records.

Periods are the first characters of the stored ISO time: `YYYY-MM-DDTHH` for an hour
(grain `h`), `YYYY-MM-DD` for a day (grain `d`); they compare as strings. Sessions are
counted by first use (see `toolsel.replay.stats.records_stats`, the exact reference these sums
must equal): each record carries whether it is its session's first record, whether it is the
first use of its tool in its session, and the tool's ordinal (order of first use) in the
session; `usage_session_tools` keeps each session's tools with their ordinals.

Everything here runs through an `Executor` (one open transaction), on SQLite or PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from toolsel.replay.stats import ToolTotals
    from toolsel.serve.store import UsageRecord

ROLLUP_TABLES = ("usage_rollup", "usage_pairs_rollup", "usage_sessions_rollup")
#: Rows of one statement's IN list.
CHUNK = 300

#: Migration 2: first-use columns on the records, the sessions' tools, and the roll-ups.
SCHEMA = (
    "ALTER TABLE usage_records ADD COLUMN first_use BOOLEAN NOT NULL DEFAULT FALSE",
    "ALTER TABLE usage_records ADD COLUMN session_first BOOLEAN NOT NULL DEFAULT FALSE",
    "ALTER TABLE usage_records ADD COLUMN ordinal INTEGER NOT NULL DEFAULT 0",
    """CREATE TABLE usage_sessions (
        skey TEXT PRIMARY KEY,
        tools INTEGER NOT NULL,
        last_at TEXT NOT NULL
    )""",
    "CREATE INDEX usage_sessions_last_at ON usage_sessions (last_at)",
    """CREATE TABLE usage_session_tools (
        skey TEXT NOT NULL,
        tool TEXT NOT NULL,
        ordinal INTEGER NOT NULL,
        last_at TEXT NOT NULL,
        ok_seen BOOLEAN NOT NULL,
        PRIMARY KEY (skey, tool)
    )""",
    """CREATE TABLE usage_rollup (
        grain TEXT NOT NULL,
        period TEXT NOT NULL,
        tool TEXT NOT NULL,
        calls BIGINT NOT NULL,
        errors BIGINT NOT NULL,
        sessions BIGINT NOT NULL,
        latency_count BIGINT NOT NULL,
        latency_sum DOUBLE PRECISION NOT NULL,
        last_at TEXT NOT NULL,
        sketch {blob},
        PRIMARY KEY (grain, period, tool)
    )""",
    """CREATE TABLE usage_tools (
        id {serial} PRIMARY KEY,
        tool TEXT NOT NULL UNIQUE
    )""",
    """CREATE TABLE usage_pairs_rollup (
        grain TEXT NOT NULL,
        period TEXT NOT NULL,
        pairs {blob} NOT NULL,
        PRIMARY KEY (grain, period)
    )""",
    """CREATE TABLE usage_sessions_rollup (
        grain TEXT NOT NULL,
        period TEXT NOT NULL,
        started BIGINT NOT NULL,
        PRIMARY KEY (grain, period)
    )""",
)

#: The session key of a record: "" for records without a session, "." + session otherwise
#: (so that no session, and a session named "", stay apart, as they always were).
SESSION_KEY_SQL = "CASE WHEN r.session IS NULL THEN '' ELSE '.' || r.session END"


def session_key(session: str | None) -> str:
    return "" if session is None else "." + session


class Executor(Protocol):
    """One open transaction on either engine; SQL is written with `?` marks."""

    pg: bool

    def run(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> int: ...


def _chunks(items: Sequence[Any], size: int = CHUNK) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _marks(count: int, width: int = 1) -> str:
    one = "?" if width == 1 else "(" + ", ".join("?" * width) + ")"
    return ", ".join([one] * count)


def _pair_tools() -> int:
    from toolsel.replay import stats

    return stats.PAIR_TOOLS


# -- writing ---------------------------------------------------------------------------------


@dataclass(slots=True)
class _Session:
    tools: dict[str, int]  # tool -> ordinal
    firsts: list[str]  # its first PAIR_TOOLS tools, by ordinal


@dataclass(slots=True)
class Delta:
    """What a batch adds to one (grain, period, tool) roll-up."""

    calls: int = 0
    errors: int = 0
    sessions: int = 0
    latency_count: int = 0
    latency_sum: float = 0.0
    last_at: str = ""
    sketch: dict[int, int] = field(default_factory=dict)

    def sums(self) -> tuple[int, int, int, int, float, str]:
        return (
            self.calls,
            self.errors,
            self.sessions,
            self.latency_count,
            self.latency_sum,
            self.last_at,
        )

    def add(self, other: Delta) -> None:
        from toolsel.replay.sketch import merge

        self.calls += other.calls
        self.errors += other.errors
        self.sessions += other.sessions
        self.latency_count += other.latency_count
        self.latency_sum += other.latency_sum
        self.last_at = max(self.last_at, other.last_at)
        merge(self.sketch, other.sketch)


@dataclass(slots=True)
class Plan:
    """A batch of records with their first-use flags, and what they add to the roll-ups."""

    raw: list[tuple[Any, ...]] = field(default_factory=list)
    groups: dict[tuple[str, str, str], Delta] = field(default_factory=dict)
    pairs: dict[tuple[str, str, str, str], int] = field(default_factory=dict)
    started: dict[tuple[str, str], int] = field(default_factory=dict)
    sessions: dict[str, list[Any]] = field(default_factory=dict)  # skey -> [tools, last_at]
    tools: dict[tuple[str, str], list[Any]] = field(default_factory=dict)  # [ord, last, ok]


def load_sessions(db: Executor, keys: Sequence[str], *, lock: bool) -> dict[str, _Session]:
    """The sessions' tools so far. With `lock` (PostgreSQL), their rows are locked first
    (created empty if missing), so concurrent writers to one session take turns."""
    keys = sorted(set(keys))
    found = {key: _Session({}, []) for key in keys}
    for chunk in _chunks(keys):
        if lock:
            db.many(
                "INSERT INTO usage_sessions (skey, tools, last_at) VALUES (?, 0, '')"
                " ON CONFLICT (skey) DO NOTHING",
                [(key,) for key in chunk],
            )
            db.run(
                f"SELECT skey FROM usage_sessions WHERE skey IN ({_marks(len(chunk))})"
                " ORDER BY skey FOR UPDATE",
                chunk,
            )
        rows = db.run(
            "SELECT skey, tool, ordinal FROM usage_session_tools"
            f" WHERE skey IN ({_marks(len(chunk))}) ORDER BY skey, ordinal",
            chunk,
        )
        limit = _pair_tools()
        for key, tool, ordinal in rows:
            session = found[key]
            session.tools[tool] = ordinal
            if ordinal < limit:
                session.firsts.append(tool)
    return found


def plan(records: Sequence[UsageRecord], sessions: dict[str, _Session]) -> Plan:
    """Walk the records in order: flag first uses, and sum them per hour and per day."""
    from toolsel.replay.sketch import bucket

    limit = _pair_tools()
    result = Plan()
    hourly: dict[tuple[str, str], Delta] = {}
    pairs: dict[tuple[str, str, str], int] = {}
    started: dict[str, int] = {}
    raw, tool_rows = result.raw, result.tools
    last_seen: dict[str, str] = {}
    for r in records:  # the hot loop of every write: kept flat
        tool, at, ok, latency, name = r.tool, r.at, r.ok, r.latency_ms, r.session
        key = "" if name is None else "." + name
        session = sessions[key]
        known = session.tools
        hour = at[:13]
        session_first = not known
        if session_first:
            started[hour] = started.get(hour, 0) + 1
        delta = hourly.get((hour, tool))
        if delta is None:
            delta = hourly[hour, tool] = Delta()
        ordinal = known.get(tool)
        first = ordinal is None
        if ordinal is None:
            ordinal = known[tool] = len(known)
            delta.sessions += 1
            if ordinal < limit:
                for other in session.firsts:
                    pair = (hour, other, tool) if other < tool else (hour, tool, other)
                    pairs[pair] = pairs.get(pair, 0) + 1
                session.firsts.append(tool)
        delta.calls += 1
        if not ok:
            delta.errors += 1
        if latency is not None:
            delta.latency_count += 1
            delta.latency_sum += latency
            index = bucket(latency)
            delta.sketch[index] = delta.sketch.get(index, 0) + 1
        if at > delta.last_at:
            delta.last_at = at
        row = tool_rows.get((key, tool))
        if row is None:
            tool_rows[key, tool] = [ordinal, at, ok]
        else:
            if at > row[1]:
                row[1] = at
            if ok:
                row[2] = True
        if at > last_seen.get(key, ""):
            last_seen[key] = at
        raw.append((r.id, tool, ok, latency, name, r.error, at, first, session_first, ordinal))
    for key, at in last_seen.items():
        result.sessions[key] = [len(sessions[key].tools), at]
    for (hour, tool), delta in hourly.items():
        result.groups["h", hour, tool] = delta
        day = result.groups.get(("d", hour[:10], tool))
        if day is None:
            day = result.groups["d", hour[:10], tool] = Delta()
        day.add(delta)
    for (hour, a, b), count in pairs.items():
        result.pairs["h", hour, a, b] = count
        result.pairs["d", hour[:10], a, b] = result.pairs.get(("d", hour[:10], a, b), 0) + count
    for hour, count in started.items():
        result.started["h", hour] = count
        result.started["d", hour[:10]] = result.started.get(("d", hour[:10]), 0) + count
    return result


INSERT_RECORDS = (
    "INSERT INTO usage_records (record_id, tool, ok, latency_ms, session, error, at,"
    " first_use, session_first, ordinal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (record_id) DO NOTHING"
)


class Race(Exception):
    """Another transaction stored one of the batch's ids first: roll back and try again."""


def store_records(db: Executor, records: Sequence[UsageRecord]) -> int:
    """Store the records not stored yet (by id) and add them to the roll-ups; how many."""
    fresh = new_records(db, records)
    if not fresh:
        return 0
    sessions = load_sessions(db, [session_key(r.session) for r in fresh], lock=db.pg)
    batch = plan(fresh, sessions)
    if db.many(INSERT_RECORDS, batch.raw) != len(fresh):
        raise Race
    write_rollups(db, batch)
    return len(fresh)


def new_records(db: Executor, records: Sequence[UsageRecord]) -> list[UsageRecord]:
    """The records whose id is not stored (nor earlier in the batch)."""
    ids = sorted({r.id for r in records if r.id is not None})
    seen: set[str] = set()
    for chunk in _chunks(ids):
        rows = db.run(
            f"SELECT record_id FROM usage_records WHERE record_id IN ({_marks(len(chunk))})", chunk
        )
        seen.update(row[0] for row in rows)
    fresh = []
    for r in records:
        if r.id is not None:
            if r.id in seen:
                continue
            seen.add(r.id)
        fresh.append(r)
    return fresh


def write_rollups(db: Executor, batch: Plan) -> None:
    """Add a plan to the session and roll-up tables: sums by additive upserts, a latency
    sketch by read-merge-write on its row (locked on PostgreSQL). Rows in key order, so
    concurrent writers lock in one order."""
    from toolsel.replay.sketch import add_to

    db.many(
        "INSERT INTO usage_sessions (skey, tools, last_at) VALUES (?, ?, ?)"
        " ON CONFLICT (skey) DO UPDATE SET tools = excluded.tools, last_at = CASE"
        " WHEN excluded.last_at > usage_sessions.last_at THEN excluded.last_at"
        " ELSE usage_sessions.last_at END",
        [(key, *batch.sessions[key]) for key in sorted(batch.sessions)],
    )
    db.many(
        "INSERT INTO usage_session_tools (skey, tool, ordinal, last_at, ok_seen)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (skey, tool) DO UPDATE SET last_at = CASE"
        " WHEN excluded.last_at > usage_session_tools.last_at THEN excluded.last_at"
        " ELSE usage_session_tools.last_at END,"
        " ok_seen = usage_session_tools.ok_seen OR excluded.ok_seen",
        [(*key, *batch.tools[key]) for key in sorted(batch.tools)],
    )
    keys = sorted(batch.groups)
    sketches: dict[tuple[str, str, str], bytes] = {}
    with_sketch = [key for key in keys if batch.groups[key].sketch]
    db.many(
        "INSERT INTO usage_rollup (grain, period, tool, calls, errors, sessions, latency_count,"
        " latency_sum, last_at) VALUES (?, ?, ?, 0, 0, 0, 0, 0, '')"
        " ON CONFLICT (grain, period, tool) DO NOTHING",
        with_sketch,
    )
    by_period: dict[tuple[str, str], list[str]] = {}
    for grain, period, tool in with_sketch:
        by_period.setdefault((grain, period), []).append(tool)
    lock = " FOR UPDATE" if db.pg else ""
    for (grain, period), tools in by_period.items():  # the primary key's lookups, in its order
        for chunk in _chunks(tools):
            rows = db.run(
                "SELECT tool, sketch FROM usage_rollup WHERE grain = ? AND period = ?"
                f" AND tool IN ({_marks(len(chunk))}) ORDER BY tool{lock}",
                [grain, period, *chunk],
            )
            for tool, blob in rows:
                sketches[grain, period, tool] = add_to(
                    blob, batch.groups[grain, period, tool].sketch
                )
    db.many(
        "INSERT INTO usage_rollup (grain, period, tool, calls, errors, sessions, latency_count,"
        " latency_sum, last_at, sketch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (grain, period, tool) DO UPDATE SET"
        " calls = usage_rollup.calls + excluded.calls,"
        " errors = usage_rollup.errors + excluded.errors,"
        " sessions = usage_rollup.sessions + excluded.sessions,"
        " latency_count = usage_rollup.latency_count + excluded.latency_count,"
        " latency_sum = usage_rollup.latency_sum + excluded.latency_sum,"
        " last_at = CASE WHEN excluded.last_at > usage_rollup.last_at THEN excluded.last_at"
        " ELSE usage_rollup.last_at END,"
        " sketch = COALESCE(excluded.sketch, usage_rollup.sketch)",
        [(*key, *batch.groups[key].sums(), sketches.get(key)) for key in keys],
    )
    _write_pairs(db, batch.pairs)
    db.many(
        "INSERT INTO usage_sessions_rollup (grain, period, started) VALUES (?, ?, ?)"
        " ON CONFLICT (grain, period) DO UPDATE SET"
        " started = usage_sessions_rollup.started + excluded.started",
        [(*key, batch.started[key]) for key in sorted(batch.started)],
    )


def backfill(db: Executor) -> None:
    """Migration 2 on a store with records: flag and roll up what is there, in stored order."""
    from toolsel.serve.store import UsageRecord

    last = 0
    while True:
        rows = db.run(
            "SELECT seq, record_id, tool, ok, latency_ms, session, error, at FROM usage_records"
            " WHERE seq > ? ORDER BY seq LIMIT 5000",
            (last,),
        )
        if not rows:
            return
        last = rows[-1][0]
        records = [
            UsageRecord(tool, bool(ok), at, latency, session, error, rid)
            for _, rid, tool, ok, latency, session, error, at in rows
        ]
        sessions = load_sessions(db, [session_key(r.session) for r in records], lock=False)
        batch = plan(records, sessions)
        db.many(
            "UPDATE usage_records SET first_use = ?, session_first = ?, ordinal = ? WHERE seq = ?",
            [(raw[7], raw[8], raw[9], row[0]) for raw, row in zip(batch.raw, rows, strict=True)],
        )
        write_rollups(db, batch)


# -- reading ---------------------------------------------------------------------------------


@dataclass(slots=True)
class Totals:
    """A window's sums: per tool, per co-used pair, and sessions started. A bounded read
    (`bounded_totals`) has its top tools only, the others summed in `rest`."""

    tools: dict[str, ToolTotals] = field(default_factory=dict)
    pairs: dict[tuple[str, str], int] = field(default_factory=dict)
    sessions: int = 0
    rest: Rest = field(default_factory=lambda: Rest())
    #: of the names a bounded read was asked about, those called though not in its top
    called: set[str] = field(default_factory=set)
    #: each top tool's latencies (ms), when read exactly from a session's records
    latencies: dict[str, list[float]] = field(default_factory=dict)


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


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


#: Later than any hour or day that can be stored (9999-12-31T23 has no next hour).
AFTER_LAST_HOUR = "9999-12-31T24"
AFTER_LAST_DAY = "9999-12-32"


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


def pieces(
    since: str | None, until: str | None
) -> tuple[list[tuple[str, str | None, str | None]], list[tuple[str, str]]]:
    """A window `since <= at < until` as roll-up ranges `(grain, first period, end period)`
    (None: unbounded) and the partial hours at its edges, to read from the records."""
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
    first_day = (
        None if low is None else (low[:10] if low.endswith("T00") else next_period(low[:10]))
    )
    end_day = None if high is None else high[:10]
    if first_day is not None and end_day is not None and first_day >= end_day:
        return [("h", low, high)], edges
    ranges: list[tuple[str, str | None, str | None]] = [("d", first_day, end_day)]
    if low is not None and first_day is not None and low < first_day + "T00":
        ranges.append(("h", low, first_day + "T00"))
    if high is not None and end_day is not None and end_day + "T00" < high:
        ranges.append(("h", end_day + "T00", high))
    return ranges, edges


def _range_sql(grain: str, low: str | None, high: str | None) -> tuple[str, list[str]]:
    where, values = "grain = ?", [grain]
    if low is not None:
        where += " AND period >= ?"
        values.append(low)
    if high is not None:
        where += " AND period < ?"
        values.append(high)
    return where, values


def window_parts(
    since: str | None, until: str | None
) -> tuple[list[tuple[str, str | None, str | None]], list[tuple[str, str, int]]]:
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


def window_totals(db: Executor, since: str | None, until: str | None) -> Totals:
    """The sums over `since <= at < until`: whole days and hours from the roll-ups, the
    partial hours at the edges from the records (a partial hour with no record outside the
    window is read as the whole hour)."""
    ranges, records = window_parts(since, until)
    totals = Totals()
    blobs: dict[str, list[bytes]] = {}
    pair_blobs: list[bytes] = []
    for grain, low_period, high_period in ranges:
        _add_rollups(db, totals, blobs, pair_blobs, *_range_sql(grain, low_period, high_period))
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


def _tool(totals: Totals, name: str) -> ToolTotals:
    from toolsel.replay.stats import ToolTotals

    found = totals.tools.get(name)
    if found is None:
        found = totals.tools[name] = ToolTotals()
    return found


def _add_rollups(
    db: Executor,
    totals: Totals,
    blobs: dict[str, list[bytes]],
    pair_blobs: list[bytes],
    where: str,
    values: list[str],
) -> None:
    rows = db.run(
        "SELECT tool, calls, errors, sessions, latency_count, latency_sum, sketch"
        f" FROM usage_rollup WHERE {where}",
        values,
    )
    for tool, calls, errors, sessions, count, total, blob in rows:
        t = _tool(totals, tool)
        t.calls += int(calls)
        t.errors += int(errors)
        t.sessions += int(sessions)
        t.latency_count += int(count)
        t.latency_sum += float(total)
        if blob:
            blobs.setdefault(tool, []).append(blob)
    pair_blobs.extend(
        row[0] for row in db.run(f"SELECT pairs FROM usage_pairs_rollup WHERE {where}", values)
    )
    started = db.run(f"SELECT SUM(started) FROM usage_sessions_rollup WHERE {where}", values)
    totals.sessions += int(started[0][0] or 0)


def _seconds(low: str, high: str) -> float:
    """The length of [low, high), two stored times (or the end of time)."""
    if high.startswith(AFTER_LAST_HOUR):
        high = "9999-12-31T23:59:59.999Z"
    parse = datetime.fromisoformat
    return (parse(high.replace("Z", "+00:00")) - parse(low.replace("Z", "+00:00"))).total_seconds()


def _add_records(db: Executor, totals: Totals, low: str, high: str, sign: int = 1) -> None:
    """Add (sign -1: take away) the records of [low, high), summed by the database but for
    the latency buckets, which must be computed exactly as on write."""
    from toolsel.replay.sketch import bucket

    where = "FROM usage_records WHERE at >= ? AND at < ?"
    for tool, calls, errors, firsts, started, count, total in db.run(
        "SELECT tool, COUNT(*), SUM(CASE WHEN ok THEN 0 ELSE 1 END),"
        " SUM(CASE WHEN first_use THEN 1 ELSE 0 END), SUM(CASE WHEN session_first THEN 1 ELSE 0 END),"
        f" COUNT(latency_ms), SUM(latency_ms) {where} GROUP BY tool",
        (low, high),
    ):
        t = _tool(totals, tool)
        t.calls += sign * int(calls)
        t.errors += sign * int(errors)
        t.sessions += sign * int(firsts)
        totals.sessions += sign * int(started)
        t.latency_count += sign * int(count)
        t.latency_sum += sign * float(total or 0)
    for tool, latency in db.run(
        f"SELECT tool, latency_ms {where} AND latency_ms IS NOT NULL", (low, high)
    ):
        sketch = totals.tools[tool].sketch
        index = bucket(latency)
        sketch[index] = sketch.get(index, 0) + sign
    for later, earlier, count in db.run(
        "SELECT r.tool, t.tool, COUNT(*) FROM usage_records r JOIN usage_session_tools t"
        f" ON t.skey = {SESSION_KEY_SQL} AND t.ordinal < r.ordinal"
        " WHERE r.at >= ? AND r.at < ? AND r.first_use AND r.ordinal > 0 AND r.ordinal < ?"
        " GROUP BY r.tool, t.tool",
        (low, high, _pair_tools()),
    ):
        pair = (earlier, later) if earlier < later else (later, earlier)
        totals.pairs[pair] = totals.pairs.get(pair, 0) + sign * int(count)


# -- bounded reading (`toolsel serve`): the top N tools, the others summed ---------------------

#: Per-tool sums of one roll-up range, and of records (times a sign), in one row shape.
ROLLUP_SUMS = (
    "SELECT tool, calls, errors, sessions, latency_count, latency_sum FROM usage_rollup"
    " WHERE {where}"
)
RECORD_SUMS = (
    "SELECT tool, {sign} * COUNT(*) AS calls,"
    " {sign} * SUM(CASE WHEN ok THEN 0 ELSE 1 END) AS errors,"
    " {sign} * SUM(CASE WHEN first_use THEN 1 ELSE 0 END) AS sessions,"
    " {sign} * COUNT(latency_ms) AS latency_count,"
    " {sign} * COALESCE(SUM(latency_ms), 0) AS latency_sum"
    " FROM usage_records WHERE {where} GROUP BY tool"
)
#: Co-used pairs (the most counted, and those tied with them) whose tools' names a bounded
#: read looks up, to order ties by name as the exact statistics do.
PAIR_CANDIDATES = 1000


@dataclass(frozen=True, slots=True)
class _Part:
    """Rows a bounded read sums: a roll-up range, or records (their sums times `sign`)."""

    where: str
    values: tuple[Any, ...]
    records: bool = False
    sign: int = 1

    def sums(self, only: Sequence[str] = ()) -> tuple[str, list[Any]]:
        """The part's per-tool sums (of the `only` tools, if given)."""
        where = self.where + (f" AND tool IN ({_marks(len(only))})" if only else "")
        if self.records:
            return RECORD_SUMS.format(sign=self.sign, where=where), [*self.values, *only]
        return ROLLUP_SUMS.format(where=where), [*self.values, *only]


def _parts(since: str | None, until: str | None, session: str | None) -> list[_Part]:
    """A window as roll-up ranges and record ranges; a session's, as its records."""
    if session is not None:
        where, values = "session = ?", [session]
        for bound, value in ((">=", since), ("<", until)):
            if value is not None:
                where += f" AND at {bound} ?"
                values.append(value)
        return [_Part(where, tuple(values), records=True)]
    ranges, records = window_parts(since, until)
    parts = []
    for grain, low_period, high_period in ranges:
        where, values = _range_sql(grain, low_period, high_period)
        parts.append(_Part(where, tuple(values)))
    parts += [_Part("at >= ? AND at < ?", (low, high), True, sign) for low, high, sign in records]
    return parts


def bounded_totals(
    db: Executor,
    since: str | None,
    until: str | None,
    *,
    top: int,
    session: str | None = None,
    among: Sequence[str] = (),
) -> Totals:
    """The window's sums for its `top` most-called tools (ties by name), the others summed
    in `rest`. The database picks them, so what is read here grows with `top`, the `among`
    names and the window's periods, never with the number of distinct tools stored.
    `among`: names (the registry's) to look up beyond the top: those called go in `called`.
    A session's window is read from its records, its latencies exactly."""
    parts = _parts(since, until, session)
    totals = Totals()
    if not parts:  # an empty window
        return totals
    listed, totals.rest = top_and_rest(db, parts, top)
    for tool, calls, errors, sessions, count, total in listed:
        totals.tools[tool] = _totals(calls, errors, sessions, count, total)
    _add_latencies(db, totals, parts, exact=session is not None)
    for part in parts:
        totals.sessions += _started(db, part)
    totals.pairs = _top_pairs(db, parts)
    if totals.rest.tools:  # else every tool called is listed
        unlisted = [name for name in dict.fromkeys(among) if name not in totals.tools]
        totals.called = _called(db, parts, unlisted)
    return totals


def _called(db: Executor, parts: Sequence[_Part], names: Sequence[str]) -> set[str]:
    """Those of `names` with calls in the parts (looked up by name, a chunk at a time)."""
    found: set[str] = set()
    for chunk in _chunks(names):
        sums = [part.sums(chunk) for part in parts]
        found.update(
            row[0]
            for row in db.run(
                f"SELECT tool FROM ({' UNION ALL '.join(sql for sql, _ in sums)}) AS source"
                " GROUP BY tool HAVING SUM(calls) > 0",
                [value for _, values in sums for value in values],
            )
        )
    return found


def top_and_rest(
    db: Executor, parts: Sequence[_Part], top: int
) -> tuple[list[tuple[Any, ...]], Rest]:
    """The parts' sums per tool: the `top` tools with most calls (ties by name), most
    first, and the others summed. One query: the database groups every tool and hands
    back `top` + 1 rows."""
    sums = [part.sums() for part in parts]
    source = " UNION ALL ".join(sql for sql, _ in sums)
    columns = ("calls", "errors", "sessions", "latency_count", "latency_sum")
    values = [value for _, values in sums for value in values]
    rows, rest = _ranked(db, source, values, [("SUM", c) for c in columns], top)
    count, calls, errors, sessions, latency_count, latency_sum = rest
    return rows, Rest(count, calls, errors, sessions, latency_count, latency_sum)


def top_summary(db: Executor, top: int) -> tuple[list[tuple[Any, ...]], Rest]:
    """Every day's sums per tool, (tool, calls, errors, latency sum, latency count, last
    use), for the `top` most-called tools, and the others summed."""
    columns = [("SUM", "calls"), ("SUM", "errors"), ("SUM", "latency_sum")]
    columns += [("SUM", "latency_count"), ("MAX", "last_at")]
    source = "SELECT * FROM usage_rollup WHERE grain = 'd'"
    rows, rest = _ranked(db, source, [], columns, top)
    count, calls, errors, latency_sum, latency_count, last = rest
    return rows, Rest(count, calls, errors, 0, latency_count, latency_sum, last)


def _ranked(
    db: Executor,
    source: str,
    values: Sequence[Any],
    columns: Sequence[tuple[str, str]],
    top: int,
) -> tuple[list[tuple[Any, ...]], tuple[Any, ...]]:
    """`source`'s rows grouped by tool, each column aggregated (`("SUM", "calls")` first),
    tools without calls left out: the `top` with most calls (ties by name), most first,
    and (how many others, their columns aggregated again). One grouping, in the database."""
    named = ", ".join(f"{how}({column}) AS c{n}" for n, (how, column) in enumerate(columns))
    listed = ", ".join(f"c{n}" for n in range(len(columns)))
    again = ", ".join(f"{how}(c{n})" for n, (how, _) in enumerate(columns))
    collate = ' COLLATE "C"' if db.pg else ""  # ties in code point order, as Python sorts
    found = db.run(
        f"WITH grouped AS (SELECT tool, {named} FROM ({source}) AS source"
        " GROUP BY tool HAVING SUM(calls) > 0),"
        f" listed AS (SELECT * FROM grouped ORDER BY c0 DESC, tool{collate} LIMIT ?)"
        f" SELECT tool, {listed}, 1 FROM listed"
        f" UNION ALL SELECT NULL, {again}, COUNT(*) FROM grouped"
        " WHERE tool NOT IN (SELECT tool FROM listed)",
        [*values, top],
    )
    numeric = [how == "SUM" for how, _ in columns]

    def read(row: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(_number(v) if sums else v for v, sums in zip(row, numeric, strict=True))

    rows = [(row[0], *read(row[1:-1])) for row in found if row[0] is not None]
    rows.sort(key=lambda row: (-row[1], row[0]))
    (rest,) = [row for row in found if row[0] is None]
    return rows, (int(rest[-1]), *read(rest[1:-1]))


def _number(value: Any) -> int | float:
    """A sum as Python reads it: PostgreSQL sums integers as decimals, and nothing as null."""
    from decimal import Decimal

    if value is None:
        return 0
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value  # type: ignore[no-any-return]


def _totals(calls: Any, errors: Any, sessions: Any, count: Any, total: Any) -> ToolTotals:
    from toolsel.replay.stats import ToolTotals

    return ToolTotals(int(calls), int(errors), int(sessions), int(count), float(total))


def _add_latencies(db: Executor, totals: Totals, parts: Sequence[_Part], *, exact: bool) -> None:
    """The top tools' latencies: roll-ups' sketches, records' values (bucketed as on write,
    or kept as they are with `exact`)."""
    from toolsel.replay.sketch import bucket

    names = list(totals.tools)
    for chunk in _chunks(names):
        marks = _marks(len(chunk))
        for part in parts:
            if not part.records:
                for tool, blob in db.run(
                    f"SELECT tool, sketch FROM usage_rollup WHERE {part.where}"
                    f" AND sketch IS NOT NULL AND tool IN ({marks})",
                    [*part.values, *chunk],
                ):
                    totals.tools[tool].stored.append(blob)
                continue
            for tool, latency in db.run(
                f"SELECT tool, latency_ms FROM usage_records WHERE {part.where}"
                f" AND latency_ms IS NOT NULL AND tool IN ({marks})",
                [*part.values, *chunk],
            ):
                if exact:
                    totals.latencies.setdefault(tool, []).append(latency)
                    continue
                sketch = totals.tools[tool].sketch
                index = bucket(latency)
                sketch[index] = sketch.get(index, 0) + part.sign


def _started(db: Executor, part: _Part) -> int:
    """Sessions started in a part."""
    if part.records:
        sql = "SELECT SUM(CASE WHEN session_first THEN 1 ELSE 0 END) FROM usage_records"
    else:
        sql = "SELECT SUM(started) FROM usage_sessions_rollup"
    return part.sign * int(db.run(f"{sql} WHERE {part.where}", part.values)[0][0] or 0)


def _top_pairs(db: Executor, parts: Sequence[_Part]) -> dict[tuple[str, str], int]:
    """The most counted co-used pairs (and those tied with the last that counts), summed in
    numpy by tool ids; only their tools' names are read."""
    import numpy as np

    from toolsel.replay.stats import TOP_PAIRS

    keys, counts = _pair_sums(db, parts)
    if not len(keys):
        return {}
    order = np.lexsort((keys, -counts))[:PAIR_CANDIDATES]
    last = counts[order[min(TOP_PAIRS, len(order)) - 1]]
    order = order[counts[order] >= last]
    chosen = [(int(k), int(n)) for k, n in zip(keys[order], counts[order], strict=True)]
    ids = sorted({k >> 32 for k, _ in chosen} | {k & 0xFFFFFFFF for k, _ in chosen})
    names: dict[int, str] = {}
    for chunk in _chunks(ids):
        names.update(
            db.run(f"SELECT id, tool FROM usage_tools WHERE id IN ({_marks(len(chunk))})", chunk)
        )
    return {(names[k >> 32], names[k & 0xFFFFFFFF]): n for k, n in chosen}


def _pair_sums(db: Executor, parts: Sequence[_Part]) -> tuple[Any, Any]:
    """Every pair's count over the parts, as (keys, counts) arrays, counted pairs only."""
    import numpy as np

    blobs: list[bytes] = []
    keyed: list[tuple[int, int]] = []
    for part in parts:
        if part.records:
            keyed.extend(_record_pairs(db, part))
        else:
            sql = f"SELECT pairs FROM usage_pairs_rollup WHERE {part.where}"
            blobs.extend(row[0] for row in db.run(sql, part.values))
    keys, counts = _pair_arrays(blobs)
    if keyed:
        extra = np.array(keyed, dtype=np.int64)
        keys, where = np.unique(np.concatenate([keys, extra[:, 0]]), return_inverse=True)
        summed = np.zeros(len(keys), dtype=np.int64)
        np.add.at(summed, where, np.concatenate([counts, extra[:, 1]]))
        counts = summed
    kept = counts > 0
    return keys[kept], counts[kept]


def _record_pairs(db: Executor, part: _Part) -> list[tuple[int, int]]:
    """The pairs a part's records complete, keyed as `encode_pairs` keys them, each count
    times the part's sign. Each session's first tools are read once (an index on a
    session's tools by ordinal would be a new migration), and paired here: at most
    PAIR_TOOLS per session."""
    limit = _pair_tools()
    later = db.run(
        f"SELECT {SESSION_KEY_SQL}, r.tool, r.ordinal FROM usage_records r WHERE {part.where}"
        " AND r.first_use AND r.ordinal > 0 AND r.ordinal < ?",
        [*part.values, limit],
    )
    earlier: dict[str, list[tuple[int, str]]] = {}
    for chunk in _chunks(sorted({key for key, _, _ in later})):
        for key, tool, ordinal in db.run(
            "SELECT skey, tool, ordinal FROM usage_session_tools"
            f" WHERE skey IN ({_marks(len(chunk))}) AND ordinal < ?",
            [*chunk, limit],
        ):
            earlier.setdefault(key, []).append((ordinal, tool))
    counts: dict[tuple[str, str], int] = {}
    for key, tool, ordinal in later:
        for before, other in earlier.get(key, ()):
            if before < ordinal:
                pair = (other, tool) if other < tool else (tool, other)
                counts[pair] = counts.get(pair, 0) + part.sign
    ids: dict[str, int] = {}
    for chunk in _chunks(sorted({name for pair in counts for name in pair})):
        ids.update(
            db.run(f"SELECT tool, id FROM usage_tools WHERE tool IN ({_marks(len(chunk))})", chunk)
        )
    return [(ids[a] << 32 | ids[b], n) for (a, b), n in counts.items()]


def default_since(now: datetime | None = None, days: int = 7) -> str:
    """The start of the default analytics window: the hour `days` days ago."""
    hour = (now or datetime.now(UTC)).astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    return iso(hour - timedelta(days=days))


# -- pruning ---------------------------------------------------------------------------------


def forget_hour(db: Executor, hour: str) -> int:
    """Take an hour's roll-ups out of its day's, and delete them (pruning part of a day)."""
    from toolsel.replay.sketch import decode, encode, merge

    day = hour[:10]
    rows = db.run(
        "SELECT tool, calls, errors, sessions, latency_count, latency_sum, sketch"
        " FROM usage_rollup WHERE grain = 'h' AND period = ? ORDER BY tool",
        (hour,),
    )
    lock = " FOR UPDATE" if db.pg else ""
    days = dict(
        db.run(
            "SELECT tool, sketch FROM usage_rollup WHERE grain = 'd' AND period = ?"
            f" ORDER BY tool{lock}",
            (day,),
        )
    )
    updates = []
    for tool, calls, errors, sessions, count, total, blob in rows:
        sketch = decode(days.get(tool))
        merge(sketch, decode(blob), -1)
        updates.append(
            (calls, errors, sessions, count, total, encode(sketch) if sketch else None, day, tool)
        )
    db.many(
        "UPDATE usage_rollup SET calls = calls - ?, errors = errors - ?, sessions = sessions - ?,"
        " latency_count = latency_count - ?, latency_sum = latency_sum - ?, sketch = ?"
        " WHERE grain = 'd' AND period = ? AND tool = ?",
        updates,
    )
    hour_pairs = db.run(
        "SELECT pairs FROM usage_pairs_rollup WHERE grain = 'h' AND period = ?", (hour,)
    )
    day_pairs = db.run(
        f"SELECT pairs FROM usage_pairs_rollup WHERE grain = 'd' AND period = ?{lock}", (day,)
    )
    if hour_pairs and day_pairs:
        left = pair_counts([day_pairs[0][0]])
        for key, count in pair_counts([hour_pairs[0][0]]).items():
            left[key] = left.get(key, 0) - count
        db.many(
            "UPDATE usage_pairs_rollup SET pairs = ? WHERE grain = 'd' AND period = ?",
            [(encode_pairs(left), day)],
        )
    db.many(
        "UPDATE usage_sessions_rollup SET started = started - ? WHERE grain = 'd' AND period = ?",
        [(n, day) for (n,) in db.run(
            "SELECT started FROM usage_sessions_rollup WHERE grain = 'h' AND period = ?", (hour,)
        )],
    )  # fmt: skip
    for table, empty in zip(
        ROLLUP_TABLES, ("calls <= 0", "length(pairs) = 0", "started <= 0"), strict=True
    ):
        db.many(f"DELETE FROM {table} WHERE grain = 'd' AND period = ? AND {empty}", [(day,)])
    return sum(
        db.many(f"DELETE FROM {table} WHERE grain = 'h' AND period = ?", [(hour,)])
        for table in ROLLUP_TABLES
    )


def forget_sessions(db: Executor, before: str, batch: int) -> int:
    """Delete up to `batch` sessions idle since before `before` (and their tools): a session
    that comes back later starts afresh."""
    keys = [
        key
        for (key,) in db.run(
            "SELECT skey FROM usage_sessions WHERE last_at < ? ORDER BY skey LIMIT ?",
            (before, batch),
        )
    ]
    deleted = 0
    for chunk in _chunks(keys):
        marks = _marks(len(chunk))
        deleted += db.many(f"DELETE FROM usage_session_tools WHERE skey IN ({marks})", [chunk])
        deleted += db.many(f"DELETE FROM usage_sessions WHERE skey IN ({marks})", [chunk])
    return deleted


# -- co-used pairs: one row per period, its pairs' counts in a blob -----------------------------


def encode_pairs(counts: dict[int, int]) -> bytes:
    """Pair keys (first tool's id << 32 | second's, int64), then counts (int64), by key;
    pairs counted 0 are left out."""
    import numpy as np

    keys = np.fromiter(counts.keys(), np.int64, len(counts))
    values = np.fromiter(counts.values(), np.int64, len(counts))
    return _pack_pairs(keys, values)


def _pack_pairs(keys: Any, values: Any) -> bytes:
    import numpy as np

    order = np.argsort(keys, kind="stable")
    kept = values[order] != 0
    return bytes(
        keys[order][kept].astype("<i8").tobytes() + values[order][kept].astype("<i8").tobytes()
    )


def _pair_arrays(blobs: Sequence[bytes]) -> tuple[Any, Any]:
    """The summed (keys, counts) of encoded pair blobs, by key."""
    import numpy as np

    parts = [bytes(b) for b in blobs if b]
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    keys = np.concatenate([np.frombuffer(p, "<i8", len(p) // 16) for p in parts])
    values = np.concatenate([np.frombuffer(p, "<i8", offset=len(p) // 2) for p in parts])
    firsts, seconds = keys >> 32, keys & 0xFFFFFFFF
    side = int(max(firsts.max(), seconds.max())) + 1
    if side <= 2048:  # few tools: count in a dense table, without sorting
        totals = np.bincount(firsts * side + seconds, weights=values, minlength=side * side)
        found = np.flatnonzero(totals)
        return (found // side) << 32 | found % side, totals[found].round().astype(np.int64)
    unique, where = np.unique(keys, return_inverse=True)
    summed = np.zeros(len(unique), dtype=np.int64)
    np.add.at(summed, where, values)
    return unique, summed


def pair_counts(blobs: Sequence[bytes]) -> dict[int, int]:
    """The summed counts of encoded pair blobs."""
    keys, totals = _pair_arrays(blobs)
    return {int(k): int(n) for k, n in zip(keys.tolist(), totals.tolist(), strict=True) if n}


def add_pairs(blob: bytes | None, counts: dict[int, int]) -> bytes:
    """An encoded pair blob plus a batch's counts, in numpy."""
    return _pack_pairs(*_pair_arrays([blob or b"", encode_pairs(counts)]))


def tool_ids(db: Executor, names: set[str]) -> dict[str, int]:
    """Each tool's id in `usage_tools` (given one when new)."""
    wanted = sorted(names)
    found: dict[str, int] = {}
    for chunk in _chunks(wanted):
        found.update(
            db.run(f"SELECT tool, id FROM usage_tools WHERE tool IN ({_marks(len(chunk))})", chunk)
        )
    missing = [(name,) for name in wanted if name not in found]
    if missing:
        db.many("INSERT INTO usage_tools (tool) VALUES (?) ON CONFLICT (tool) DO NOTHING", missing)
        return tool_ids(db, names)
    return found


def _write_pairs(db: Executor, pairs: dict[tuple[str, str, str, str], int]) -> None:
    """Add a batch's pairs to each period's blob (its row locked on PostgreSQL)."""
    if not pairs:
        return
    ids = tool_ids(db, {name for key in pairs for name in key[2:]})
    periods: dict[tuple[str, str], dict[int, int]] = {}
    for (grain, period, a, b), count in pairs.items():
        found = periods.setdefault((grain, period), {})
        key = ids[a] << 32 | ids[b]
        found[key] = found.get(key, 0) + count
    keys = sorted(periods)
    db.many(
        "INSERT INTO usage_pairs_rollup (grain, period, pairs) VALUES (?, ?, ?)"
        " ON CONFLICT (grain, period) DO NOTHING",
        [(*key, b"") for key in keys],
    )
    lock = " FOR UPDATE" if db.pg else ""
    updates = []
    for grain in sorted({grain for grain, _ in keys}):
        for chunk in _chunks([period for g, period in keys if g == grain]):
            rows = db.run(
                "SELECT period, pairs FROM usage_pairs_rollup WHERE grain = ?"
                f" AND period IN ({_marks(len(chunk))}) ORDER BY period{lock}",
                [grain, *chunk],
            )
            for period, blob in rows:
                updates.append((add_pairs(blob, periods[grain, period]), grain, period))
    db.many("UPDATE usage_pairs_rollup SET pairs = ? WHERE grain = ? AND period = ?", updates)
