"""The usage store, on SQLite and on PostgreSQL: one schema, migrations, idempotent ids."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsel.errors import UsageError
from toolsel.replay.sketch import ACCURACY
from toolsel.replay.stats import UsageStats, records_stats
from toolsel.serve.store import (
    SCHEMA_VERSION,
    UsageRecord,
    UsageStore,
    Window,
    open_store,
    window_stats,
)

AT = "2026-01-01T00:00:00.000Z"


def _record(i: int, **fields: object) -> UsageRecord:
    values: dict[str, object] = {
        "tool": "read_file",
        "ok": True,
        "at": f"2026-01-01T00:00:{i % 60:02d}.000Z",
    }
    values.update(fields)
    return UsageRecord(**values)  # type: ignore[arg-type]


def stored(store: UsageStore) -> int:
    """How many records the store holds, read as `stats --db --exact` reads them."""
    return sum(1 for _ in store.records())


def test_records_are_stored_once_per_id_and_survive_reopening(store_url: str) -> None:
    store = open_store(store_url)
    assert store.record([_record(1, id="a"), _record(2, id="b"), _record(3)]) == 3
    assert store.record([_record(1, id="a"), _record(4, id="c")]) == 1  # "a" again: ignored
    store.close()
    again = open_store(store_url)  # migrations do not run twice
    assert stored(again) == 4
    again.close()


def test_windows_sessions_and_statistics(store: UsageStore) -> None:
    store.record(
        [
            _record(1, session="s1", tool="run_tests", latency_ms=100.0),
            _record(2, session="s1", tool="deploy_service", ok=False, error="boom"),
            _record(3, session="s2", tool="run_tests", latency_ms=300.0),
            UsageRecord("run_tests", True, "2026-02-01T00:00:00.000Z", session="s3"),
        ]
    )
    assert_same(window_stats(store, Window()), window_stats(store, Window(), exact=True))
    stats = window_stats(store, Window(), exact=True)
    assert stats.transcripts == 3
    tools = {t.name: t for t in stats.tools}
    assert tools["run_tests"].calls == 3 and tools["run_tests"].transcripts == 3
    assert tools["run_tests"].median_latency_s == 0.2 and tools["run_tests"].p95_latency_s == 0.3
    assert tools["deploy_service"].errors == 1 and tools["deploy_service"].success_rate == 0.0
    assert [p.tools for p in stats.co_used_pairs] == [("deploy_service", "run_tests")]
    january = window_stats(store, Window(until="2026-02-01T00:00:00.000Z"))
    assert sum(t.calls for t in january.tools) == 3
    one = window_stats(store, Window(session="s1"))
    assert {t.name for t in one.tools} == {"run_tests", "deploy_service"}
    assert store.session_tools("s1") == ({"run_tests", "deploy_service"}, {"run_tests"})
    assert {row[0]: row[1] for row in store.top_summary(10)[0]} == {
        "run_tests": 3,
        "deploy_service": 1,
    }


def assert_same(rolled: UsageStats, exact: UsageStats) -> None:
    """Roll-up statistics equal the exact ones; percentiles within the sketch's 1%."""
    assert rolled.transcripts == exact.transcripts
    assert rolled.co_used_pairs == exact.co_used_pairs
    assert rolled.never_called == exact.never_called
    assert [replace(t, median_latency_s=None, p95_latency_s=None) for t in rolled.tools] == [
        replace(t, median_latency_s=None, p95_latency_s=None) for t in exact.tools
    ]
    for mine, truth in zip(rolled.tools, exact.tools, strict=True):
        for got, want in (
            (mine.median_latency_s, truth.median_latency_s),
            (mine.p95_latency_s, truth.p95_latency_s),
        ):
            assert (got is None) == (want is None)
            if got is not None and want is not None:
                assert abs(got - want) <= ACCURACY * want + 1e-12, (mine.name, got, want)


def test_concurrent_writers_lose_nothing(store: UsageStore) -> None:
    def write(worker: int) -> int:
        return sum(
            store.record([_record(i, id=f"{worker}-{i}-{j}") for j in range(10)]) for i in range(20)
        )

    with ThreadPoolExecutor(8) as pool:
        written = sum(pool.map(write, range(8)))
    assert written == 8 * 20 * 10 == stored(store)


