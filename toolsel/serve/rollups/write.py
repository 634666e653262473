"""Writing: the roll-up tables (migration 2 of the usage store), and each batch of
records, with its first-use flags, and what it adds to the roll-ups (`UsageSums` per hour
and per day), in the transaction that stores it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from toolsel.replay.stats import UsageSums
from toolsel.serve.records import UsageRecord
from toolsel.serve.rollups.pairs import write_pairs
from toolsel.serve.rollups.sql import (
    COLUMNS,
    LISTED,
    Executor,
    chunks,
    column_values,
    marks,
    pair_tools,
    session_key,
)

ROLLUP_TABLES = ("usage_rollup", "usage_pairs_rollup", "usage_sessions_rollup")
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


@dataclass(slots=True)
class SessionTools:
    """A session's tools so far: each one's ordinal (order of first use), and its first
    PAIR_TOOLS tools by ordinal."""

    tools: dict[str, int]
    firsts: list[str]


@dataclass(slots=True)
class Plan:
    """A batch of records with their first-use flags, and what they add to the roll-ups:
    per (grain, period), the sums (`units`: the sessions started there)."""

    raw: list[tuple[Any, ...]] = field(default_factory=list)
    periods: dict[tuple[str, str], UsageSums] = field(default_factory=dict)
    sessions: dict[str, list[Any]] = field(default_factory=dict)  # skey -> [tools, last_at]
    tools: dict[tuple[str, str], list[Any]] = field(default_factory=dict)  # [ord, last, ok]


def load_sessions(db: Executor, keys: Sequence[str], *, lock: bool) -> dict[str, SessionTools]:
    """The sessions' tools so far. With `lock` (PostgreSQL), their rows are locked first
    (created empty if missing), so concurrent writers to one session take turns."""
    keys = sorted(set(keys))
    found = {key: SessionTools({}, []) for key in keys}
    limit = pair_tools()
    for chunk in chunks(keys):
        if lock:
            db.many(
                "INSERT INTO usage_sessions (skey, tools, last_at) VALUES (?, 0, '')"
                " ON CONFLICT (skey) DO NOTHING",
                [(key,) for key in chunk],
            )
            db.run(
                f"SELECT skey FROM usage_sessions WHERE skey IN ({marks(len(chunk))})"
                " ORDER BY skey FOR UPDATE",
                chunk,
            )
        rows = db.run(
            "SELECT skey, tool, ordinal FROM usage_session_tools"
            f" WHERE skey IN ({marks(len(chunk))}) ORDER BY skey, ordinal",
            chunk,
        )
        for key, tool, ordinal in rows:
            session = found[key]
            session.tools[tool] = ordinal
            if ordinal < limit:
                session.firsts.append(tool)
    return found


def plan(records: Sequence[UsageRecord], sessions: dict[str, SessionTools]) -> Plan:
    """Walk the records in order: flag first uses, and sum them per hour and per day."""
    from toolsel.replay.sketch import bucket

    limit = pair_tools()
    result = Plan()
    hourly: dict[str, UsageSums] = {}
    last_seen: dict[str, str] = {}
    for r in records:  # the hot loop of every write: kept flat
        tool, at, ok, latency, name = r.tool, r.at, r.ok, r.latency_ms, r.session
        key = "" if name is None else "." + name
        session = sessions[key]
        known = session.tools
        sums = hourly.get(at[:13])
        if sums is None:
            sums = hourly[at[:13]] = UsageSums()
        session_first = not known
        sums.units += session_first
        delta = sums.tool(tool)
        ordinal = known.get(tool)
        first = ordinal is None
        if ordinal is None:
            ordinal = known[tool] = len(known)
            delta.units += 1
            if ordinal < limit:
                for other in session.firsts:
                    pair = (other, tool) if other < tool else (tool, other)
                    sums.pairs[pair] = sums.pairs.get(pair, 0) + 1
                session.firsts.append(tool)
        delta.calls += 1
        delta.errors += not ok
        if latency is not None:
            delta.latency_count += 1
            delta.latency_sum += latency
            index = bucket(latency)
            delta.sketch[index] = delta.sketch.get(index, 0) + 1
        if at > delta.last_at:
            delta.last_at = at
        _note_tool(result.tools, key, tool, ordinal, at, ok)
        if at > last_seen.get(key, ""):
            last_seen[key] = at
        result.raw.append(
            (r.id, tool, ok, latency, name, r.error, at, first, session_first, ordinal)
        )
    for key, at in last_seen.items():
        result.sessions[key] = [len(sessions[key].tools), at]
    for hour, sums in hourly.items():
        result.periods["h", hour] = sums
        result.periods.setdefault(("d", hour[:10]), UsageSums()).merge(sums)
    return result


def _note_tool(
    rows: dict[tuple[str, str], list[Any]], key: str, tool: str, ordinal: int, at: str, ok: bool
) -> None:
    """A session's tool row: its ordinal, its last use, whether it ever succeeded."""
    row = rows.get((key, tool))
    if row is None:
        rows[key, tool] = [ordinal, at, ok]
        return
    if at > row[1]:
        row[1] = at
    if ok:
        row[2] = True


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
    for chunk in chunks(ids):
        rows = db.run(
            f"SELECT record_id FROM usage_records WHERE record_id IN ({marks(len(chunk))})", chunk
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


def _latest(table: str) -> str:
    """An upsert's `last_at`: the later of the stored and the new."""
    return (
        f"last_at = CASE WHEN excluded.last_at > {table}.last_at THEN excluded.last_at"
        f" ELSE {table}.last_at END"
    )


#: A period's per-tool sums added to its row: the sums by addition, the latest use, and
#: the sketch as `write_rollups` merged it.
UPSERT_ROLLUP = (
    f"INSERT INTO usage_rollup (grain, period, tool, {LISTED}, last_at, sketch)"
    f" VALUES ({marks(len(COLUMNS) + 5)}) ON CONFLICT (grain, period, tool) DO UPDATE SET "
    + ", ".join(f"{c} = usage_rollup.{c} + excluded.{c}" for c in COLUMNS)
    + f", {_latest('usage_rollup')}, sketch = COALESCE(excluded.sketch, usage_rollup.sketch)"
)


def write_rollups(db: Executor, batch: Plan) -> None:
    """Add a plan to the session and roll-up tables: sums by additive upserts, a latency
    sketch by read-merge-write on its row (locked on PostgreSQL). Rows in key order, so
    concurrent writers lock in one order."""
    _write_sessions(db, batch)
    groups = {
        (grain, period, tool): sums
        for (grain, period), period_sums in batch.periods.items()
        for tool, sums in period_sums.tools.items()
    }
    keys = sorted(groups)
    sketches = _merged_sketches(db, groups, [key for key in keys if groups[key].sketch])
    db.many(
        UPSERT_ROLLUP,
        [
            (*key, *column_values(groups[key]), groups[key].last_at, sketches.get(key))
            for key in keys
        ],
    )
    write_pairs(
        db,
        {
            (grain, period, a, b): count
            for (grain, period), sums in batch.periods.items()
            for (a, b), count in sums.pairs.items()
        },
    )
    db.many(
        "INSERT INTO usage_sessions_rollup (grain, period, started) VALUES (?, ?, ?)"
        " ON CONFLICT (grain, period) DO UPDATE SET"
        " started = usage_sessions_rollup.started + excluded.started",
        [(*key, sums.units) for key, sums in sorted(batch.periods.items()) if sums.units],
    )


def _write_sessions(db: Executor, batch: Plan) -> None:
    db.many(
        "INSERT INTO usage_sessions (skey, tools, last_at) VALUES (?, ?, ?) ON CONFLICT (skey)"
        f" DO UPDATE SET tools = excluded.tools, {_latest('usage_sessions')}",
        [(key, *batch.sessions[key]) for key in sorted(batch.sessions)],
    )
    db.many(
        "INSERT INTO usage_session_tools (skey, tool, ordinal, last_at, ok_seen)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (skey, tool) DO UPDATE SET"
        f" {_latest('usage_session_tools')},"
        " ok_seen = usage_session_tools.ok_seen OR excluded.ok_seen",
        [(*key, *batch.tools[key]) for key in sorted(batch.tools)],
    )


def _merged_sketches(
    db: Executor, groups: dict[tuple[str, str, str], Any], keys: list[tuple[str, str, str]]
) -> dict[tuple[str, str, str], bytes]:
    """Each of `keys`' stored sketch plus the batch's (rows made first, and locked on
    PostgreSQL), read by the primary key, in its order."""
    from toolsel.replay.sketch import add_to

    zeros = ", ".join("0" for _ in COLUMNS)
    db.many(
        f"INSERT INTO usage_rollup (grain, period, tool, {LISTED}, last_at)"
        f" VALUES (?, ?, ?, {zeros}, '') ON CONFLICT (grain, period, tool) DO NOTHING",
        keys,
    )
    by_period: dict[tuple[str, str], list[str]] = {}
    for grain, period, tool in keys:
        by_period.setdefault((grain, period), []).append(tool)
    lock = " FOR UPDATE" if db.pg else ""
    sketches: dict[tuple[str, str, str], bytes] = {}
    for (grain, period), tools in by_period.items():
        for chunk in chunks(tools):
            rows = db.run(
                "SELECT tool, sketch FROM usage_rollup WHERE grain = ? AND period = ?"
                f" AND tool IN ({marks(len(chunk))}) ORDER BY tool{lock}",
                [grain, period, *chunk],
            )
            for tool, blob in rows:
                sketches[grain, period, tool] = add_to(blob, groups[grain, period, tool].sketch)
    return sketches


def backfill(db: Executor) -> None:
    """Migration 2 on a store with records: flag and roll up what is there, in stored order."""
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
