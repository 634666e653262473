"""`toolsel serve` under load, on loopback, with a real HTTP client (httpx), bounded in count
and concurrency.

    python benchmarks/serve_bench.py                       # everything SQLite can do
    python benchmarks/serve_bench.py --postgres postgresql://toolsel@127.0.0.1:5432/postgres

Rows:
  rank hybrid       POST /v1/rank, bundled registry, concurrency 8    (p50 <= 5 ms, p99 <= 20 ms)
  rank fusion       the same with --method fusion ([embed])           (p50 <= 30 ms)
  rank 10k          hybrid over benchmarks/data/registry-10000.yaml   (p50 <= 20 ms)
  usage batches     POST /v1/usage, 100 records a request, SQLite     (>= 2,000 records/s)
  durability        8 clients x 5,000 records (batches of 50, each record with an id), then
                    /v1/analytics must count exactly 40,000; again with the server killed
                    (SIGKILL) mid-run and restarted, clients resending what was not
                    acknowledged: still exactly 40,000
  reload            1,000 registry edits while a client ranks continuously: no request
                    fails, and every answer comes from a complete registry (old or new)

With --analytics 100000,1000000,5000000 (slow: it loads that many records into each store):
  analytics         GET /v1/analytics (default window, and the last 30 days) on a store of
                    N records, ~50 tools, sessions of 20-100 calls, spread over 30 days (and,
                    at the largest N, all in the last minute), through the real server:
                    p50/max, the server's RSS, and the p99/max of small usage writes made
                    while analytics runs in a loop      (< 100 ms at 5M; writes <= 50 ms)
  ingest            POST /v1/usage, batches of 1,000, concurrency 8, SQLite (>= 20,000/s)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TOOLSEL = str(Path(sys.executable).with_name("toolsel"))
QUERIES = [
    "deploy the billing service to production",
    "roll back the bad release",
    "is prod up? if not show me the logs",
    "read the config file",
    "open a pull request for this branch",
    "how many users signed up last week",
    "email the customer that the refund went through",
    "what time is it in Tokyo",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """One `toolsel serve` process on loopback."""

    def __init__(self, registry: list[Path], db: str, cache: str, *options: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.args = [TOOLSEL, "serve", "--port", str(self.port), "--db", db, *options]
        for path in registry:
            self.args += ["-r", str(path)]
        self.env = {**os.environ, "TOOLSEL_CACHE_DIR": cache}
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Server:
        self.process = subprocess.Popen(
            self.args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=self.env
        )
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/readyz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.05)
        raise SystemExit(f"server did not start: {' '.join(self.args)}")

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=60)


def latencies(
    url: str, bodies: list[dict[str, Any]], concurrency: int
) -> tuple[list[float], float]:
    """(per-request seconds, wall seconds) of POSTing every body from `concurrency` threads,
    each with its own keep-alive connection (httpx's sync client: its asyncio client costs
    the client 2 ms a request, more than the server spends)."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    local = threading.local()
    clients: list[httpx.Client] = []

    def one(body: dict[str, Any]) -> float:
        client = getattr(local, "client", None)
        if client is None:
            client = local.client = httpx.Client(timeout=60)
            clients.append(client)
        started = time.perf_counter()
        client.post(url, json=body).raise_for_status()
        return time.perf_counter() - started

    with ThreadPoolExecutor(concurrency) as pool:
        started = time.perf_counter()
        timings = list(pool.map(one, bodies))
        wall = time.perf_counter() - started
    for client in clients:
        client.close()
    return timings, wall


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def rank_row(label: str, server: Server, method: str, count: int, target: str) -> list[str]:
    bodies = [{"query": QUERIES[i % len(QUERIES)], "method": method} for i in range(count)]
    latencies(server.url + "/v1/rank", bodies[:50], 8)  # warm up
    rows = []
    for concurrency in (1, 8):
        timings, wall = latencies(server.url + "/v1/rank", bodies, concurrency)
        rows.append(
            f"| {label} | {count} | {concurrency} | {1000 * statistics.median(timings):.1f} ms "
            f"| {1000 * percentile(timings, 0.99):.1f} ms | {count / wall:.0f} req/s | {target} |"
        )
    return rows


def usage_row(server: Server, batches: int) -> str:
    bodies = [
        {"records": [{"tool": "run_tests", "ok": True, "latency_ms": 12, "session": f"b{b}", "id": f"u{b}-{i}"} for i in range(100)]}
        for b in range(batches)
    ]  # fmt: skip
    timings, wall = latencies(server.url + "/v1/usage", bodies, 8)
    records = 100 * batches
    return (
        f"| usage, batches of 100 (SQLite) | {batches} | 8 | {1000 * statistics.median(timings):.1f} ms "
        f"| {1000 * percentile(timings, 0.99):.1f} ms | **{records / wall:.0f} records/s** | >= 2,000 records/s |"
    )