def test_a_newer_schema_is_refused(store_url: str) -> None:
    store = open_store(store_url)
    store.close()
    if store_url.startswith("sqlite"):
        import sqlite3

        db = sqlite3.connect(store_url.removeprefix("sqlite:///"))
        db.execute("INSERT INTO toolsel_schema VALUES (?)", (SCHEMA_VERSION + 1,))
        db.commit()
        db.close()
    else:
        import psycopg

        with psycopg.connect(store_url, autocommit=True) as db:
            db.execute("INSERT INTO toolsel_schema VALUES (%s)", (SCHEMA_VERSION + 1,))
    with pytest.raises(UsageError, match="newer than this toolsel"):
        open_store(store_url)


def test_bad_urls_are_usage_errors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError, match="not a database URL"):
        open_store("mysql://x")
    (tmp_path / "dir.sqlite3").mkdir()
    with pytest.raises(UsageError, match="cannot open"):
        open_store(f"sqlite:///{tmp_path / 'dir.sqlite3'}")
    with pytest.raises(UsageError, match="cannot connect"):
        open_store("postgresql://nobody:secret@127.0.0.1:1/none?connect_timeout=2")


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "c"]), st.booleans(), st.sampled_from(["s1", "s2", None])
        ),
        max_size=30,
    )
)
def test_statistics_conserve_counts(rows: list[tuple[str, bool, str | None]]) -> None:
    stats = records_stats((tool, ok, None, session, AT) for tool, ok, session in rows)
    assert sum(t.calls for t in stats.tools) == len(rows)
    assert sum(t.errors for t in stats.tools) == sum(1 for _, ok, _ in rows if not ok)


def test_a_new_sqlite_store_is_private(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import os
    import stat

    path = tmp_path / "fresh" / "usage.sqlite3"
    old = os.umask(0o022)  # the usual umask would make it world-readable
    try:
        store = open_store(f"sqlite:///{path}")
        store.record([_record(1)])
        files = [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in files}
        store.close()
    finally:
        os.umask(old)
    assert modes == {p.name: 0o600 for p in files}
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://u:s3cret@db/x", "postgresql://u:***@db/x"),
        (
            "postgresql://u:p@ss/w:rd@db:5432/x?sslmode=require",
            "postgresql://u:***@db:5432/x?sslmode=require",
        ),
        (
            "postgresql://u@db/x?password=s3cret&sslmode=require",
            "postgresql://u@db/x?password=***&sslmode=require",
        ),
        (
            "postgres://db/x?sslmode=require&PassWord=s3cret",
            "postgres://db/x?sslmode=require&PassWord=***",
        ),
        ("mysql://u:s3cret@db/x", "mysql://u:***@db/x"),
        ("sqlite:///tmp/u.db", "sqlite:///tmp/u.db"),
        ("postgresql://u@db/x", "postgresql://u@db/x"),
        ("host=db user=u password=s3cret dbname=x", "host=db user=u password=*** dbname=x"),
        ("host=db password = 's3cret' port=5432", "host=db password = *** port=5432"),
    ],
)
def test_passwords_are_redacted(url: str, shown: str) -> None:
    from toolsel.serve.store import redacted, scrubbed

    assert redacted(url) == shown
    secret = "p@ss/w:rd" if "p@ss" in url else "s3cret"
    message = scrubbed(f"failed for {url} with password {secret}", url)
    assert secret not in message or secret not in url


def test_a_refused_or_unreachable_url_never_shows_its_password() -> None:
    with pytest.raises(UsageError) as refused:
        open_store("mysql://admin:hunter2@db/x")
    assert "hunter2" not in str(refused.value) and "admin:***@db" in str(refused.value)
    with pytest.raises(UsageError) as unreachable:
        open_store(
            "postgresql://nobody:hunter2@127.0.0.1:1/none?connect_timeout=2&password=hunter2"
        )
    assert "hunter2" not in str(unreachable.value)


def test_health_is_none_when_the_store_answers_and_a_reason_when_not(store: UsageStore) -> None:
    assert store.health() is None
    store._health.at = -float("inf")  # type: ignore[attr-defined]

    def down() -> None:
        raise OSError("connection refused")

    store._ping = down  # type: ignore[attr-defined]
    reason = store.health()
    assert reason is not None and "connection refused" in reason and store.url in reason


def test_size_counts_the_tables(store: UsageStore) -> None:
    empty = store.size()
    store.record(
        [_record(i, id=str(i), session=f"s{i % 50}", tool=f"t{i % 30}") for i in range(3000)]
    )
    store._size.at = -float("inf")  # type: ignore[attr-defined]
    assert store.size() > empty > 0


