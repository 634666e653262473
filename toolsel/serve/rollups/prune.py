"""Pruning: an hour's roll-ups taken out of its day's, and sessions idle for long."""

from __future__ import annotations

from collections import Counter

from toolsel.serve.rollups.pairs import encode_pairs, pair_counts
from toolsel.serve.rollups.sql import COLUMNS, LISTED, Executor, chunks, marks
from toolsel.serve.rollups.write import ROLLUP_TABLES


def forget_hour(db: Executor, hour: str) -> int:
    """Take an hour's roll-ups out of its day's, and delete them (pruning part of a day)."""
    from toolsel.replay.sketch import decode, encode, merge

    day = hour[:10]
    rows = db.run(
        f"SELECT tool, {LISTED}, sketch FROM usage_rollup WHERE grain = 'h' AND period = ?"
        " ORDER BY tool",
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
    for tool, *sums, blob in rows:
        sketch = decode(days.get(tool))
        merge(sketch, decode(blob), -1)
        updates.append((*sums, encode(sketch) if sketch else None, day, tool))
    taken = ", ".join(f"{column} = {column} - ?" for column in COLUMNS)
    db.many(
        f"UPDATE usage_rollup SET {taken}, sketch = ? WHERE grain = 'd' AND period = ? AND tool = ?",
        updates,
    )
    _forget_hour_pairs(db, hour, lock)
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


def _forget_hour_pairs(db: Executor, hour: str, lock: str) -> None:
    day = hour[:10]
    hour_pairs = db.run(
        "SELECT pairs FROM usage_pairs_rollup WHERE grain = 'h' AND period = ?", (hour,)
    )
    day_pairs = db.run(
        f"SELECT pairs FROM usage_pairs_rollup WHERE grain = 'd' AND period = ?{lock}", (day,)
    )
    if hour_pairs and day_pairs:
        left = Counter(pair_counts([day_pairs[0][0]]))
        left.subtract(pair_counts([hour_pairs[0][0]]))
        db.many(
            "UPDATE usage_pairs_rollup SET pairs = ? WHERE grain = 'd' AND period = ?",
            [(encode_pairs(left), day)],
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
    for chunk in chunks(keys):
        listed = marks(len(chunk))
        deleted += db.many(f"DELETE FROM usage_session_tools WHERE skey IN ({listed})", [chunk])
        deleted += db.many(f"DELETE FROM usage_sessions WHERE skey IN ({listed})", [chunk])
    return deleted
