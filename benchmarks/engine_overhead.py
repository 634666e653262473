"""Start-up and per-task overhead of the distributed engines toolsel could map files on:
Dask (distributed.LocalCluster) and Ray, each with two worker processes. Runs whichever is
importable: `python benchmarks/engine_overhead.py` (Ray lives in its own venv here).

The per-task figure is (time for N trivial tasks) / N, tasks submitted all at once and
gathered in order, as `toolsel.events.dask.mapped_on` does."""

from __future__ import annotations

import importlib.util
import time

TASKS = 2000


def noop(x: int) -> int:
    return x


def dask_figures() -> tuple[float, float]:
    import distributed

    start = time.perf_counter()
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50
    )
    client = distributed.Client(cluster)
    client.submit(noop, 0).result()
    startup = time.perf_counter() - start
    start = time.perf_counter()
    futures = [client.submit(noop, i, pure=False) for i in range(TASKS)]
    [f.result() for f in futures]
    per_task = (time.perf_counter() - start) / TASKS
    client.close()
    cluster.close()
    return startup, per_task


def ray_figures() -> tuple[float, float]:
    import ray

    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    remote = ray.remote(noop)
    ray.get(remote.remote(0))
    startup = time.perf_counter() - start
    start = time.perf_counter()
    ray.get([remote.remote(i) for i in range(TASKS)])
    per_task = (time.perf_counter() - start) / TASKS
    ray.shutdown()
    return startup, per_task


if __name__ == "__main__":
    for name, figures in (("dask", dask_figures), ("ray", ray_figures)):
        if importlib.util.find_spec("distributed" if name == "dask" else name) is None:
            print(f"{name}: not installed")
            continue
        startup, per_task = figures()
        print(
            f"{name}: start-up {startup:.2f} s, {per_task * 1000:.2f} ms per task ({TASKS} tasks)"
        )