def _terminate_others(url: str) -> int:
    import psycopg

    with psycopg.connect(url, autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return len(rows)


def test_postgresql_reconnects_after_its_connections_are_killed() -> None:
    from tests.serve.conftest import fresh_postgres

    url = fresh_postgres()
    store = open_store(url)
    try:
        assert store.record([_record(1, id="a")]) == 1
        assert stored(store) == 1
        assert _terminate_others(url) >= 1  # what a database restart does to the pool
        assert store.record([_record(2, id="b")]) == 1
        assert _terminate_others(url) >= 1
        assert window_stats(store, Window()).tools[0].calls == 2
        assert store.record([_record(3)]) == 1  # no id: still safe, the pool checks first
        store._health.at = -float("inf")  # type: ignore[attr-defined]
        assert store.health() is None
    finally:
        store.close()


def test_postgresql_retries_a_write_whose_connection_dies_before_commit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.serve.conftest import fresh_postgres
    from toolsel.serve import rollups

    url = fresh_postgres()
    store = open_store(url)
    real = rollups.store_records
    calls = []

    def dies_once(db, records):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 1:  # the backend goes away mid-transaction
            db.run("SELECT pg_terminate_backend(pg_backend_pid())")
        return real(db, records)

    monkeypatch.setattr(rollups, "store_records", dies_once)
    try:
        assert store.record([_record(1), _record(2)]) == 2  # no ids: safe, COMMIT was never sent
        assert len(calls) == 2 and stored(store) == 2
    finally:
        store.close()


def test_postgresql_does_not_retry_a_write_without_ids_lost_at_commit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import psycopg

    from tests.serve.conftest import fresh_postgres
    from toolsel.serve.store import StoreUnavailable

    url = fresh_postgres()
    store = open_store(url)
    commits = []

    def lost(self: psycopg.Connection) -> None:  # type: ignore[type-arg]
        commits.append(1)
        raise psycopg.OperationalError("server closed the connection unexpectedly")

    try:
        monkeypatch.setattr(psycopg.Connection, "commit", lost)
        with pytest.raises(StoreUnavailable, match="unavailable"):
            store.record([_record(1)])  # it may have been stored: trying again could double it
        assert len(commits) == 1
        commits.clear()
        with pytest.raises(StoreUnavailable):
            store.record([_record(1, id="x")])  # with ids a second try is harmless: it is made
        assert len(commits) == 2
    finally:
        monkeypatch.undo()
        store.close()


def test_sqlite_writes_waiting_batches_together_and_a_failing_one_fails_alone(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    from toolsel.serve import rollups
    from toolsel.serve.store import SqliteStore
    from toolsel.serve.store.sqlite import WaitingBatch

    store = SqliteStore(f"sqlite:///{tmp_path / 'u.db'}")
    real = rollups.store_records

    def picky(db, records):  # type: ignore[no-untyped-def]
        if records[0].tool == "bad":
            real(db, records)  # half-written, then it fails: its savepoint is rolled back
            raise ValueError("bad batch")
        return real(db, records)

    monkeypatch.setattr(rollups, "store_records", picky)
    group = [
        WaitingBatch([_record(1, id="a")]),
        WaitingBatch([_record(2, tool="bad")]),
        WaitingBatch([_record(3)]),
    ]
    store._write_group(group)
    assert [b.stored for b in group] == [1, 0, 1] and all(b.done for b in group)
    assert isinstance(group[1].error, ValueError) and group[0].error is group[2].error is None
    assert stored(store) == 2 and {row[0] for row in store.top_summary(10)[0]} == {"read_file"}
    store.close()


def test_a_write_does_not_wait_for_an_open_read(store: UsageStore) -> None:
    """A reader in the middle of a long query (here: a records stream left open) holds no
    lock a writer needs: the write finishes while the read is still open."""
    import threading

    store.record([_record(i, id=str(i)) for i in range(10)])
    reading = store.records()
    assert next(reading)[0] == "read_file"  # a read transaction is now open
    done = threading.Event()

    def write() -> None:
        store.record([_record(99, id="late")])
        done.set()

    writer = threading.Thread(target=write)
    writer.start()
    writer.join(timeout=60)
    assert done.is_set()
    assert len(list(reading)) == 9  # the reader still sees its snapshot
    assert stored(store) == 11
