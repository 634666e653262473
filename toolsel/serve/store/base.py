"""What both engines of the usage store share: its interface and every read and write
that is only SQL (`UsageStore`), its errors, and its schema's migrations."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from toolsel.errors import UsageError
from toolsel.serve import rollups
from toolsel.serve.records import UsageRecord, Window

if TYPE_CHECKING:
    from toolsel.replay.stats import UsageRow
    from toolsel.serve.rollups import Executor, Rest, Totals

T = TypeVar("T")

#: (version, steps): applied in order in one transaction, recorded in `toolsel_schema`. A step
#: is SQL or a function of the open transaction. Never edit a released step: add one.
MIGRATIONS: tuple[tuple[int, tuple[str | Callable[[Executor], None], ...]], ...] = (
    (
        1,
        (
            """CREATE TABLE usage_records (
                seq {serial} PRIMARY KEY,
                record_id TEXT UNIQUE,
                tool TEXT NOT NULL,
                ok BOOLEAN NOT NULL,
                latency_ms DOUBLE PRECISION,
                session TEXT,
                error TEXT,
                at TEXT NOT NULL
            )""",
            "CREATE INDEX usage_records_at ON usage_records (at)",
            "CREATE INDEX usage_records_session ON usage_records (session, tool)",
        ),
    ),
    (2, (*rollups.SCHEMA, rollups.backfill)),
)
SCHEMA_VERSION = MIGRATIONS[-1][0]
#: Rows one pruning transaction deletes at most.
PRUNE_BATCH = 5000


class StoreUnavailable(Exception):
    """The database cannot be reached now (HTTP 503); the message names it, without secrets."""


class StoreTimeout(StoreUnavailable):
    """A read stopped at the deadline of its work (`toolsel.deadline`), unfinished."""


class RecordRefused(ValueError):
    """A record the store cannot hold as sent (HTTP 422); the message says which and why."""


class StoreFull(Exception):
    """The store is at its size limit (`--max-store`, HTTP 507): nothing more is recorded."""


def redacted(url: str) -> str:
    """The store's URL (or libpq keyword string) with its password shown as `***`."""
    from toolsel.redact import mask_conninfo

    return mask_conninfo(url)


def scrubbed(text: str, url: str) -> str:
    """A message (a driver's error) with the URL's passwords taken out."""
    from urllib.parse import unquote

    from toolsel.redact import MASK, mask_known

    secrets = set()
    rest = url.partition("://")[2]
    at = rest.rfind("@")
    if at >= 0 and ":" in rest[:at]:
        secrets.add(rest[:at].partition(":")[2])
    secrets.update(re.findall(r"(?i)(?:[?&][^=&#]*|\b)password\s*=\s*'?([^&#'\s]*)", url))
    text = text.replace(url, redacted(url))
    for secret in sorted(secrets | {unquote(s) for s in secrets}, key=len, reverse=True):
        if secret:
            text = text.replace(secret, MASK)
    return mask_known(text, ())


def refuse_nul(records: Sequence[UsageRecord]) -> None:
    """PostgreSQL text cannot hold NUL: refuse such a record on both engines alike."""
    for number, r in enumerate(records):
        for name in ("tool", "session", "error", "id"):
            value = getattr(r, name)
            if value is not None and "\x00" in value:
                raise RecordRefused(f"record {number}: `{name}` contains a NUL character")


class Cached(Generic[T]):
    """A value computed at most once per `seconds`."""

    def __init__(self, seconds: float, compute: Callable[[], T]) -> None:
        self.seconds = seconds
        self.compute = compute
        self.lock = threading.Lock()
        self.at = -float("inf")
        self.value: T

    def get(self) -> T:
        with self.lock:
            if time.monotonic() - self.at >= self.seconds:
                self.value = self.compute()
                self.at = time.monotonic()
            return self.value


