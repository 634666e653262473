"""The usage store: where `toolsel serve` records how each call went, and what `/v1/analytics`
and `toolsel stats --db` read. One interface, two engines, one schema with versioned
migrations:

- SQLite (default: under the user data directory, readable by its owner only), WAL and
  `synchronous=FULL`, so a record is on disk before its request is answered; one writer
  connection, one reader per thread, so reads and writes never wait for each other.
- PostgreSQL (`postgresql://...`, psycopg 3), shared by replicas through a checked pool; a
  write lost with its connection is tried once more when that cannot store it twice.

A record's `id` makes recording idempotent: a retried batch never counts a call twice.
Records are summed per tool, hour and day in the transaction that writes them
(`toolsel.serve.rollups`). A read stops at its work's deadline (`toolsel.deadline`) and
raises `StoreTimeout`.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from toolsel.errors import UsageError
from toolsel.serve.records import UsageRecord, Window
from toolsel.serve.store.base import (
    MIGRATIONS,
    SCHEMA_VERSION,
    RecordRefused,
    StoreFull,
    StoreTimeout,
    StoreUnavailable,
    UsageStore,
    redacted,
    scrubbed,
)
from toolsel.serve.store.sqlite import SqliteStore
from toolsel.timeparse import iso, parse_iso

if TYPE_CHECKING:
    from toolsel.registry.model import Registry
    from toolsel.replay.stats import UsageStats

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "RecordRefused",
    "SqliteStore",
    "StoreFull",
    "StoreTimeout",
    "StoreUnavailable",
    "UsageRecord",
    "UsageStore",
    "Window",
    "default_url",
    "now",
    "open_store",
    "redacted",
    "scrubbed",
    "stored_time",
    "window_series",
    "window_stats",
]


def now() -> str:
    return iso(datetime.now(UTC))


def stored_time(value: str) -> str:
    """An ISO 8601 time as records store it (UTC, milliseconds, `Z`); ValueError, with the
    reason, if it is not one or falls outside the years 0001-9999 in UTC. A time without a
    zone is taken as UTC."""
    stored = len(value) == 24 and value[19] == "." and value[20:23].isdigit() and value[23] == "Z"
    try:
        parsed = parse_iso(value)
    except ValueError as error:
        raise ValueError(f"not an ISO 8601 time ({error})") from None
    if stored:  # already as stored (what clients usually send): it is a real time
        return value
    try:
        return iso(parsed.astimezone(UTC))
    except (OverflowError, ValueError):
        raise ValueError("outside the years 0001 to 9999 once converted to UTC") from None


def default_url() -> str:
    from platformdirs import user_data_dir

    return f"sqlite:///{Path(user_data_dir('toolsel', appauthor=False)) / 'usage.sqlite3'}"


def open_store(url: str | None = None, *, max_bytes: int | None = None) -> UsageStore:
    """The store at `url` (`sqlite:///path`, `postgresql://...`; default: SQLite under the
    user data directory), migrated to the current schema."""
    url = url or default_url()
    store: UsageStore
    if url.startswith("sqlite:///"):
        store = SqliteStore(url)
    elif url.startswith(("postgresql://", "postgres://")):
        from toolsel.serve.store.postgres import PostgresStore

        store = PostgresStore(url)
    else:
        raise UsageError(
            f"--db {redacted(url)}: not a database URL",
            hint="use sqlite:///path/to/usage.sqlite3 or postgresql://user@host/dbname",
        )
    store.max_bytes = max_bytes
    return store


def window_stats(
    store: UsageStore, window: Window, registry: Registry | None = None, *, exact: bool = False
) -> UsageStats:
    """The statistics of a window: from the roll-ups; from the records themselves (exact
    percentiles, and a cost that follows the records) with `exact` or for one session."""
    from toolsel.replay.stats import records_stats, totals_stats

    if exact or window.session is not None:
        rows = store.records(window.session)
        return records_stats(rows, registry, since=window.since, until=window.until)
    totals = store.totals(window)
    return totals_stats(totals.tools, totals.pairs, totals.sessions, registry)


#: Windows of `stats --db --format html`'s charts over time (a week: twelve hours each).
SERIES_WINDOWS = 14


def window_series(
    store: UsageStore,
    window: Window,
    registry: Registry | None = None,
    *,
    exact: bool = False,
) -> tuple[tuple[str, UsageStats], ...]:
    """The window cut into SERIES_WINDOWS equal slices, each with its statistics (start, stats),
    for charts over time; an open window is the dashboard's: the last 7 days to this hour's
    end."""
    from toolsel.serve.rollups import default_since

    now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    start = parse_iso(window.since or default_since())
    end = parse_iso(window.until) if window.until else now
    step = (end - start) / SERIES_WINDOWS
    series = []
    for n in range(SERIES_WINDOWS):
        low, high = iso(start + n * step), iso(start + (n + 1) * step)
        part = Window(low, high, window.session)
        series.append((low, window_stats(store, part, registry, exact=exact)))
    return tuple(series)
