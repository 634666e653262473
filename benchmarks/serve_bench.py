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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="rank requests per row")
    parser.add_argument("--postgres", help="a PostgreSQL URL for the durability rows")
    parser.add_argument("--edits", type=int, default=1000)
    args = parser.parse_args()
    cache = tempfile.mkdtemp(prefix="toolsel-serve-bench-")
    scratch = Path(tempfile.mkdtemp(prefix="toolsel-serve-db-"))
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