async def record_all(
    server_url: str, clients: int, per_client: int, batch: int, acknowledged: list[int]
) -> None:
    """Each client sends its records in batches with ids, resending a batch until it is
    acknowledged (a killed server refuses connections until it is back)."""

    async def client_run(c: int) -> None:
        async with httpx.AsyncClient(timeout=30) as http:
            for start in range(0, per_client, batch):
                records = [
                    {"tool": f"tool_{(start + i) % 7}", "ok": (start + i) % 5 != 0, "session": f"c{c}", "id": f"c{c}-{start + i}"}
                    for i in range(batch)
                ]  # fmt: skip
                while True:
                    try:
                        response = await http.post(server_url + "/v1/usage", json=records)
                        if response.status_code == 200:
                            acknowledged[c] += batch
                            break
                    except httpx.HTTPError:
                        pass
                    await asyncio.sleep(0.05)

    await asyncio.gather(*(client_run(c) for c in range(clients)))


def total_calls(url: str) -> int:
    stats = httpx.get(url + "/v1/analytics", timeout=120).json()
    return sum(t["calls"] for t in stats["tools"].values())


def durability_row(label: str, db: str, cache: str, kill: bool) -> str:
    server = Server([ROOT / "registries"], db, cache).start()
    acknowledged = [0] * 8
    started = time.perf_counter()

    async def run() -> None:
        task = asyncio.create_task(record_all(server.url, 8, 5000, 50, acknowledged))
        if kill:
            while sum(acknowledged) < 20_000:
                await asyncio.sleep(0.01)
            await asyncio.to_thread(server.kill)
            await asyncio.to_thread(server.start)  # same port, same store
        await task

    asyncio.run(run())
    wall = time.perf_counter() - started
    counted = total_calls(server.url)
    server.stop()
    verdict = "exact" if counted == 40_000 else "**LOST OR DOUBLED**"
    return f"| {label} | 8 x 5,000 | {sum(acknowledged)} | {counted} | {verdict} | {wall:.1f} s |"


def reload_row(cache: str, edits: int) -> str:
    folder = Path(tempfile.mkdtemp(prefix="toolsel-serve-reload-"))
    registry = folder / "tools.yaml"
    base = "tools:\n" + "".join(
        f"  - name: tool_{i}\n    description: Handles files, task {i}.\n" for i in range(20)
    )
    registry.write_text(base, encoding="utf-8")
    server = Server([registry], f"sqlite:///{folder / 'u.db'}", cache).start()
    stop = asyncio.Event()
    counts: list[int] = []
    failures: list[str] = []

    async def ranker() -> None:
        async with httpx.AsyncClient(timeout=30) as http:
            while not stop.is_set():
                try:
                    response = await http.post(
                        server.url + "/v1/rank", json={"query": "handles files task", "top": 100}
                    )
                except httpx.HTTPError as error:
                    failures.append(repr(error))
                    continue
                if response.status_code != 200:
                    failures.append(response.text)
                else:
                    counts.append(len(response.json()["results"]))

    async def editor() -> int:
        versions = 0
        for i in range(edits):
            extra = "  - name: tool_extra\n    description: Handles files, the extra task.\n"
            text = base + (extra if i % 2 == 0 else "")
            temporary = registry.with_suffix(".tmp")
            temporary.write_text(text, encoding="utf-8")
            temporary.replace(registry)  # an editor's atomic save
            await asyncio.sleep(0.01)
            versions += 1
        await asyncio.sleep(0.5)
        stop.set()
        return versions

    async def run() -> int:
        task = asyncio.create_task(ranker())
        versions = await editor()
        await task
        return versions

    versions = asyncio.run(run())
    ready = httpx.get(server.url + "/readyz").json()
    server.stop()
    whole = set(counts) <= {20, 21}
    return (
        f"| reload under load | {versions} edits | {len(counts)} ranks | {len(failures)} failed "
        f"| {'every answer from a whole registry' if whole and not failures else 'BROKEN: ' + str(sorted(set(counts)))} "
        f"| registry version {ready['registry_version']} |"
    )


