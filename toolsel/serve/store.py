"""The usage store: where `toolsel serve` records how each call went, and what `/v1/analytics`
and `toolsel stats --db` read.

One interface, two engines with one schema and versioned migrations:

- SQLite (the default: a file under the user data directory, or `sqlite:///path`, created
  readable by its owner only), in WAL mode with `synchronous=FULL`: a record is on disk before
  its request is answered, and it survives the process being killed. One writer connection
  (writes take turns); each reading thread has its own connection, so reads never wait for
  a write, nor a write for a read.
- PostgreSQL (`postgresql://...`, psycopg 3): several `toolsel serve` replicas share it,
  through a pool that checks a connection before lending it, so a restarted database is
  reconnected; a write that fails on a lost connection is tried once more when that cannot
  store it twice.

A record may carry an `id`. Recording an id that is already stored does nothing, so a
client that retries a batch after a timeout or a crash never counts a call twice.

Records are summed per tool and hour (and day) as they are written, in the same
transaction (`toolsel.serve.rollups`), so analytics reads sums, not every record.

A read is told the deadline of the work it serves (`toolsel.deadline`): past it, SQLite
interrupts the statement and PostgreSQL cancels it (`statement_timeout`), and the read
raises `StoreTimeout`, so a costly read never outlives its request.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from toolsel.errors import UsageError
from toolsel.serve import rollups

if TYPE_CHECKING:
    from toolsel.registry.model import Registry
    from toolsel.replay.stats import UsageRow, UsageStats
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
SUMMARY = (
    "SELECT tool, SUM(calls), SUM(errors), SUM(latency_sum), SUM(latency_count), MAX(last_at)"
    " FROM usage_rollup WHERE grain = 'd' GROUP BY tool"
)
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


@dataclass(frozen=True, slots=True)
class UsageRecord:
    """How one call went."""

    tool: str
    ok: bool
    at: str  # ISO 8601, UTC
    latency_ms: float | None = None
    session: str | None = None
    error: str | None = None
    id: str | None = None  # idempotency key: a second record with the same id is ignored


@dataclass(frozen=True, slots=True)
class Window:
    """Which records a query reads: `since <= at < until`, one session or all."""

    since: str | None = None
    until: str | None = None
    session: str | None = None


class UsageStore(Protocol):
    url: str  # with any password replaced by ***
    max_bytes: int | None  # at or over this size, `record` raises StoreFull

    def record(self, records: Sequence[UsageRecord]) -> int:
        """Store the records in one transaction; how many were new (ids already stored are
        skipped). Returns only once they are durable."""
        ...

    def records(self, session: str | None = None) -> Iterator[UsageRow]:
        """(tool, ok, latency_ms, session, at) of every record (or one session's), in the
        order they were stored, streamed."""
        ...

    def totals(self, window: Window) -> Totals:
        """The window's sums (all sessions), from the roll-ups."""
        ...

    def top_totals(self, window: Window, top: int, among: Sequence[str] = ()) -> Totals:
        """The window's sums for its `top` most-called tools, the others summed
        (`rollups.bounded_totals`): the cost follows `top`, not the tools stored."""
        ...

    def session_tools(self, session: str) -> tuple[set[str], set[str]]:
        """(tools called, tools that succeeded) in a session."""
        ...

    def summary(self) -> list[tuple[str, int, int, float | None, str]]:
        """Per tool: (tool, calls, failures, mean latency in ms, last `at`)."""
        ...

    def top_summary(self, top: int) -> tuple[list[tuple[str, int, int, float | None, str]], Rest]:
        """`summary` of the `top` most-called tools, and the others summed."""
        ...

    def count(self) -> int: ...

    def size(self) -> int:
        """Bytes the store's tables use (cached a few seconds)."""
        ...

    def health(self) -> str | None:
        """None when the store answers, else why not (cached about a second)."""
        ...

    def prune(self, before: str) -> int:
        """Delete the records, roll-ups and idle sessions older than the hour holding
        `before`, in small transactions; how many rows went."""
        ...

    def close(self) -> None: ...


def now() -> str:
    return rollups.iso(datetime.now(UTC))


def stored_time(value: str) -> str:
    """An ISO 8601 time as records store it (UTC, milliseconds, `Z`); ValueError, with the
    reason, if it is not one or falls outside the years 0001-9999 in UTC. A time without a
    zone is taken as UTC."""
    if len(value) == 24 and value[19] == "." and value[20:23].isdigit() and value[23] == "Z":
        try:  # already as stored (what clients usually send): only check it is a real time
            datetime.fromisoformat(value[:23])
        except ValueError:
            pass
        else:
            return value
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as error:
        raise ValueError(f"not an ISO 8601 time ({error})") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    try:
        return rollups.iso(parsed.astimezone(UTC))
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
        store = PostgresStore(url)
    else:
        raise UsageError(
            f"--db {redacted(url)}: not a database URL",
            hint="use sqlite:///path/to/usage.sqlite3 or postgresql://user@host/dbname",
        )
    store.max_bytes = max_bytes
    return store


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
    windows: int = SERIES_WINDOWS,
    exact: bool = False,
) -> tuple[tuple[str, UsageStats], ...]:
    """The window cut into `windows` equal slices, each with its statistics (start, stats),
    for charts over time; an open window is the dashboard's: the last 7 days to this hour's
    end."""
    from datetime import UTC, datetime, timedelta

    from toolsel.serve.rollups import default_since, iso

    now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    start = datetime.fromisoformat(window.since or default_since())
    end = datetime.fromisoformat(window.until) if window.until else now
    step = (end - start) / windows
    series = []
    for n in range(windows):
        low, high = iso(start + n * step), iso(start + (n + 1) * step)
        part = Window(low, high, window.session)
        series.append((low, window_stats(store, part, registry, exact=exact)))
    return tuple(series)


