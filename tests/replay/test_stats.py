"""Usage sums: latencies taken back by value; every engine's numbers the same."""

from __future__ import annotations

import importlib.util
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.replay.pools import InProcessPool
from toolsel.replay import parallel
from toolsel.replay.driver import replay_paths, usage_paths
from toolsel.replay.series import SeriesRecorder
from toolsel.replay.sketch import ACCURACY
from toolsel.replay.stats import UsageStats, size_summary
from toolsel.replay.totals import usage_stats, without
from toolsel.serve.store import UsageRecord, Window, open_store, window_stats
from toolsel.timeparse import iso

LATENCIES = st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.25, 3.0, 1e-6, 7200.0]), max_size=30)


@given(values=LATENCIES, chosen=st.data())
def test_latencies_taken_back_leave_the_rest(values: list[float], chosen: st.DataObject) -> None:
    """One of each value taken (equal values included) goes; the others stay."""
    taken = (
        chosen.draw(st.lists(st.sampled_from(range(len(values))), unique=True)) if values else []
    )
    left = list(values)
    for index in sorted(taken, reverse=True):
        del left[index]
    assert sorted(without(values, [values[i] for i in taken])) == sorted(left)


def test_nothing_taken_is_the_values_themselves() -> None:
    values = [1.0, 2.0]
    assert without(values, None) is values and without(values, []) is values


@given(st.lists(st.integers(0, 10**9).map(float), min_size=1, max_size=60))
def test_size_summary_is_the_median_and_nearest_rank_p95(values: list[float]) -> None:
    import statistics

    found = size_summary(values)
    assert found is not None
    ordered = sorted(values)
    assert found.count == len(values) and found.total == int(sum(values))
    assert found.median == statistics.median(values)
    rank = -(-95 * len(values) // 100)  # the smallest value with 95% at or under it
    assert found.p95 == ordered[rank - 1]
    assert size_summary([]) is None


# -- every engine, the same numbers on the same events ------------------------------------

#: A session's calls: (tool, is an error, latency in ms); every call is answered.
CALLS = st.lists(
    st.tuples(st.sampled_from("abcdef"), st.booleans(), st.integers(0, 90_000)),
    min_size=1,
    max_size=8,
)
START = datetime(2026, 3, 1, 12, tzinfo=UTC)


def write_sessions(folder: Path, sessions: list[list[tuple[str, bool, int]]]) -> list[UsageRecord]:
    """Each session as a Claude Code file (its calls a second apart, each answered after its
    latency), and the same calls as the usage store's records."""
    records = []
    for number, calls in enumerate(sessions):
        lines = []
        for index, (tool, error, latency) in enumerate(calls):
            ident = f"toolu_{number}_{index}"
            at = START + timedelta(seconds=3600 * number + 100 * index)
            done = at + timedelta(milliseconds=latency)
            use = {"type": "tool_use", "id": ident, "name": tool, "input": {}}
            result = {"type": "tool_result", "tool_use_id": ident, "is_error": error}
            lines.append({"type": "assistant", "timestamp": iso(at), "message": {
                "id": f"m{number}_{index}", "role": "assistant", "content": [use]}})  # fmt: skip
            lines.append({"type": "user", "timestamp": iso(done), "message": {
                "role": "user", "content": [result]}})  # fmt: skip
            records.append(UsageRecord(tool, not error, iso(at), float(latency), f"s{number}"))
        text = "".join(json.dumps(line) + "\n" for line in lines)
        (folder / f"s{number:03d}.jsonl").write_text(text, encoding="utf-8")
    return records


def numbers(stats: UsageStats) -> tuple[object, ...]:
    """What every engine must agree on, latencies aside."""
    tools = [(t.name, t.calls, t.answered, t.errors, t.transcripts) for t in stats.tools]
    return stats.transcripts, tools, stats.co_used_pairs, stats.never_called


def latencies(stats: UsageStats) -> list[tuple[float | None, float | None]]:
    return [(t.median_latency_s, t.p95_latency_s) for t in stats.tools]


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(sessions=st.lists(CALLS, min_size=1, max_size=6))
def test_every_engine_gives_the_same_numbers_on_the_same_events(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    sessions: list[list[tuple[str, bool, int]]],
) -> None:
    """The transcripts in one process and in worker processes, the charts over time, the
    event tables in SQL (DuckDB), and the usage store's records and roll-ups all produce or
    merge the one `UsageSums`: the same calls, answers, errors, transcripts and pairs, and
    the same percentiles (the roll-ups' within 1%)."""
    root = tmp_path_factory.mktemp("engines")
    (root / "t").mkdir()
    records = write_sessions(root / "t", sessions)
    paths = [str(root / "t")]
    recorder = SeriesRecorder()
    one = usage_paths(paths, on_event=recorder).stats()
    monkeypatch.setattr(parallel, "MIN_FILES", 1)
    monkeypatch.setattr(parallel, "CHUNK", 2)
    monkeypatch.setattr(parallel, "_pool", InProcessPool)
    assert usage_paths(paths, jobs=2).stats() == one
    assert usage_stats(replay_paths(paths, jobs=2, keep="compact")) == one
    charted: dict[str, list[int]] = {}
    for _, window in recorder.finish():
        for t in window.tools:
            counts = charted.setdefault(t.name, [0, 0, 0])
            counts[:] = [counts[0] + t.calls, counts[1] + t.answered, counts[2] + t.errors]
    assert charted == {t.name: [t.calls, t.answered, t.errors] for t in one.tools}
    store = open_store(f"sqlite:///{root / 'usage.sqlite3'}")
    try:
        store.record(records)
        exact = window_stats(store, Window(), exact=True)
        summed = window_stats(store, Window())
    finally:
        store.close()
    assert numbers(exact) == numbers(summed) == numbers(one)
    assert latencies(exact) == latencies(one)
    for (median, high), (want_median, want_high) in zip(
        latencies(summed), latencies(one), strict=True
    ):
        assert median is not None and want_median is not None and high is not None
        assert abs(median - want_median) <= ACCURACY * want_median + 1e-9
        assert abs(high - (want_high or 0.0)) <= ACCURACY * (want_high or 0.0) + 1e-9
    if importlib.util.find_spec("pyarrow") and importlib.util.find_spec("duckdb"):
        from toolsel.events.export import export_events
        from toolsel.events.reduce import events_stats

        export_events(paths, str(root / "events"))
        assert events_stats(str(root / "events")) == one


def test_the_engines_sql_is_written_from_the_one_definition() -> None:
    """Each SQL engine sums the counts `UsageSums` defines, under their names."""
    from toolsel.replay.stats import COUNTS, ToolSums
    from toolsel.serve.rollups.sql import COLUMNS

    assert set(COUNTS) <= set(ToolSums.__dataclass_fields__)
    assert set(COLUMNS.values()) <= set(COUNTS)
    if importlib.util.find_spec("duckdb"):
        from toolsel.events.reduce import SUMS

        assert set(SUMS) <= set(COUNTS)