def usage_records(count: int, spread_days: float, seed: int = 1) -> Iterator[Any]:
    """`count` records in time order: sessions of 20-100 calls 5 s apart, starting uniformly
    over the last `spread_days` (0: all in the last minute), ~50 tools (a few used most),
    5% errors, log-normal latencies (median ~55 ms)."""
    import heapq
    import random
    from datetime import UTC, datetime, timedelta

    from toolsel.serve.store import UsageRecord
    from toolsel.timeparse import iso

    rnd = random.Random(seed)
    span = spread_days * 86400 or 60
    step = 5 if spread_days else 0
    tools = [f"tool_{i:02d}" for i in range(50)]
    weights = [1 / (i + 1) for i in range(50)]
    sessions, total = [], 0
    while total < count:
        length = min(rnd.randint(20, 100), count - total)
        sessions.append((length, rnd.choices(tools, weights, k=12)))
        total += length
    heap = [(rnd.random() * (span - length * step), i, 0) for i, (length, _) in enumerate(sessions)]
    heapq.heapify(heap)
    origin = datetime.now(UTC) - timedelta(seconds=span)
    made = 0
    while heap:
        at, session, call = heapq.heappop(heap)
        length, used = sessions[session]
        tool = rnd.choice(used) if rnd.random() < 0.9 else rnd.choice(tools)
        latency = round(rnd.lognormvariate(4, 1.2), 3)
        when = iso(origin + timedelta(seconds=at))
        yield UsageRecord(tool, rnd.random() > 0.05, when, latency, f"s{session}", None, f"r{made}")
        made += 1
        if call + 1 < length:
            heapq.heappush(heap, (at + step, session, call + 1))


def load(db: str, count: int, spread_days: float) -> float:
    """Fill a store straight through its API, in batches of 20,000; records/s."""
    import itertools

    from toolsel.serve.store import open_store

    store = open_store(db)
    records = usage_records(count, spread_days)
    started = time.perf_counter()
    while batch := list(itertools.islice(records, 20_000)):
        store.record(batch)
    store.close()
    return count / (time.perf_counter() - started)


