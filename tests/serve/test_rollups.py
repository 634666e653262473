"""The roll-ups against the exact answers: on random record streams, sessions, batches and
windows (on and off hour and day boundaries), on SQLite and PostgreSQL, roll-up analytics
equal `records_stats` over the same records, percentiles within 1%."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.serve.test_store import assert_same, stored
from toolsel.replay import stats
from toolsel.replay.stats import records_stats
from toolsel.serve import rollups
from toolsel.serve import store as store_module
from toolsel.serve.analytics import bounded_stats
from toolsel.serve.store import UsageRecord, UsageStore, Window, open_store, window_stats
from toolsel.serve.store import base as store_base
from toolsel.timeparse import iso

#: 22:00 the day before: thirty hours of records cross two day boundaries.
BASE = datetime(2026, 3, 1, 22, tzinfo=UTC)
TABLES = (
    "usage_records",
    "usage_sessions",
    "usage_session_tools",
    *rollups.ROLLUP_TABLES,
)


def at(minutes: int) -> str:
    return iso(BASE + timedelta(minutes=minutes))


RECORDS = st.builds(
    UsageRecord,
    tool=st.sampled_from(["a", "b", "c", "d", "e"]),
    ok=st.booleans(),
    at=st.integers(0, 30 * 60).map(at),
    latency_ms=st.one_of(st.none(), st.just(0.0), st.floats(0.01, 1e6)),
    session=st.sampled_from(["s1", "s2", "s3", "", None]),
    id=st.one_of(st.none(), st.sampled_from(["x1", "x2", "x3", "x4"])),
)
#: Window edges on the records' minute grid: on hours, on days, between them, or open.
EDGES = st.one_of(st.none(), st.integers(-90, 32 * 60).map(at))


def stored_once(records: list[UsageRecord]) -> list[UsageRecord]:
    """The records a store keeps: the first of each id."""
    seen: set[str] = set()
    kept = []
    for r in records:
        if r.id is not None:
            if r.id in seen:
                continue
            seen.add(r.id)
        kept.append(r)
    return kept


def exact(records: list[UsageRecord], window: Window) -> stats.UsageStats:
    rows = ((r.tool, r.ok, r.latency_ms, r.session, r.at) for r in stored_once(records))
    return records_stats(rows, since=window.since, until=window.until)


def empty(url: str) -> None:
    if url.startswith("sqlite"):
        db = sqlite3.connect(url.removeprefix("sqlite:///"))
        for table in TABLES:
            db.execute(f"DELETE FROM {table}")
        db.commit()
        db.close()
    else:
        import psycopg

        with psycopg.connect(url, autocommit=True) as db:
            db.execute(f"TRUNCATE {', '.join(TABLES)} RESTART IDENTITY")  # type: ignore[arg-type]


@pytest.fixture
def shared(store_url: str) -> Iterator[tuple[str, UsageStore]]:
    """One store for every example of a test, emptied before each."""
    opened = open_store(store_url)
    yield store_url, opened
    opened.close()


@pytest.mark.parametrize("pair_tools", [50, 2])
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    records=st.lists(RECORDS, max_size=40),
    cuts=st.lists(st.integers(0, 40), max_size=4),
    windows=st.lists(st.tuples(EDGES, EDGES), min_size=1, max_size=4),
)
def test_rollups_equal_the_exact_statistics(
    shared: tuple[str, UsageStore],
    pair_tools: int,
    records: list[UsageRecord],
    cuts: list[int],
    windows: list[tuple[str | None, str | None]],
) -> None:
    url, store = shared
    empty(url)
    with mock.patch.object(stats, "PAIR_TOOLS", pair_tools):
        bounds = [0, *sorted(cuts), len(records)]
        stored = sum(store.record(records[a:b]) for a, b in itertools.pairwise(bounds))
        assert stored == len(stored_once(records))
        for since, until in [(None, None), *windows]:
            window = Window(since, until)
            truth = exact(records, window)
            assert window_stats(store, window, exact=True) == truth
            assert_same(window_stats(store, window), truth)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    records=st.lists(RECORDS, max_size=40),
    windows=st.lists(st.tuples(EDGES, EDGES), min_size=1, max_size=3),
    session=st.sampled_from([None, "s1", ""]),
    top=st.integers(1, 6),
)
def test_a_bounded_read_is_the_exact_statistics_cut_at_its_top(
    shared: tuple[str, UsageStore],
    records: list[UsageRecord],
    windows: list[tuple[str | None, str | None]],
    session: str | None,
    top: int,
) -> None:
    url, store = shared
    empty(url)
    store.record(records)
    for since, until in [(None, None), *windows]:
        assert_bounded(store, records, Window(since, until, session), top)


def test_a_bounded_read_takes_the_outside_of_an_hour_away(store: UsageStore) -> None:
    """Windows that start or end a few minutes into an hour read the hour's sums less the
    records outside: their calls, latencies, sessions started and pairs are taken away."""
    store.record(
        [
            UsageRecord("abcde"[n % 5], n % 4 != 0, at(n), n * 1.5, f"s{n % 3}")
            for n in range(0, 120, 2)
        ]
        + [  # a pair completed in the minutes before at(5), and one after at(55)
            UsageRecord(tool, True, at(minute), 2.0, name)
            for name, tool, minute in (("e", "x", 1), ("e", "y", 3), ("l", "x", 57), ("l", "z", 58))
        ]
    )
    windows = [(at(5), None), (None, at(55)), (at(5), at(115)), (at(3), at(57))]
    for (since, until), session, top in itertools.product(windows, [None, "s1"], [1, 3]):
        assert_bounded(store, records_of(store), Window(since, until, session), top)


def records_of(store: UsageStore) -> list[UsageRecord]:
    return [
        UsageRecord(tool, ok, at_, latency, name)
        for tool, ok, latency, name, at_ in store.records()
    ]


def assert_bounded(store: UsageStore, records: list[UsageRecord], window: Window, top: int) -> None:
    """The top tools as the exact statistics have them, the others summed, the registry's
    names looked up beyond the top; a session's latencies exact."""
    kept = [r for r in stored_once(records) if window.session in (None, r.session)]
    truth = exact(kept, Window(window.since, window.until))
    among = ["a", "c", "e", "z", "q"]
    totals = store.top_totals(window, top, among)
    bounded = bounded_stats(totals)
    assert_same(bounded, replace(truth, tools=truth.tools[:top]))
    if window.session is not None:
        assert bounded.tools == truth.tools[:top]  # exact percentiles
    others = truth.tools[top:]
    assert (totals.rest.tools, totals.rest.calls, totals.rest.errors) == (
        len(others),
        sum(t.calls for t in others),
        sum(t.errors for t in others),
    )
    assert totals.called == {t.name for t in others} & set(among)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(records=st.lists(RECORDS, min_size=1, max_size=40), cutoff=st.integers(0, 31 * 60))