def _refuse_nul(records: Sequence[UsageRecord]) -> None:
    """PostgreSQL text cannot hold NUL: refuse such a record on both engines alike."""
    for number, r in enumerate(records):
        for name in ("tool", "session", "error", "id"):
            value = getattr(r, name)
            if value is not None and "\x00" in value:
                raise RecordRefused(f"record {number}: `{name}` contains a NUL character")


class _Cached:
    """A value computed at most once per `seconds`."""

    def __init__(self, seconds: float, compute: Callable[[], Any]) -> None:
        self.seconds = seconds
        self.compute = compute
        self.lock = threading.Lock()
        self.at = -float("inf")
        self.value: Any = None

    def get(self) -> Any:
        with self.lock:
            if time.monotonic() - self.at >= self.seconds:
                self.value = self.compute()
                self.at = time.monotonic()
            return self.value


def _human(size: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"


class _Store:
    """What both engines share: everything but connections."""

    url: str
    max_bytes: int | None = None
    rowid = "rowid"

    def _read(self, work: Callable[[Executor], T]) -> T:
        raise NotImplementedError

    def _write(self, work: Callable[[Executor], T], *, idempotent: bool = True) -> T:
        raise NotImplementedError

    def _measure(self) -> int:
        raise NotImplementedError

    def _ping(self) -> None:
        raise NotImplementedError

    def _start_caches(self) -> None:
        self._size = _Cached(5.0, self._measure)
        self._health = _Cached(1.0, self._check)

    def record(self, records: Sequence[UsageRecord]) -> int:
        if not records:
            return 0
        _refuse_nul(records)
        if self.max_bytes is not None:
            used = self.size()
            if used >= self.max_bytes:
                raise StoreFull(
                    f"the usage store is full: {_human(used)} used of {_human(self.max_bytes)}"
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
        return self._read(lambda db: rollups.window_totals(db, window.since, window.until))

    def top_totals(self, window: Window, top: int, among: Sequence[str] = ()) -> Totals:
        since, until, session = window.since, window.until, window.session
        return self._read(
            lambda db: rollups.bounded_totals(
                db, since, until, top=top, session=session, among=among
            )
        )

    def session_tools(self, session: str) -> tuple[set[str], set[str]]:
        found = self._read(
            lambda db: db.run(
                "SELECT tool, ok_seen FROM usage_session_tools WHERE skey = ?",
                (rollups.session_key(session),),
            )
        )
        return {t for t, _ in found}, {t for t, ok in found if ok}

    def summary(self) -> list[tuple[str, int, int, float | None, str]]:
        found = self._read(lambda db: db.run(SUMMARY))
        return [
            (tool, int(calls), int(errors), float(total) / int(count) if count else None, at)
            for tool, calls, errors, total, count, at in found
            if calls
        ]

    def top_summary(self, top: int) -> tuple[list[tuple[str, int, int, float | None, str]], Rest]:
        rows, rest = self._read(lambda db: rollups.top_summary(db, top))
        return [
            (tool, int(calls), int(errors), float(total) / int(count) if count else None, at)
            for tool, calls, errors, total, count, at in rows
        ], rest

    def count(self) -> int:
        return int(self._read(lambda db: db.run("SELECT COUNT(*) FROM usage_records"))[0][0])

    def size(self) -> int:
        return int(self._size.get())

    def health(self) -> str | None:
        reason: str | None = self._health.get()
        return reason

    def _check(self) -> str | None:
        try:
            self._ping()
        except Exception as error:  # any failure is a reason not to be ready
            return f"usage store {self.url}: {self._reason(error)}"
        return None

    def _reason(self, error: BaseException) -> str:
        return str(error).strip() or type(error).__name__

    def prune(self, before: str) -> int:
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


class _SqliteExecutor:
    pg = False

    def __init__(self, db: Any) -> None:
        self._db = db

    def run(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return list(self._db.execute(sql, params).fetchall())

    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> int:
        if not rows:
            return 0
        before = self._db.total_changes
        self._db.executemany(sql, rows)
        return int(self._db.total_changes - before)


@contextmanager
def _stopped_at(db: Any, ends: float | None) -> Iterator[None]:
    """Statements on `db` stop ("interrupted") once `time.monotonic()` reaches `ends`."""
    if ends is None:
        yield
        return
    db.set_progress_handler(lambda: time.monotonic() >= ends, 10_000)  # every 10k steps
    try:
        yield
    finally:
        db.set_progress_handler(None, 0)


def _create_private(path: Path) -> None:
    """Create the database file readable by its owner only (and its folder, if missing, for
    its owner only); SQLite gives its -wal and -shm files the same mode."""
    if not path.parent.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))


class _Batch:
    """One caller's records waiting for the writer."""

    def __init__(self, records: Sequence[UsageRecord]) -> None:
        self.records = records
        self.stored = 0
        self.error: BaseException | None = None
        self.done = False


class SqliteStore(_Store):
    """SQLite in WAL mode: one writer connection, its writes serialised by a lock; one
    read connection per reading thread. Batches that arrive while a transaction commits
    are written together in the next one (group commit: one disk sync for all of them)."""

    def __init__(self, url: str) -> None:
        import sqlite3

        self.url = url
        self._path = Path(url.removeprefix("sqlite:///"))
        self._lock = threading.Lock()
        self._local = threading.local()
        self._readers: list[Any] = []
        self._waiting: list[_Batch] = []
        self._turn = threading.Condition()
        self._leading = False
        try:
            _create_private(self._path)
            self._db = self._connect()
            self._db.execute("PRAGMA journal_mode=WAL")
        except (OSError, sqlite3.Error) as error:
            raise UsageError(f"--db {url}: cannot open the database: {error}") from None
        self._start_caches()
        try:
            self._write(_migrate(url, {"serial": "INTEGER", "blob": "BLOB"}))
        except BaseException:
            self.close()
            raise

    def _connect(self) -> Any:
        import sqlite3

        db = sqlite3.connect(self._path, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA busy_timeout=10000")
        return db

    def _reader(self) -> Any:
        db = getattr(self._local, "db", None)
        if db is None:
            db = self._local.db = self._connect()
            db.execute("PRAGMA query_only=1")
            with self._lock:
                self._readers.append(db)
        return db

    def _read(self, work: Callable[[Executor], T]) -> T:
        from toolsel.deadline import current

        db = self._reader()
        with self._errors():
            db.execute("BEGIN")  # one snapshot for every query of the work
            try:
                with _stopped_at(db, current()):
                    return work(_SqliteExecutor(db))
            finally:
                if db.in_transaction:
                    db.execute("COMMIT")

    def _write(self, work: Callable[[Executor], T], *, idempotent: bool = True) -> T:
        with self._lock, self._errors():
            self._db.execute("BEGIN IMMEDIATE")
            try:
                result = work(_SqliteExecutor(self._db))
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            return result

    def _store(self, records: Sequence[UsageRecord]) -> int:
        mine = _Batch(records)
        with self._turn:
            self._waiting.append(mine)
            while self._leading and not mine.done:
                self._turn.wait()
            if not mine.done:  # lead: write every batch waiting, this one included
                self._leading = True
                group, self._waiting = self._waiting, []
        if not mine.done:
            try:
                with self._lock:
                    self._write_group(group)
            finally:
                with self._turn:
                    self._leading = False
                    self._turn.notify_all()
        if mine.error is not None:
            raise mine.error
        return mine.stored

    def _write_group(self, group: list[_Batch]) -> None:
        """Each batch in a savepoint of one transaction: one that fails fails alone."""
        db = _SqliteExecutor(self._db)
        try:
            with self._errors():
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    for batch in group:
                        self._db.execute("SAVEPOINT batch")
                        try:
                            batch.stored = rollups.store_records(db, batch.records)
                        except Exception as error:
                            self._db.execute("ROLLBACK TO batch")
                            batch.error = error
                        self._db.execute("RELEASE batch")
                    self._db.execute("COMMIT")
                except BaseException:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
        except BaseException as error:
            for batch in group:
                batch.error = batch.error or error
            if not isinstance(error, Exception):
                raise
        finally:
            for batch in group:
                batch.done = True

    @contextmanager
    def _errors(self) -> Iterator[None]:
        import sqlite3

        try:
            yield
        except sqlite3.OperationalError as error:
            if "full" in str(error):
                raise StoreFull(f"the usage store {self.url}: {error}") from None
            if str(error) == "interrupted":
                raise StoreTimeout(
                    f"the usage store {self.url}: read stopped at its deadline"
                ) from None
            raise StoreUnavailable(f"the usage store {self.url}: {error}") from None

    def records(self, session: str | None = None) -> Iterator[UsageRow]:
        where, values = ("WHERE session = ?", [session]) if session is not None else ("", [])
        db = self._connect()  # a connection of its own: the caller may stop half-way
        try:
            db.execute("BEGIN")
            rows = db.execute(
                f"SELECT tool, ok, latency_ms, session, at FROM usage_records {where} ORDER BY seq",
                values,
            )
            for tool, ok, latency, name, at in rows:
                yield tool, bool(ok), latency, name, at
        finally:
            db.close()

    def _measure(self) -> int:
        def pages(db: Executor) -> int:
            count = db.run("PRAGMA page_count")[0][0] - db.run("PRAGMA freelist_count")[0][0]
            return int(count * db.run("PRAGMA page_size")[0][0])

        return self._read(pages)

    def _ping(self) -> None:
        self._read(lambda db: db.run("SELECT MAX(version) FROM toolsel_schema"))

    def close(self) -> None:
        with self._lock:
            for db in (self._db, *self._readers):
                db.close()


class _PgExecutor:
    pg = True

    def __init__(self, conn: Any, ends: float | None = None) -> None:
        self._conn = conn
        self._ends = ends  # statements stop at this `time.monotonic()` (a read's deadline)

    def run(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        if self._ends is not None:
            left = int((self._ends - time.monotonic()) * 1000)
            if left <= 0:
                raise StoreTimeout("the usage store: read stopped at its deadline")
            self._conn.execute(f"SET LOCAL statement_timeout = {left}")
        # binary results: sketches come as bytes, not as hex text twice their size
        cursor = self._conn.execute(sql.replace("?", "%s"), params, binary=True)
        return list(cursor.fetchall()) if cursor.description else []

    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> int:
        if not rows:
            return 0
        with self._conn.cursor() as cursor:
            cursor.executemany(sql.replace("?", "%s"), rows)
            return max(int(cursor.rowcount), 0)


#: Connections one replica's pool holds at most.
POOL_SIZE = 8


class PostgresStore(_Store):
    """PostgreSQL through psycopg 3 and a pool of checked connections; replicas each have
    their own pool and share the database."""

    rowid = "ctid"

    def __init__(self, url: str) -> None:
        try:
            import psycopg
            from psycopg_pool import ConnectionPool
        except ImportError:
            raise UsageError(
                "--db postgresql://... needs psycopg and psycopg-pool",
                hint="pip install 'toolsel[serve]'",
            ) from None
        self.url = redacted(url)
        self._conninfo = url
        try:
            with psycopg.connect(url, autocommit=False) as conn, conn.transaction():
                # one migrator at a time, whatever the number of replicas starting together
                conn.execute("SELECT pg_advisory_xact_lock(727375)")
                _migrate(self.url, {"serial": "BIGSERIAL", "blob": "BYTEA"})(_PgExecutor(conn))
        except psycopg.Error as error:
            raise UsageError(f"--db {self.url}: cannot connect: {self._reason(error)}") from None
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=POOL_SIZE,
            timeout=10,
            check=ConnectionPool.check_connection,
            kwargs={"autocommit": False},
            name="toolsel",
            open=False,
        )
        self._pool.open()
        self._start_caches()

    def _reason(self, error: BaseException) -> str:
        return scrubbed(super()._reason(error), self._conninfo)

    def _lost(self) -> tuple[type[BaseException], ...]:
        import psycopg
        from psycopg_pool import PoolTimeout

        return (psycopg.OperationalError, PoolTimeout)

    def _read(self, work: Callable[[Executor], T]) -> T:
        from psycopg.errors import QueryCanceled

        from toolsel.deadline import current

        for attempt in (1, 2):
            try:
                with self._pool.connection() as conn:
                    conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                    return work(_PgExecutor(conn, current()))
            except QueryCanceled:  # statement_timeout: the deadline (not a lost connection)
                raise StoreTimeout(
                    f"the usage store {self.url}: read stopped at its deadline"
                ) from None
            except self._lost() as error:
                if attempt == 2:
                    raise StoreUnavailable(
                        f"the usage store {self.url} is unavailable: {self._reason(error)}"
                    ) from None
        raise AssertionError("unreachable")

    def _write(self, work: Callable[[Executor], T], *, idempotent: bool = True) -> T:
        """Run `work` in a transaction. A conflict with a concurrent writer (deadlock, an id
        stored first by another replica) rolls back and tries again. A lost connection is
        tried once more on a fresh one when that cannot store anything twice: always if it
        was lost before COMMIT was sent (nothing was stored), and after only when every
        record has an id (an outcome we cannot know is then harmless)."""
        from psycopg import errors

        retried = False
        for _ in range(10):
            committing = False
            try:
                with self._pool.connection() as conn:
                    result = work(_PgExecutor(conn))
                    committing = True
                    conn.commit()
                return result
            except (rollups.Race, errors.DeadlockDetected, errors.SerializationFailure):
                continue
            except self._lost() as error:
                if retried or (committing and not idempotent):
                    raise StoreUnavailable(
                        f"the usage store {self.url} is unavailable: {self._reason(error)}"
                    ) from None
                retried = True
        raise StoreUnavailable(f"the usage store {self.url}: too many conflicting writers")

    def records(self, session: str | None = None) -> Iterator[UsageRow]:
        where, values = ("WHERE session = %s", [session]) if session is not None else ("", [])
        with self._pool.connection() as conn, conn.cursor(name="toolsel_records") as cursor:
            cursor.itersize = 10_000
            cursor.execute(
                f"SELECT tool, ok, latency_ms, session, at FROM usage_records {where} ORDER BY seq",
                values,
            )
            yield from cursor

    def _measure(self) -> int:
        tables = ["usage_records", "usage_sessions", "usage_session_tools", *rollups.ROLLUP_TABLES]
        found = self._read(
            lambda db: db.run(
                "SELECT SUM(pg_total_relation_size(to_regclass(name)))"
                " FROM unnest(?::text[]) AS name",
                (tables,),
            )
        )
        return int(found[0][0] or 0)

    def _ping(self) -> None:
        with self._pool.connection(timeout=2) as conn:
            conn.execute("SELECT 1")

    def close(self) -> None:
        self._pool.close()


def _migrate(url: str, types: dict[str, str]) -> Callable[[Executor], None]:
    """Bring a store to the current schema (in the caller's transaction)."""

    def run(db: Executor) -> None:
        db.run("CREATE TABLE IF NOT EXISTS toolsel_schema (version INTEGER NOT NULL)")
        current = db.run("SELECT MAX(version) FROM toolsel_schema")[0][0]
        _check_version(url, current)
        for version, steps in MIGRATIONS:
            if current is None or version > current:
                for step in steps:
                    if isinstance(step, str):
                        db.run(step.format(**types))
                    else:
                        step(db)
                db.run("INSERT INTO toolsel_schema VALUES (?)", (version,))

    return run


def _check_version(url: str, current: int | None) -> None:
    if current is not None and current > SCHEMA_VERSION:
        raise UsageError(
            f"--db {redacted(url)}: the store's schema is version {current}, newer than this "
            f"toolsel's ({SCHEMA_VERSION})",
            hint="upgrade toolsel, or use another --db",
        )
