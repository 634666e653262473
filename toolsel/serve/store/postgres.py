"""The usage store on PostgreSQL (psycopg 3): a pool of checked connections per replica,
reads in REPEATABLE READ snapshots, writes retried when that cannot store anything twice."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from toolsel.errors import UsageError
from toolsel.serve import rollups
from toolsel.serve.store.base import (
    StoreTimeout,
    StoreUnavailable,
    T,
    UsageStore,
    migrate,
    records_sql,
    redacted,
    scrubbed,
)

if TYPE_CHECKING:
    from toolsel.replay.stats import UsageRow
    from toolsel.serve.rollups import Executor


class PgExecutor:
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


class PostgresStore(UsageStore):
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
                migrate(self.url, {"serial": "BIGSERIAL", "blob": "BYTEA"})(PgExecutor(conn))
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

    def _unavailable(self, error: BaseException) -> StoreUnavailable:
        return StoreUnavailable(f"the usage store {self.url} is unavailable: {self._reason(error)}")

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
                    return work(PgExecutor(conn, current()))
            except QueryCanceled:  # statement_timeout: the deadline (not a lost connection)
                raise StoreTimeout(
                    f"the usage store {self.url}: read stopped at its deadline"
                ) from None
            except self._lost() as error:
                if attempt == 2:
                    raise self._unavailable(error) from None
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
                    result = work(PgExecutor(conn))
                    committing = True
                    conn.commit()
                return result
            except (rollups.Race, errors.DeadlockDetected, errors.SerializationFailure):
                continue
            except self._lost() as error:
                if retried or (committing and not idempotent):
                    raise self._unavailable(error) from None
                retried = True
        raise StoreUnavailable(f"the usage store {self.url}: too many conflicting writers")

    def records(self, session: str | None = None) -> Iterator[UsageRow]:
        sql, values = records_sql(session)
        with self._pool.connection() as conn, conn.cursor(name="toolsel_records") as cursor:
            cursor.itersize = 10_000
            cursor.execute(sql.replace("?", "%s"), values)
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
