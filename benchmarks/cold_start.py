"""Cold start of `toolsel serve` and `toolsel mcp`: a fresh process each run, timed from
spawn to the first answer.

    python benchmarks/cold_start.py                # 5 runs of each, bundled registry
    python benchmarks/cold_start.py --runs 10 --embed

Rows:
  serve /healthz    `toolsel serve --port P --db sqlite:///TMP` (bundled registry), from
                    spawn to the first `GET /healthz` answered 200          (< 1.5 s)
  mcp initialize    `toolsel mcp` (stdio), from spawn to the reply to `initialize` (< 1.5 s)

"Cold" is a new process with an empty toolsel cache (`TOOLSEL_CACHE_DIR` in a new
temporary folder, so the registry index is built), and no warm-up run before it; the
operating system's page cache cannot be dropped without root, so files already read by an
earlier run may be in memory (the first run of a series is the closest to a reboot). Run it
on a quiet machine: on a loaded one, every figure grows with the load (the load average is
printed with the figures).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYTHON = sys.executable
ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 1.5


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def healthz(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as probe:
            probe.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            return probe.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def environment(folder: Path) -> dict[str, str]:
    """This checkout's toolsel (or --root's; not an installed one), with a cache of its own."""
    return {**os.environ, "PYTHONPATH": str(ROOT), "TOOLSEL_CACHE_DIR": str(folder / "cache")}


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used so far (user + system, all its threads): on a busy
    machine, what it cost, where wall time also counts the waiting for a core."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def serve_once(folder: Path, extra: list[str]) -> tuple[float, float]:
    """Seconds from spawn to the first 200 from /healthz, and the CPU seconds used by then."""
    port = free_port()
    command = [PYTHON, "-m", "toolsel", "serve", "--port", str(port),
               "--db", f"sqlite:///{folder / 'usage.sqlite3'}", *extra]  # fmt: skip
    env = environment(folder)
    start = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=folder
    )
    try:
        while not healthz(port):
            if process.poll() is not None:
                raise SystemExit(f"serve exited: {process.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            if time.perf_counter() - start > 60:
                raise SystemExit("serve did not answer /healthz within 60 s")
            time.sleep(0.005)
        return time.perf_counter() - start, cpu_seconds(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=20)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "cold-start", "version": "0"},
    },
}


def mcp_once(folder: Path, extra: list[str]) -> tuple[float, float]:
    """Seconds from spawn to the reply to `initialize` on stdout, and the CPU seconds."""
    env = environment(folder)
    start = time.perf_counter()
    process = subprocess.Popen(
        [PYTHON, "-m", "toolsel", "mcp", *extra],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=folder,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
        process.stdin.flush()
        line = process.stdout.readline()
        elapsed = time.perf_counter() - start
        cpu = cpu_seconds(process.pid)
        reply = json.loads(line)
        if reply.get("id") != 1 or "result" not in reply:
            raise SystemExit(f"unexpected reply to initialize: {line[:300]!r}")
        return elapsed, cpu
    finally:
        process.stdin.close()
        process.terminate()
        process.wait(timeout=20)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--embed", action="store_true", help="serve with --embed (the default)")
    parser.add_argument("--root", type=Path, help="the toolsel checkout to time (default: this)")
    args = parser.parse_args()
    if args.root is not None:
        global ROOT
        ROOT = args.root.resolve()
    serve_extra = [] if args.embed else ["--no-embed"]
    rows: dict[str, list[tuple[float, float]]] = {"serve /healthz": [], "mcp initialize": []}
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as tmp:
            rows["serve /healthz"].append(serve_once(Path(tmp), serve_extra))
        with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as tmp:
            rows["mcp initialize"].append(mcp_once(Path(tmp), []))
    print(
        f"{ROOT}: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs, {args.runs} runs"
    )
    failed = False
    for name, runs in rows.items():
        walls = [wall for wall, _ in runs]
        cpus = [cpu for _, cpu in runs]
        ok = statistics.median(walls) < TARGET_S
        failed |= not ok
        print(
            f"{name:16} wall: first {walls[0]:.2f} s, median {statistics.median(walls):.2f} s, "
            f"max {max(walls):.2f} s; CPU median {statistics.median(cpus):.2f} s  "
            f"{'ok' if ok else f'over {TARGET_S} s'}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
