"""The usage store: where `toolsel serve` records how each call went, and what `/v1/analytics`
and `toolsel stats --db` read.

One interface, two engines with one schema and versioned migrations:

- SQLite (the default: a file under the user data directory, or `sqlite:///path`), in WAL
  mode with `synchronous=FULL`: a record is on disk before its request is answered, and it
  survives the process being killed.
- PostgreSQL (`postgresql://...`, psycopg 3): several `toolsel serve` replicas share it.

A record may carry an `id`. Recording an id that is already stored does nothing, so a
client that retries a batch after a timeout or a crash never counts a call twice.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from toolsel.errors import UsageError

#: (version, statements): applied in order, each in its own transaction, recorded in
#: `toolsel_schema`. Never edit a released step: add one.
MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
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
)
SCHEMA_VERSION = MIGRATIONS[-1][0]
SUMMARY = (
    "SELECT tool, COUNT(*), SUM(CASE WHEN ok THEN 0 ELSE 1 END), AVG(latency_ms), MAX(at)"
    " FROM usage_records GROUP BY tool"
)


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
    url: str

    def record(self, records: Sequence[UsageRecord]) -> int:
        """Store the records in one transaction; how many were new (ids already stored are
        skipped). Returns only once they are durable."""
        ...

    def rows(self, window: Window) -> Iterator[tuple[str, bool, float | None, str | None]]:
        """(tool, ok, latency_ms, session) of every record in the window, by session."""
        ...

    def session_tools(self, session: str) -> tuple[set[str], set[str]]:
        """(tools called, tools that succeeded) in a session."""
        ...

    def summary(self) -> list[tuple[str, int, int, float | None, str]]:
        """Per tool: (tool, calls, failures, mean latency in ms, last `at`)."""
        ...

    def count(self) -> int: ...

    def close(self) -> None: ...


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def stored_time(value: str) -> str:
    """An ISO 8601 time as records store it (UTC, milliseconds, `Z`); ValueError if it is
    not one. A time without a zone is taken as UTC."""
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def default_url() -> str:
    from platformdirs import user_data_dir

    return f"sqlite:///{Path(user_data_dir('toolsel', appauthor=False)) / 'usage.sqlite3'}"


def open_store(url: str | None = None) -> UsageStore:
    """The store at `url` (`sqlite:///path`, `postgresql://...`; default: SQLite under the
    user data directory), migrated to the current schema."""
    url = url or default_url()
    if url.startswith("sqlite:///"):
        return SqliteStore(url)
    if url.startswith(("postgresql://", "postgres://")):
        return PostgresStore(url)
    raise UsageError(
        f"--db {url!r}: not a database URL",
        hint="use sqlite:///path/to/usage.sqlite3 or postgresql://user@host/dbname",
    )


def _window_sql(window: Window, mark: str) -> tuple[str, list[Any]]:
    clauses, values = [], []
    if window.since:
        clauses.append(f"at >= {mark}")
        values.append(window.since)
    if window.until:
        clauses.append(f"at < {mark}")
        values.append(window.until)
    if window.session is not None:
        clauses.append(f"session = {mark}")
        values.append(window.session)
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), values


class SqliteStore:
    """SQLite in WAL mode; one connection, its writes serialised by a lock."""

    def __init__(self, url: str) -> None:
        import sqlite3

        self.url = url
        path = Path(url.removeprefix("sqlite:///"))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA busy_timeout=10000")
        except (OSError, sqlite3.Error) as error:
            raise UsageError(f"--db {url}: cannot open the database: {error}") from None
        self._lock = threading.Lock()
        _migrate_or_close(self)

    def _migrate(self) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS toolsel_schema (version INTEGER NOT NULL)"
                )
                current = self._db.execute("SELECT MAX(version) FROM toolsel_schema").fetchone()[0]
                _check_version(self.url, current)
                for version, statements in MIGRATIONS:
                    if current is None or version > current:
                        for statement in statements:
                            self._db.execute(statement.format(serial="INTEGER"))
                        self._db.execute("INSERT INTO toolsel_schema VALUES (?)", (version,))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def record(self, records: Sequence[UsageRecord]) -> int:
        rows = [(r.id, r.tool, r.ok, r.latency_ms, r.session, r.error, r.at) for r in records]
        with self._lock:
            before = self._db.total_changes
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(
                    "INSERT INTO usage_records (record_id, tool, ok, latency_ms, session, error, at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (record_id) DO NOTHING",
                    rows,
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            return self._db.total_changes - before

    def rows(self, window: Window) -> Iterator[tuple[str, bool, float | None, str | None]]:
        where, values = _window_sql(window, "?")
        with self._lock:
            found = self._db.execute(
                f"SELECT tool, ok, latency_ms, session FROM usage_records{where}"
                " ORDER BY session, seq",
                values,
            ).fetchall()
        for tool, ok, latency, session in found:
            yield tool, bool(ok), latency, session

    def session_tools(self, session: str) -> tuple[set[str], set[str]]:
        with self._lock:
            found = self._db.execute(
                "SELECT tool, MAX(ok) FROM usage_records WHERE session = ? GROUP BY tool",
                (session,),
            ).fetchall()
        return {t for t, _ in found}, {t for t, ok in found if ok}

    def summary(self) -> list[tuple[str, int, int, float | None, str]]:
        with self._lock:
            found = self._db.execute(SUMMARY).fetchall()
        return [(t, int(c), int(f), a, at) for t, c, f, a, at in found]

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM usage_records").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


class PostgresStore:
    """PostgreSQL through psycopg 3: one connection per store, its use serialised by a
    lock; replicas each have their own and share the database."""

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError:
            raise UsageError(
                "--db postgresql://... needs psycopg",
                hint="pip install 'toolsel[serve]'",
            ) from None
        self.url = url
        try:
            self._db = psycopg.connect(url, autocommit=False)
        except psycopg.Error as error:
            raise UsageError(f"--db {_redacted(url)}: cannot connect: {error}".strip()) from None
        self._lock = threading.Lock()
        _migrate_or_close(self)

    def _migrate(self) -> None:
        with self._lock, self._db.transaction():
            # one migrator at a time, whatever the number of replicas starting together
            self._db.execute("SELECT pg_advisory_xact_lock(727375)")
            self._db.execute("CREATE TABLE IF NOT EXISTS toolsel_schema (version INTEGER NOT NULL)")
            row = self._db.execute("SELECT MAX(version) FROM toolsel_schema").fetchone()
            current = row[0] if row else None
            _check_version(self.url, current)
            for version, statements in MIGRATIONS:
                if current is None or version > current:
                    for statement in statements:
                        self._db.execute(statement.format(serial="BIGSERIAL"))
                    self._db.execute("INSERT INTO toolsel_schema VALUES (%s)", (version,))

    def record(self, records: Sequence[UsageRecord]) -> int:
        rows = [(r.id, r.tool, r.ok, r.latency_ms, r.session, r.error, r.at) for r in records]
        with self._lock, self._db.transaction(), self._db.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO usage_records (record_id, tool, ok, latency_ms, session, error, at)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (record_id) DO NOTHING",
                rows,
            )
            return max(cursor.rowcount, 0)

    def rows(self, window: Window) -> Iterator[tuple[str, bool, float | None, str | None]]:
        where, values = _window_sql(window, "%s")
        with self._lock, self._db.transaction():
            found = self._db.execute(
                f"SELECT tool, ok, latency_ms, session FROM usage_records{where}"
                " ORDER BY session, seq",
                values,
            ).fetchall()
        yield from found

    def session_tools(self, session: str) -> tuple[set[str], set[str]]:
        with self._lock, self._db.transaction():
            found = self._db.execute(
                "SELECT tool, BOOL_OR(ok) FROM usage_records WHERE session = %s GROUP BY tool",
                (session,),
            ).fetchall()
        return {t for t, _ in found}, {t for t, ok in found if ok}

    def summary(self) -> list[tuple[str, int, int, float | None, str]]:
        with self._lock, self._db.transaction():
            found = self._db.execute(SUMMARY).fetchall()
        return [(t, int(c), int(f), a, at) for t, c, f, a, at in found]

    def count(self) -> int:
        with self._lock, self._db.transaction():
            row = self._db.execute("SELECT COUNT(*) FROM usage_records").fetchone()
        return int(row[0]) if row else 0

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _migrate_or_close(store: SqliteStore | PostgresStore) -> None:
    """Bring a just-opened store to the current schema; close its connection if that fails."""
    try:
        store._migrate()
    except BaseException:
        store._db.close()
        raise


def _check_version(url: str, current: int | None) -> None:
    if current is not None and current > SCHEMA_VERSION:
        raise UsageError(
            f"--db {_redacted(url)}: the store's schema is version {current}, newer than this "
            f"toolsel's ({SCHEMA_VERSION})",
            hint="upgrade toolsel, or use another --db",
        )


def _redacted(url: str) -> str:
    """The URL without its password."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return urlunsplit(parts._replace(netloc=netloc))
    return url
