"""Events as a table, measured: on a generated archive of about 10k transcript files with
resumed sessions, `stats` against `export` + `stats --events` (equal output, checked),
the export's (in one process and with `--jobs 2`) and the DuckDB reduce's time, and the
export mapped on a two-worker Dask local cluster (start-up and cost per GB).

    python benchmarks/events_bench.py [SESSIONS]   # default 8000 sessions: ~10k files

CPU seconds (process time) are given beside wall time: the machine may be shared."""

from __future__ import annotations

import io
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def timed(label: str, work: Callable[[], Any]) -> tuple[Any, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    value = work()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"{label:<34} {wall:7.2f} s wall {cpu:7.2f} s CPU (this process)")
    return value, wall


def rendered(stats: Any, fmt: str) -> str:
    from toolsel.render.stats import STATS_RENDERERS

    out = io.StringIO()
    STATS_RENDERERS[fmt](stats, out, top=0)
    return out.getvalue()


def main(sessions: int) -> None:
    from tests.events.archive import write_archive
    from toolsel.events.dask import dask_client, export_on_dask, mapped_on
    from toolsel.events.export import export_events
    from toolsel.events.reduce import events_stats
    from toolsel.replay.driver import replay_paths
    from toolsel.replay.lines import expand_inputs
    from toolsel.replay.totals import usage_stats

    work = Path(tempfile.mkdtemp(prefix="events-bench-"))
    files = write_archive(work / "archive", sessions, calls=40)
    size = sum(f.stat().st_size for f in files)
    gb = size / 1e9
    print(f"archive: {len(files)} files, {size / 1e6:.1f} MB")
    paths = [str(work / "archive")]
    expected, _ = timed("stats (one process)", lambda: usage_stats(replay_paths(paths)))
    summary, export_s = timed(
        "export (one process)", lambda: export_events(paths, str(work / "ev"))
    )
    print(f"  {summary.calls} calls, {summary.copied} copied")
    got, _ = timed("stats --events (DuckDB reduce)", lambda: events_stats(str(work / "ev")))
    same = all(rendered(got, f) == rendered(expected, f) for f in ("json", "human"))
    print(f"stats --events output equal to stats: {same}")
    print(f"export cost: {export_s / gb:.1f} s per GB (one process)")
    _, jobs_s = timed(
        "export --jobs 2 (this process's CPU)",
        lambda: export_events(paths, str(work / "ev-jobs"), jobs=2),
    )
    print(f"  {export_s / jobs_s:.2f}x; equal tables: {events_stats(str(work / 'ev-jobs')) == got}")
    print(f"export --jobs 2 cost: {jobs_s / gb:.1f} s per GB")

    def on_dask() -> Any:
        with dask_client(None) as client:
            start = time.perf_counter()
            inputs = expand_inputs(paths)
            list(mapped_on(client, inputs))  # warm: the workers import toolsel
            return time.perf_counter() - start

    timed("dask local cluster: start + map", on_dask)
    _, dask_s = timed(
        "export --engine dask (2 workers)",
        lambda: export_on_dask(paths, str(work / "ev-dask")),
    )
    dask_stats = events_stats(str(work / "ev-dask"))
    print(f"engine run equal to the local run: {dask_stats == got}")
    print(f"dask export cost: {dask_s / gb:.1f} s per GB (2 workers, start-up included)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 8000)
