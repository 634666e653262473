"""The usage store on SQLite: WAL mode, `synchronous=FULL`, one writer connection (writes
take turns, batches that wait are written together) and one read connection per thread."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolsel.errors import UsageError
from toolsel.serve import rollups
from toolsel.serve.records import UsageRecord
from toolsel.serve.store.base import (
    StoreFull,
    StoreTimeout,
    StoreUnavailable,
    T,
    UsageStore,
    migrate,
    records_sql,
)

if TYPE_CHECKING:
    from toolsel.replay.stats import UsageRow
    from toolsel.serve.rollups import Executor


class SqliteExecutor:
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
def stopped_at(db: Any, ends: float | None) -> Iterator[None]:
    """Statements on `db` stop ("interrupted") once `time.monotonic()` reaches `ends`."""
    if ends is None:
        yield
        return
    db.set_progress_handler(lambda: time.monotonic() >= ends, 10_000)  # every 10k steps
    try:
        yield
    finally:
        db.set_progress_handler(None, 0)


def create_private(path: Path) -> None:
    """Create the database file readable by its owner only (and its folder, if missing, for
    its owner only); SQLite gives its -wal and -shm files the same mode."""
    if not path.parent.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))


@dataclass(slots=True)
class WaitingBatch:
    """One caller's records waiting for the writer."""

    records: Sequence[UsageRecord]
    stored: int = 0
    error: BaseException | None = None
    done: bool = False


class SqliteStore(UsageStore):
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
        self._waiting: list[WaitingBatch] = []
        self._turn = threading.Condition()
        self._leading = False
        try:
            create_private(self._path)
            self._db = self._connect()
            self._db.execute("PRAGMA journal_mode=WAL")
        except (OSError, sqlite3.Error) as error:
            raise UsageError(f"--db {url}: cannot open the database: {error}") from None
        self._start_caches()
        try:
            self._write(migrate(url, {"serial": "INTEGER", "blob": "BLOB"}))
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
                with stopped_at(db, current()):
                    return work(SqliteExecutor(db))
            finally:
                if db.in_transaction:
                    db.execute("COMMIT")

    def _write(self, work: Callable[[Executor], T], *, idempotent: bool = True) -> T:
        with self._lock, self._errors(), self._transaction():
            return work(SqliteExecutor(self._db))

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """A write transaction on the writer connection: committed, or rolled back."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise

    def _store(self, records: Sequence[UsageRecord]) -> int:
        mine = WaitingBatch(records)
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

    def _write_group(self, group: list[WaitingBatch]) -> None:
        """Each batch in a savepoint of one transaction: one that fails fails alone."""
        db = SqliteExecutor(self._db)
        try:
            with self._errors(), self._transaction():
                for batch in group:
                    self._db.execute("SAVEPOINT batch")
                    try:
                        batch.stored = rollups.store_records(db, batch.records)
                    except Exception as error:
                        self._db.execute("ROLLBACK TO batch")
                        batch.error = error
                    self._db.execute("RELEASE batch")
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
        db = self._connect()  # a connection of its own: the caller may stop half-way
        try:
            db.execute("BEGIN")
            rows = db.execute(*records_sql(session))
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