def test_pruning_leaves_the_statistics_after_the_cutoff(
    shared: tuple[str, UsageStore], records: list[UsageRecord], cutoff: int
) -> None:
    url, store = shared
    empty(url)
    store.record(records)
    before = at(cutoff)
    with mock.patch.object(store_base, "PRUNE_BATCH", 3):
        store.prune(before)
    start = rollups.period_start(before[:13])  # whole hours go
    kept = [r for r in stored_once(records) if r.at >= start]
    assert stored(store) == len(kept)
    # sessions idle before the cutoff are forgotten; the rest keep their first uses, so what
    # is left reads as the window from the cutoff's hour over every record ever stored
    assert_same(window_stats(store, Window()), exact(records, Window(since=start)))


def test_a_store_of_schema_1_is_rolled_up_when_upgraded(store_url: str) -> None:
    """Records stored before the roll-ups existed give the same answers after the upgrade."""
    records = [
        UsageRecord(f"t{i % 7}", i % 5 != 0, at(i * 13), float(i % 11) * 3.5, f"s{i % 9}", None, f"r{i}")
        for i in range(300)
    ] + [UsageRecord("t1", True, at(5), None, None)]  # fmt: skip
    version_1(store_url, records)
    store = open_store(store_url)
    try:
        for window in (Window(), Window(since=at(61)), Window(at(100), at(1500))):
            truth = exact(records, window)
            assert window_stats(store, window, exact=True) == truth
            assert_same(window_stats(store, window), truth)
        assert store.session_tools("s1") == (
            {"t1", "t3", "t5", "t0", "t2", "t4", "t6"},
            {f"t{i}" for i in range(7)},
        )
    finally:
        store.close()


def version_1(url: str, records: list[UsageRecord]) -> None:
    """A store as toolsel left it before migration 2, holding the records."""
    (statements,) = (steps for version, steps in store_module.MIGRATIONS if version == 1)
    rows = [(r.id, r.tool, r.ok, r.latency_ms, r.session, r.error, r.at) for r in records]
    insert = (
        "INSERT INTO usage_records (record_id, tool, ok, latency_ms, session, error, at) VALUES "
    )
    if url.startswith("sqlite"):
        db = sqlite3.connect(url.removeprefix("sqlite:///"))
        db.execute("CREATE TABLE toolsel_schema (version INTEGER NOT NULL)")
        for statement in statements:
            db.execute(str(statement).format(serial="INTEGER"))
        db.execute("INSERT INTO toolsel_schema VALUES (1)")
        db.executemany(insert + "(?, ?, ?, ?, ?, ?, ?)", rows)
        db.commit()
        db.close()
        return
    import psycopg

    with psycopg.connect(url) as db:
        db.execute("CREATE TABLE toolsel_schema (version INTEGER NOT NULL)")
        for statement in statements:
            db.execute(str(statement).format(serial="BIGSERIAL"))  # type: ignore[arg-type]
        db.execute("INSERT INTO toolsel_schema VALUES (1)")
        db.cursor().executemany(insert + "(%s, %s, %s, %s, %s, %s, %s)", rows)