def human(size: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"


class UsageStore:
    """The usage store, on either engine: everything but connections is here."""

    url: str  # with any password replaced by ***
    max_bytes: int | None = None  # at or over this size, `record` raises StoreFull
    rowid = "rowid"

    def records(self, session: str | None = None) -> Iterator[UsageRow]:
        """(tool, ok, latency_ms, session, at) of every record (or one session's), in the
        order they were stored, streamed."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def _read(self, work: Callable[[Executor], T]) -> T:
        raise NotImplementedError

    def _write(self, work: Callable[[Executor], T], *, idempotent: bool = True) -> T:
        raise NotImplementedError

    def _measure(self) -> int:
        raise NotImplementedError

    def _ping(self) -> None:
        raise NotImplementedError

    def _start_caches(self) -> None:
        self._size = Cached(5.0, self._measure)
        self._health = Cached(1.0, self._check)

    def record(self, records: Sequence[UsageRecord]) -> int:
        """Store the records in one transaction; how many were new (ids already stored are
        skipped). Returns only once they are durable."""
        if not records:
            return 0
        refuse_nul(records)
        if self.max_bytes is not None:
            used = self.size()
            if used >= self.max_bytes:
                raise StoreFull(
                    f"the usage store is full: {human(used)} used of {human(self.max_bytes)}"
                    " (--max-store); nothing more is recorded until old records are pruned"
                    " (--retain) or the limit is raised"
                )
        return self._store(records)

    def _store(self, records: Sequence[UsageRecord]) -> int:
        return self._write(
            lambda db: rollups.store_records(db, records),
            idempotent=all(r.id is not None for r in records),
        )

    def totals(self, window: Window) -> Totals:
        """The window's sums (all sessions), from the roll-ups."""
        return self._read(lambda db: rollups.window_totals(db, window.since, window.until))

    def top_totals(self, window: Window, top: int, among: Sequence[str] = ()) -> Totals:
        """The window's sums for its `top` most-called tools, the others summed
        (`rollups.bounded_totals`): the cost follows `top`, not the tools stored."""
        since, until, session = window.since, window.until, window.session
        return self._read(
            lambda db: rollups.bounded_totals(
                db, since, until, top=top, session=session, among=among
            )
        )

    def session_tools(self, session: str) -> tuple[set[str], set[str]]:
        """(tools called, tools that succeeded) in a session."""
        found = self._read(
            lambda db: db.run(
                "SELECT tool, ok_seen FROM usage_session_tools WHERE skey = ?",
                (rollups.session_key(session),),
            )
        )
        return {t for t, _ in found}, {t for t, ok in found if ok}

    def top_summary(self, top: int) -> tuple[list[tuple[str, int, int, float | None, str]], Rest]:
        """Per tool, (tool, calls, failures, mean latency in ms, last `at`) of the `top`
        most-called tools over every day stored, and the others summed."""
        rows, rest = self._read(lambda db: rollups.top_summary(db, top))
        return _summary_rows(rows), rest

    def size(self) -> int:
        """Bytes the store's tables use (cached a few seconds)."""
        return self._size.get()

    def health(self) -> str | None:
        """None when the store answers, else why not (cached about a second)."""
        return self._health.get()

    def _check(self) -> str | None:
        try:
            self._ping()
        except Exception as error:  # any failure is a reason not to be ready
            return f"usage store {self.url}: {self._reason(error)}"
        return None

    def _reason(self, error: BaseException) -> str:
        return str(error).strip() or type(error).__name__

    def prune(self, before: str) -> int:
        """Delete the records, roll-ups and idle sessions older than the hour holding
        `before`, in small transactions; how many rows went."""
        cutoff = before[:13]
        day = cutoff[:10]
        deleted = 0
        for table in rollups.ROLLUP_TABLES:
            deleted += self._delete(table, "grain = 'd' AND period < ?", day)
            deleted += self._delete(table, "grain = 'h' AND period < ?", day + "T00")
        hours = self._read(
            lambda db: db.run(
                "SELECT DISTINCT period FROM usage_rollup WHERE grain = 'h'"
                " AND period >= ? AND period < ? ORDER BY period",
                (day + "T00", cutoff),
            )
        )
        for (hour,) in hours:
            deleted += self._write(partial(rollups.forget_hour, hour=hour))
        deleted += self._delete("usage_records", "at < ?", rollups.period_start(cutoff))
        while True:
            gone = self._write(
                lambda db: rollups.forget_sessions(db, rollups.period_start(cutoff), PRUNE_BATCH)
            )
            deleted += gone
            if not gone:
                return deleted

    def _delete(self, table: str, where: str, value: str) -> int:
        deleted = 0
        while True:
            gone = self._write(
                lambda db: db.many(
                    f"DELETE FROM {table} WHERE {self.rowid} IN"
                    f" (SELECT {self.rowid} FROM {table} WHERE {where} LIMIT {PRUNE_BATCH})",
                    [(value,)],
                )
            )
            deleted += gone
            if gone < PRUNE_BATCH:
                return deleted


def _summary_rows(rows: Sequence[tuple[Any, ...]]) -> list[tuple[str, int, int, float | None, str]]:
    """(tool, calls, errors, latency sum, latency count, last use) rows as `top_summary`
    gives them: the mean latency in place of the sum and count."""
    return [
        (tool, int(calls), int(errors), float(total) / int(count) if count else None, at)
        for tool, calls, errors, total, count, at in rows
    ]


def records_sql(session: str | None) -> tuple[str, list[str]]:
    """`UsageStore.records`' query, with `?` marks, and its values."""
    where, values = ("WHERE session = ?", [session]) if session is not None else ("", [])
    return (
        f"SELECT tool, ok, latency_ms, session, at FROM usage_records {where} ORDER BY seq",
        values,
    )


def migrate(url: str, types: dict[str, str]) -> Callable[[Executor], None]:
    """Bring a store to the current schema (in the caller's transaction)."""

    def run(db: Executor) -> None:
        db.run("CREATE TABLE IF NOT EXISTS toolsel_schema (version INTEGER NOT NULL)")
        current = db.run("SELECT MAX(version) FROM toolsel_schema")[0][0]
        if current is not None and current > SCHEMA_VERSION:
            raise UsageError(
                f"--db {redacted(url)}: the store's schema is version {current}, newer than "
                f"this toolsel's ({SCHEMA_VERSION})",
                hint="upgrade toolsel, or use another --db",
            )
        for version, steps in MIGRATIONS:
            if current is None or version > current:
                for step in steps:
                    if isinstance(step, str):
                        db.run(step.format(**types))
                    else:
                        step(db)
                db.run("INSERT INTO toolsel_schema VALUES (?)", (version,))

    return run