def rss_mb(pid: int) -> tuple[float, float]:
    """(resident, peak resident) MB of a process."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def timed_gets(url: str, count: int) -> list[float]:
    with httpx.Client(timeout=300) as client:
        client.get(url).raise_for_status()  # warm
        timings = []
        for _ in range(count):
            started = time.perf_counter()
            client.get(url).raise_for_status()
            timings.append(time.perf_counter() - started)
    return timings


def writes_during_analytics(
    server: Server, analytics_url: str, seconds: float
) -> tuple[list[float], int]:
    """Latencies of small usage writes (4 clients, 10 records each, ids) made while one
    client reads analytics in a loop; and how many analytics answers came back."""
    import threading

    stop = threading.Event()
    reads = [0]
    waits: list[float] = []

    def reader() -> None:
        with httpx.Client(timeout=300) as client:
            while analytics_url and not stop.is_set():
                client.get(analytics_url).raise_for_status()
                reads[0] += 1

    def writer(number: int) -> None:
        with httpx.Client(timeout=60) as client:
            batch = 0
            while not stop.is_set():
                body = [{"tool": f"tool_{i}", "ok": True, "latency_ms": 5, "session": f"w{number}", "id": f"w{number}-{batch}-{i}"} for i in range(10)]  # fmt: skip
                started = time.perf_counter()
                client.post(server.url + "/v1/usage", json=body).raise_for_status()
                waits.append(time.perf_counter() - started)
                batch += 1
                time.sleep(0.02)

    threads = [threading.Thread(target=reader)] + [
        threading.Thread(target=writer, args=(n,)) for n in range(4)
    ]
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join()
    return waits, reads[0]


def analytics_row(label: str, db: str, count: int, spread_days: float, cache: str) -> str:
    from datetime import UTC, datetime, timedelta

    from toolsel.timeparse import iso

    loaded = load(db, count, spread_days)
    server = Server([ROOT / "registries"], db, cache, "--no-embed").start()
    try:
        assert server.process is not None
        default = timed_gets(server.url + "/v1/analytics", 15)
        month = iso(datetime.now(UTC) - timedelta(days=30))
        month_url = f"{server.url}/v1/analytics?since={month}"
        thirty = timed_gets(month_url, 15)
        alone, _ = writes_during_analytics(server, None, 5.0)
        waits, reads = writes_during_analytics(server, month_url, 10.0)
        _, peak = rss_mb(server.process.pid)
    finally:
        server.stop()
    when = f"{spread_days:g} days" if spread_days else "all in the last minute"
    return (
        f"| {label} | {count:,} | {when} | {loaded:,.0f}/s "
        f"| **{1000 * statistics.median(default):.1f}** / {1000 * max(default):.1f} ms "
        f"| {1000 * statistics.median(thirty):.1f} / {1000 * max(thirty):.1f} ms "
        f"| {peak:.0f} MB | {1000 * percentile(waits, 0.99):.1f} / **{1000 * max(waits):.1f}** ms "
        f"({len(waits)} writes, {reads} analytics) "
        f"| {1000 * percentile(alone, 0.99):.1f} / {1000 * max(alone):.1f} ms |"
    )


def ingest_row(db: str, cache: str, batches: int) -> str:
    records = list(usage_records(1000 * batches, 0, seed=7))
    bodies = [
        {"records": [{"tool": r.tool, "ok": r.ok, "latency_ms": r.latency_ms, "session": r.session, "at": r.at, "id": r.id} for r in records[b * 1000 : (b + 1) * 1000]]}
        for b in range(batches)
    ]  # fmt: skip
    server = Server([ROOT / "registries"], db, cache, "--no-embed").start()
    try:
        timings, wall = latencies(server.url + "/v1/usage", bodies, 8)
    finally:
        server.stop()
    return (
        f"| ingest, batches of 1,000 (SQLite) | {batches} | 8 | {1000 * statistics.median(timings):.0f} ms "
        f"| {1000 * percentile(timings, 0.99):.0f} ms | **{1000 * batches / wall:,.0f} records/s** | >= 20,000 records/s |"
    )


def analytics_main(sizes: list[int], postgres: str | None, cache: str, scratch: Path) -> None:
    print("| ingest | batches | concurrency | p50 | p99 | throughput | target |")
    print("|---|---:|---:|---:|---:|---:|---|")
    print(ingest_row(f"sqlite:///{scratch / 'ingest.db'}", cache, 300), flush=True)
    print()
    print(
        "| analytics | records | timestamps | load | `/v1/analytics` default window p50 / max "
        "| last 30 days p50 / max | server peak RSS | usage write during analytics p99 / max "
        "| usage write alone p99 / max |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    stores = [("SQLite", lambda n: f"sqlite:///{scratch / f'a{n}.db'}")]
    if postgres:
        stores.append(("PostgreSQL", lambda n: _fresh_postgres(postgres)))
    for name, make in stores:
        runs = [(size, 30.0) for size in sizes] + [(max(sizes), 0.0)]
        for number, (size, spread) in enumerate(runs):
            print(analytics_row(name, make(number), size, spread, cache), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="rank requests per row")
    parser.add_argument("--postgres", help="a PostgreSQL URL for the durability rows")
    parser.add_argument("--edits", type=int, default=1000)
    parser.add_argument(
        "--analytics", metavar="SIZES", help="comma-separated store sizes, e.g. 100000,1000000"
    )
    parser.add_argument(
        "--only-analytics", action="store_true", help="skip the rank, usage and reload rows"
    )
    args = parser.parse_args()
    cache = tempfile.mkdtemp(prefix="toolsel-serve-bench-")
    scratch = Path(tempfile.mkdtemp(prefix="toolsel-serve-db-"))
    if args.analytics:
        sizes = [int(size) for size in args.analytics.split(",")]
        analytics_main(sizes, args.postgres, cache, scratch)
        if args.only_analytics:
            return
        print()
    print("| measurement | requests | concurrency | p50 | p99 | throughput | target |")
    print("|---|---:|---:|---:|---:|---:|---|")
    server = Server([ROOT / "registries"], f"sqlite:///{scratch / 'rank.db'}", cache).start()
    try:
        print(
            *rank_row(
                "rank, hybrid, bundled registry",
                server,
                "hybrid",
                args.count,
                "p50 <= 5 ms, p99 <= 20 ms",
            ),
            sep="\n",
            flush=True,
        )
        from toolsel.embed.model import missing

        if missing() is None:
            print(
                *rank_row(
                    "rank, fusion, bundled registry",
                    server,
                    "fusion",
                    args.count // 4,
                    "p50 <= 30 ms",
                ),
                sep="\n",
                flush=True,
            )
        print(usage_row(server, 200), flush=True)
    finally:
        server.stop()
    big = HERE / "data" / "registry-10000.yaml"
    if not big.exists():
        subprocess.run(
            [sys.executable, str(HERE / "gen_registry.py"), "10000", "-o", str(big)], check=True
        )
    server = Server([big], f"sqlite:///{scratch / 'big.db'}", cache, "--no-embed").start()
    try:
        print(
            *rank_row("rank, hybrid, 10k tools", server, "hybrid", args.count // 2, "p50 <= 20 ms"),
            sep="\n",
            flush=True,
        )
    finally:
        server.stop()
    print()
    print("| durability | records | acknowledged | counted by /v1/analytics | | wall |")
    print("|---|---:|---:|---:|---|---:|")
    stores = [("SQLite", lambda n: f"sqlite:///{scratch / f'd{n}.db'}")]
    if args.postgres:
        stores.append(("PostgreSQL", lambda n: _fresh_postgres(args.postgres)))
    for name, make in stores:
        print(durability_row(f"{name}", make(1), cache, kill=False), flush=True)
        print(
            durability_row(f"{name}, SIGKILL mid-run and restart", make(2), cache, kill=True),
            flush=True,
        )
    print()
    print(reload_row(cache, args.edits), flush=True)


def _fresh_postgres(base: str) -> str:
    import uuid

    import psycopg

    name = f"toolsel_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
    return base.rsplit("/", 1)[0] + "/" + name


if __name__ == "__main__":
    main()
