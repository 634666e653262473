"""`replay`, `stats` and `learn` over many-file archives: `--jobs` speed-up and peak memory.

    python benchmarks/archive_bench.py --files 10000 --runs 3            # --jobs 2 vs 1
    python benchmarks/archive_bench.py --files 50000 --runs 1 --memory   # peak RSS
    python benchmarks/archive_bench.py --before ../old-checkout          # paired: old, new
    python benchmarks/archive_bench.py --files 5000 --floor               # against json.loads

Archives come from `benchmarks/gen_archive.py` (Claude Code sessions, 15% resumed, with
sub-agent files), written once under --dir. Each measurement is a whole `toolsel` process
run from an empty directory (no project registry), `--jobs 1` and `--jobs 2` taking turns
so that a shared machine's drifting load hits both; medians of wall seconds, with the CPU
seconds of the process and its workers, and the load average before each run; with
`--before DIR`, the toolsel of another checkout (DIR/toolsel, run as `python -m toolsel`)
takes its turn beside this one's, each row of the two side by side. Peak memory
is the largest sum of the proportional resident sets (PSS) of the process and its workers,
sampled every 20 ms, beside the kernel's peak RSS for the main process alone (`ru_maxrss`).
With `--floor`, a whole Python process that only runs `json.loads` on every line of every
file (the floor issue 35 holds `stats` and `replay` to) takes its turn too, and each row
says how its wall seconds compare with the floor's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMANDS = {
    "replay": ["replay", "{dir}", "--format", "json", "-o", os.devnull, "--fail-on", "none"],
    "stats": ["stats", "{dir}", "--format", "json", "-o", os.devnull],
    "learn": ["learn", "--transcripts", "{dir}", "-o", "{out}"],
}
#: The floor: every line of every transcript through `json.loads`, in one process.
FLOOR = """
import json, sys
from pathlib import Path
for path in sorted(Path(sys.argv[1]).rglob("*.jsonl")):
    with open(path, "rb") as f:
        for line in f:
            if line.strip():
                json.loads(line)
"""


def archive(directory: Path, files: int, result_chars: int = 800) -> Path:
    """The archive of `files` sessions under `directory`, generated once."""
    out = directory / (f"archive-{files}" + (f"-r{result_chars}" if result_chars != 800 else ""))
    if not (out / ".done").exists():
        subprocess.run(
            [sys.executable, str(HERE / "gen_archive.py"), str(files), str(out),
             "--result-chars", str(result_chars)],
            check=True,
        )  # fmt: skip
        (out / ".done").write_text("")
    return out


def _tree_rss(root: int) -> int:
    """Proportional resident kB (PSS: pages shared after a fork are split between the
    processes that share them, not counted in each) of a process and its children (one
    level: the pool's workers)."""
    total = 0
    pids = [root]
    try:
        children = Path(f"/proc/{root}/task/{root}/children").read_text().split()
        pids += [int(p) for p in children]
    except OSError:
        pass
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total


def _own_cpu(pid: int) -> float:
    """CPU seconds of a process itself, not of its children (the last sample before it
    ends: a little short)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(command: list[str], checkout: Path | None = None) -> dict[str, float]:
    """One whole process: wall and CPU seconds, peak RSS (the tree's, and its own); the
    toolsel of `checkout` when given."""
    program, env = ["toolsel"], None
    if command[0] == "--floor":
        program, command = [sys.executable, "-c", FLOOR], command[1:]
    elif checkout is not None:
        program = [sys.executable, "-m", "toolsel"]
        env = {**os.environ, "PYTHONPATH": str(checkout.resolve())}
    with tempfile.TemporaryDirectory() as cwd:
        load = os.getloadavg()[0]
        started = time.perf_counter()
        process = subprocess.Popen(
            [*program, *command],
            cwd=cwd,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        peak = [0]
        own_cpu = [0.0]
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], _tree_rss(process.pid))
                own_cpu[0] = max(own_cpu[0], _own_cpu(process.pid))
                done.wait(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        done.set()
        sampler.join()
        assert process.stderr is not None
        error = process.stderr.read().decode()
        if os.waitstatus_to_exitcode(status) not in (0, 1):
            raise SystemExit(f"toolsel {' '.join(command)} failed: {error}")
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "tree_mb": peak[0] / 1024,
        "own_mb": usage.ru_maxrss / 1024,
        "own_cpu": own_cpu[0],
        "load": load,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000, help="sessions in the archive")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--commands", nargs="+", default=["replay", "stats", "learn"])
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "toolsel-bench")
    parser.add_argument("--before", type=Path, help="another checkout, measured in turns")
    parser.add_argument("--memory", action="store_true", help="report peak RSS, not speed-up")
    parser.add_argument("--floor", action="store_true", help="time a json.loads loop in turns")
    parser.add_argument("--result-chars", type=int, default=800, help="longest result text")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    source = archive(args.dir, args.files, args.result_chars)
    count = sum(1 for _ in source.rglob("*.jsonl"))
    size = sum(p.stat().st_size for p in source.rglob("*.jsonl")) / 1e6
    print(f"{count:,} files ({args.files:,} sessions), {size:,.0f} MB; {os.cpu_count()} CPUs")
    print("| command | code | --jobs | wall s (median) | CPU s, all (main) | peak PSS, all processes | peak RSS, main process | load before |")  # fmt: skip
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    checkouts = {"this": None} if args.before is None else {"before": args.before, "this": None}
    floor: list[dict[str, float]] = []
    for name in args.commands:
        results: dict[tuple[str, int], list[dict[str, float]]] = {}
        for _ in range(args.runs):
            if args.floor:
                floor.append(run(["--floor", str(source)]))
            for jobs in args.jobs:
                for code, checkout in checkouts.items():
                    out = args.dir / "learned.yaml"
                    out.unlink(missing_ok=True)
                    command = [part.format(dir=source, out=out) for part in COMMANDS[name]]
                    measured = run([*command, "--jobs", str(jobs)], checkout)
                    results.setdefault((code, jobs), []).append(measured)
        for (code, jobs), runs in results.items():
            _row(name, code, jobs, runs, results[next(iter(checkouts)), args.jobs[0]], floor)
    if floor:
        wall = statistics.median(r["wall"] for r in floor)
        cpu = statistics.median(r["cpu"] for r in floor)
        print(f"| json.loads loop | | 1 | {wall:.2f} | {cpu:.1f} | | | |")


def _row(
    name: str,
    code: str,
    jobs: int,
    runs: list[dict[str, float]],
    base: list[dict[str, float]],
    floor: list[dict[str, float]],
) -> None:
    """A command's medians, its speed-up over the first code's first --jobs, and its wall
    seconds over the json.loads floor's (when measured)."""
    wall = statistics.median(r["wall"] for r in runs)
    first = statistics.median(r["wall"] for r in base)
    speed = f" ({first / wall:.2f}x)" if runs is not base else ""
    if floor:
        speed += f", {wall / statistics.median(r['wall'] for r in floor):.2f}x floor"
    cpu = statistics.median(r["cpu"] for r in runs)
    own = statistics.median(r["own_cpu"] for r in runs)
    tree = max(r["tree_mb"] for r in runs)
    own_mb = max(r["own_mb"] for r in runs)
    loads = ", ".join(f"{r['load']:.1f}" for r in runs)
    print(
        f"| {name} | {code} | {jobs} | {wall:.2f}{speed} | {cpu:.1f} ({own:.1f}) | {tree:.0f} MB "
        f"| {own_mb:.0f} MB | {loads} |"
    )


if __name__ == "__main__":
    main()
