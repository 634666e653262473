"""Replaying in worker processes gives what one process gives: the same reports, events,
usage statistics and mined prompts, copies across files included."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT
from tests.replay.archive import write_archive
from tests.replay.pools import InProcessPool
from toolsel.learn import from_transcripts
from toolsel.registry.loader import load_registry
from toolsel.replay import parallel, stats
from toolsel.replay.driver import replay_paths, usage_paths
from toolsel.replay.report import ToolEvent
from toolsel.replay.series import SeriesRecorder
from toolsel.replay.stats import UsageStats
from toolsel.replay.totals import usage_stats
from toolsel.replay.window import CallWindow

BUNDLED = ROOT / "transcripts"
CORPUS = ROOT / "tests" / "corpus" / "transcripts"


@pytest.fixture(autouse=True)
def _pool_for_few_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers even for a handful of files, so the tests take the pool's path."""
    monkeypatch.setattr(parallel, "MIN_FILES", 2)


def pools_of(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """The `jobs` of each call to `parallel.<name>` (a pool started) from now on."""
    pools: list[int] = []
    real = getattr(parallel, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        pools.append(kwargs["jobs"])
        return real(*args, **kwargs)

    monkeypatch.setattr(parallel, name, counted)
    return pools


def both(paths: list[str], **options: Any) -> tuple[Any, Any]:
    return replay_paths(paths, jobs=1, **options), replay_paths(paths, jobs=2, **options)


@pytest.mark.parametrize("folder", [BUNDLED, CORPUS], ids=["bundled", "corpus"])
def test_two_processes_give_the_reports_and_statistics_of_one(folder: Path) -> None:
    registry = load_registry([ROOT / "registries"])
    one, two = both([str(folder)], registry=registry)
    assert len(one.files) > 10
    assert one.files == two.files
    assert usage_stats(one, registry) == usage_stats(two, registry)


def test_pool_is_used_and_copies_are_found_across_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_archive(tmp_path, 30, seed=3, resumed=0.5)
    pools = pools_of(monkeypatch, "parallel_reports")
    one, two = both([str(tmp_path)])
    assert pools == [2]  # one process for --jobs 1, the pool for 2
    assert sum(f.copied_calls for f in one.files) > 0
    assert one.files == two.files and one.usage == two.usage


def compact_both(paths: list[str], **options: Any) -> tuple[Any, Any]:
    """`replay`'s run (reports kept packed) in one process and in two; what each gathered."""
    one, two = both(paths, keep="compact", **options)
    for run in (one, two):
        run_files = list(run.files)
        assert (run.totals, run.found) == (one.totals, one.found)
        assert run_files == list(one.files)
    assert usage_stats(one) == usage_stats(two)  # the sums: a worker's hold copies apart
    return one, two


def test_replay_packs_the_reports_in_the_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`replay` keeps each file packed: the workers pack the reports and sum the totals,
    and the copy pass moves the copies of the few files that have some, their medians
    taken again without the copies' latencies."""
    write_archive(tmp_path, 40, seed=4, resumed=0.6, subagents=0.3)
    pools = pools_of(monkeypatch, "parallel_compact")
    monkeypatch.setattr(parallel, "CHUNK", 7)  # links and copies across chunks
    one, _ = compact_both([str(tmp_path)])
    assert pools == [2]
    files = list(one.files)
    copied = [t for f in files for t in f.tools.values() if t.copied_answered < t.answered]
    assert one.totals["copied_calls"] > 0 and any(t.copied for t in copied)
    assert one.totals["subagents"] > 0 and any(f.subagents for f in files)
    full = replay_paths([str(tmp_path)], jobs=1)
    assert [{n: s.median_latency for n, s in f.tools.items()} for f in full.files] == [
        {n: s.median_latency for n, s in f.tools.items()} for f in files
    ]


@pytest.mark.parametrize("jobs", [1, 2])
def test_replay_without_usage_keeps_the_same_reports_and_no_sums(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    """`replay --format json` sums no usage (in the workers, with --jobs, nor here): the
    reports it keeps, copies moved and sub-agents linked across chunks, and its totals are
    those of a run that sums it; asked for usage statistics, it says it has none."""
    write_archive(tmp_path, 40, seed=4, resumed=0.6, subagents=0.3)
    monkeypatch.setattr(parallel, "CHUNK", 7)
    paths = [str(tmp_path)]
    lean = replay_paths(paths, jobs=jobs, keep="compact", usage=False)
    whole = replay_paths(paths, jobs=jobs, keep="compact")
    assert lean.usage is None and whole.usage is not None
    assert lean.totals["copied_calls"] > 0 and lean.totals["subagents"] > 0
    assert list(lean.files) == list(whole.files)
    assert (lean.totals, lean.found) == (whole.totals, whole.found)
    with pytest.raises(ValueError, match="usage=False"):
        usage_stats(lean)  # a packed report keeps no latencies to sum them from


def test_replay_packs_the_same_with_a_registry_and_a_window(tmp_path: Path) -> None:
    write_archive(tmp_path, 30, seed=21, resumed=0.5, subagents=0.2)
    registry = load_registry([ROOT / "registries"])
    one, _ = compact_both([str(tmp_path)], registry=registry)
    assert one.found and one.totals["violations"] > 0
    compact_both([str(tmp_path)], window=CallWindow(since=1_770_000_000.0))
    compact_both([str(BUNDLED), str(CORPUS)], registry=registry)


@pytest.fixture
def in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "_pool", InProcessPool)
    monkeypatch.setattr(parallel, "CHUNK", 6)


@pytest.mark.usefixtures("in_process")
@pytest.mark.parametrize(("keep", "bound"), [("compact", None), ("compact", 12), ("full", None)])
def test_in_process_workers_give_one_process_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keep: Any, bound: int | None
) -> None:
    """Resumed sessions copy calls, some of them left unanswered by the session they copy,
    and sub-agent files link: what `replay` keeps, `stats` counts and the events say (copy
    marks included) are the same with the pool, with and without the pairs' bound; and
    progress is told every file's bytes."""
    write_archive(tmp_path, 40, seed=17, resumed=0.6, subagents=0.3, unanswered=0.5)
    if bound is not None:
        monkeypatch.setattr(stats, "MAX_PAIRS", bound)
    paths = [str(tmp_path)]
    heard: list[list[ToolEvent]] = [[], []]
    told: list[list[int]] = [[], []]
    one, two = (
        replay_paths(paths, jobs=jobs, keep=keep, on_event=events.append, progress=sizes.append)
        for jobs, events, sizes in zip((1, 2), heard, told, strict=True)
    )
    everything = sum(f.stat().st_size for f in tmp_path.rglob("*.jsonl"))
    assert sum(told[0]) == sum(told[1]) == everything
    assert list(one.files) == list(two.files)
    assert (one.totals, one.found) == (two.totals, two.found)
    assert usage_stats(one) == usage_stats(two) == usage_paths(paths, jobs=2).stats()
    assert heard[0] == heard[1] and any(event.copied for event in heard[0])
    unanswered_copies = [
        t for f in one.files for t in f.tools.values() if t.copied > t.copied_answered
    ]
    assert unanswered_copies and one.totals["unanswered"] > 0
    assert one.totals["subagents"] > 0
    if bound is not None:
        assert len(usage_stats(one).co_used_pairs) <= bound


def test_no_more_workers_than_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--jobs 256` on 5 files starts 5 workers, not 256 (each is a process)."""
    started: list[int] = []

    class Counted(InProcessPool):
        def __init__(self, workers: int, work: Any) -> None:
            started.append(workers)
            super().__init__(workers, work)

    monkeypatch.setattr(parallel, "_pool", Counted)
    write_archive(tmp_path, 5, seed=2)
    many = replay_paths([str(tmp_path)], jobs=256, keep="compact")
    one = replay_paths([str(tmp_path)], jobs=1, keep="compact")
    assert started == [5] and list(many.files) == list(one.files)


def test_a_worker_sends_its_answer_or_its_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import signal
    from concurrent.futures import Future
    from concurrent.futures.process import BrokenProcessPool

    from toolsel.replay.file import ReplayOptions

    monkeypatch.setattr(signal, "signal", lambda *args: None)  # the worker's Ctrl-C rule
    write_archive(tmp_path, 3, seed=1)
    files = sorted(str(p) for p in tmp_path.rglob("*.jsonl"))
    work = parallel._work_for(ReplayOptions(), "reports")
    monkeypatch.setattr(parallel, "_work", None)
    parallel.start_worker(work)
    outcome = parallel.replay_chunk(files)
    assert [report[0] for report in outcome.reports] == files  # each report's path
    with pytest.raises(Exception, match=r"missing\.jsonl"):
        parallel.replay_chunk([str(tmp_path / "missing.jsonl")])

    def answered(error: BaseException) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_exception(error)
        return future

    dead = answered(BrokenProcessPool("a child process terminated abruptly"))
    with pytest.raises(RuntimeError, match=r"^a replay worker process ended unexpectedly$"):
        parallel._answer(dead)
    with pytest.raises(ValueError, match="what the worker met"):
        parallel._answer(answered(ValueError("what the worker met")))
    salted = parallel.Work(work.options, probe=hash(parallel.PROBE) + 1)
    with pytest.raises(RuntimeError, match=r"^a forked worker salts str hashes unlike its parent$"):
        parallel.start_worker(salted)


@pytest.mark.usefixtures("in_process")
def test_in_process_workers_mine_and_map_as_one_process(tmp_path: Path) -> None:
    from toolsel.events.export import export_events, read_table

    write_archive(tmp_path / "a", 20, seed=5, resumed=0.5, unanswered=0.5)
    paths = [str(tmp_path / "a")]
    assert from_transcripts(paths, jobs=1, pool=3) == from_transcripts(paths, jobs=2, pool=3)
    pytest.importorskip("pyarrow")
    for jobs in (1, 2):
        export_events(paths, str(tmp_path / f"ev{jobs}"), jobs=jobs)
    for table in ("calls", "files"):
        one, two = (read_table(str(tmp_path / f"ev{j}"), table) for j in (1, 2))
        assert one.num_rows and one.equals(two)


def test_workers_salted_unlike_the_parent_hash_with_blake2b(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_archive(tmp_path, 30, seed=8, resumed=0.6)
    monkeypatch.setattr(parallel, "FORK_HASH", False)
    one, two = both([str(tmp_path)])
    assert sum(f.copied_calls for f in one.files) > 0
    assert one.files == two.files and one.usage == two.usage
    compact_both([str(tmp_path)])
    assert parallel.blake2b_64("toolu_1") == parallel.blake2b_64("toolu_1") != hash("toolu_1")


def usage_both(paths: list[str], **options: Any) -> tuple[UsageStats, UsageStats]:
    """`stats`' totals in one process and in two, each checked against the reports'."""
    one = usage_paths(paths, jobs=1, **options).stats()
    two = usage_paths(paths, jobs=2, **options).stats()
    assert one == usage_stats(replay_paths(paths, jobs=1, window=options.get("window")))
    return one, two


def test_stats_takes_copies_back_out_of_each_chunks_totals(tmp_path: Path) -> None:
    """Resumed sessions copy calls (some tools of a file only as copies) and sub-agent
    files link: a worker's chunk totals, less the copies, are what one process counts."""
    write_archive(tmp_path, 40, seed=4, resumed=0.6, subagents=0.2)
    paths = [str(tmp_path)]
    assert sum(f.copied_calls for f in replay_paths(paths).files) > 0
    one, two = usage_both(paths)
    assert one == two and one.tools and one.co_used_pairs


def test_stats_pairs_the_same_where_the_pairs_reach_their_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past MAX_PAIRS the rarest pairs go, file after file: the parent then pairs each
    file of a chunk in turn, as one process does."""
    write_archive(tmp_path, 30, seed=6, resumed=0.5)
    monkeypatch.setattr(stats, "MAX_PAIRS", 12)
    one, two = usage_both([str(tmp_path)])
    assert one == two and len(one.co_used_pairs) <= 12


def test_stats_events_and_window_are_the_same(tmp_path: Path) -> None:
    write_archive(tmp_path, 30, seed=12, resumed=0.5)
    window = CallWindow(since=1_770_000_000.0)
    recorders = [SeriesRecorder(), SeriesRecorder()]
    one, two = (
        usage_paths([str(tmp_path)], jobs=jobs, window=window, on_event=recorder).stats()
        for jobs, recorder in zip((1, 2), recorders, strict=True)
    )
    assert one == two and one.tools
    assert recorders[0].finish() == recorders[1].finish() != ()


def test_chunks_back_out_of_order_are_used_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker whose chunk takes longer holds up no other: what comes back is put back
    in path order."""
    import time

    write_archive(tmp_path, 30, seed=13, resumed=0.5)
    first = sorted(str(p) for p in tmp_path.rglob("*.jsonl"))[0]
    real = parallel._replayed

    def slow_first(work: Any, paths: list[str]) -> Any:
        if first in paths:
            time.sleep(0.3)  # the other worker answers its chunks meanwhile
        return real(work, paths)

    monkeypatch.setattr(parallel, "_replayed", slow_first)
    one, two = both([str(tmp_path)])
    assert one.files == two.files
    assert usage_both([str(tmp_path)])[1] == usage_stats(one)
    compact_both([str(tmp_path)])


def test_events_come_in_the_same_order_with_the_same_copy_marks(tmp_path: Path) -> None:
    write_archive(tmp_path, 20, seed=5, resumed=0.6)
    heard: list[list[ToolEvent]] = [[], []]
    for jobs, events in zip((1, 2), heard, strict=True):
        replay_paths([str(tmp_path)], jobs=jobs, on_event=events.append)
    assert heard[0] == heard[1]
    assert any(event.copied for event in heard[0])


def test_mined_prompts_are_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_archive(tmp_path, 25, seed=9, resumed=0.5)
    pools = pools_of(monkeypatch, "parallel_prompts")
    for pool in (None, 3):  # every prompt kept; a pool pruned many times over
        one = from_transcripts([str(tmp_path)], jobs=1, pool=pool)
        two = from_transcripts([str(tmp_path)], jobs=2, pool=pool)
        assert one == two and one.examples
        assert bool(one.pruned) == (pool is not None)
    assert pools == [2, 2]


def test_a_window_counts_the_same_calls_in_both(tmp_path: Path) -> None:
    write_archive(tmp_path, 30, seed=11, resumed=0.5)
    window = CallWindow(since=1_770_000_000.0)  # 2026-02-02: about half the calls
    one, two = both([str(tmp_path)], window=window, keep="none")
    assert one.files == two.files == ()
    everything = usage_stats(replay_paths([str(tmp_path)], jobs=1))
    counted = usage_stats(one)
    assert counted == usage_stats(two)
    assert 0 < sum(t.calls for t in counted.tools) < sum(t.calls for t in everything.tools)


def test_latencies_can_be_folded_into_medians(tmp_path: Path) -> None:
    write_archive(tmp_path, 12, seed=2, resumed=0.5)
    full = replay_paths([str(tmp_path)], jobs=2)
    slim = replay_paths([str(tmp_path)], jobs=2, keep="compact")
    assert usage_stats(full) == usage_stats(slim)
    for a, b in zip(full.files, slim.files, strict=True):
        assert {n: s.median_latency for n, s in a.tools.items()} == {
            n: s.median_latency for n, s in b.tools.items()
        }
        assert all(not s.latencies for s in b.tools.values())


def test_few_files_stdin_or_one_job_stay_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "MIN_FILES", 64)
    many = [f"f{i}.jsonl" for i in range(64)]
    assert parallel.use_pool(many, 2)
    assert not parallel.use_pool(many[:63], 2)
    assert not parallel.use_pool(many, 1)
    assert not parallel.use_pool([*many, "-"], 2)
    assert parallel.available_cores() >= 1


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    sessions=st.integers(2, 14),
    seed=st.integers(0, 2**16),
    resumed=st.sampled_from([0.0, 0.5, 1.0]),
    subagents=st.sampled_from([0.0, 0.2]),
)
def test_any_archive_replays_the_same_in_one_process_and_in_two(
    tmp_path_factory: pytest.TempPathFactory,
    sessions: int,
    seed: int,
    resumed: float,
    subagents: float,
) -> None:
    out = tmp_path_factory.mktemp("archive")
    write_archive(out, sessions, seed=seed, resumed=resumed, subagents=subagents, turns=4)
    one, two = both([str(out)])
    assert one.files == two.files
    assert usage_stats(one) == usage_stats(two) == usage_paths([str(out)], jobs=2).stats()
    packed, _ = compact_both([str(out)])
    assert usage_stats(packed) == usage_stats(one) and packed.totals == one.totals


@given(files=st.integers(0, 3000), jobs=st.integers(1, 16))
def test_chunks_keep_every_file_in_order_and_shrink_at_the_end(files: int, jobs: int) -> None:
    inputs = [f"{n:05}.jsonl" for n in range(files)]
    chunks = parallel.chunked(inputs, jobs)
    assert [path for chunk in chunks for path in chunk] == inputs
    sizes = [len(chunk) for chunk in chunks]
    assert all(0 < size <= parallel.CHUNK for size in sizes)
    assert len(chunks) >= min(jobs, files)  # no worker without a chunk
    # past the largest, each is no larger than the one before (but the very last, a rest)
    tail = sizes[sizes.index(max(sizes), 0) :] if sizes else []
    assert all(a >= b for a, b in pairwise(tail[:-1]))


def test_the_last_files_go_in_small_chunks() -> None:
    sizes = [len(c) for c in parallel.chunked([str(n) for n in range(5648)], 2)]
    assert sizes[0] == parallel.CHUNK and sum(sizes) == 5648
    assert sizes[-4:-1] == [parallel.TAIL] * 3 and sizes[-1] <= parallel.TAIL


def test_the_heap_is_frozen_only_while_workers_fork(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers are forked with the parent's objects frozen (their collections then leave
    the shared pages alone); the caller's heap is not left frozen after."""
    import gc

    write_archive(tmp_path, 6)
    frozen: list[int] = []
    real = parallel._pool

    def pool(workers: int, work: parallel.Work) -> Any:
        executor = real(workers, work)
        submit = executor.submit

        def counted(*args: Any) -> Any:
            frozen.append(gc.get_freeze_count())
            return submit(*args)

        monkeypatch.setattr(executor, "submit", counted)
        return executor

    monkeypatch.setattr(parallel, "_pool", pool)
    replay_paths([str(tmp_path)], jobs=2, keep="compact")
    assert frozen and frozen[0] > 0
    assert gc.get_freeze_count() == 0
