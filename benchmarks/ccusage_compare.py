"""`toolsel stats` against ccusage (the most used usage analyser of Claude Code sessions) and
a `json.loads` loop, on the same generated archive, in turns.

    npm install --prefix /some/dir ccusage@18
    python benchmarks/ccusage_compare.py --ccusage /some/dir/node_modules/.bin/ccusage

Each run is a whole process: ccusage `daily --json --offline` reads the archive as its
`projects/` folder (CLAUDE_CONFIG_DIR), `toolsel stats --format json` reads it directly,
and the floor only runs `json.loads` on every line (`archive_bench.FLOOR`). Medians of wall
seconds and the largest peak RSS of --runs turns; the load average before each turn is
printed, since the machine may be shared. Without ccusage (no --ccusage, none on PATH), its
row says so and the other two are still measured.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from archive_bench import FLOOR, archive  # noqa: E402


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one whole process."""
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    assert process.stderr is not None
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{command[0]} failed: {process.stderr.read().decode()[-500:]}")
    return wall, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=5000, help="sessions in the archive")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--result-chars", type=int, default=800, help="longest result text")
    parser.add_argument("--ccusage", help="the ccusage executable (default: on PATH)")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "toolsel-bench")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    source = archive(args.dir, args.files, args.result_chars)
    config = args.dir / f"ccusage-config-{source.name}"
    config.mkdir(exist_ok=True)
    projects = config / "projects"
    if not projects.exists():
        projects.symlink_to(source.resolve(), target_is_directory=True)
    ccusage = args.ccusage or shutil.which("ccusage")
    commands: dict[str, tuple[list[str], dict[str, str] | None]] = {
        "json.loads loop": ([sys.executable, "-c", FLOOR, str(source)], None),
        "toolsel stats": (["toolsel", "stats", str(source), "--format", "json"], None),
    }
    if ccusage:
        env = {**os.environ, "CLAUDE_CONFIG_DIR": str(config)}
        commands["ccusage daily"] = ([ccusage, "daily", "--json", "--offline"], env)
    measured: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    loads = []
    for _ in range(args.runs):
        loads.append(os.getloadavg()[0])
        for name, (command, env) in commands.items():
            measured[name].append(timed(command, env))
    size = sum(p.stat().st_size for p in source.rglob("*.jsonl")) / 1e6
    print(f"{args.files:,} sessions, {size:,.0f} MB; load before each turn: "
          + ", ".join(f"{x:.1f}" for x in loads))  # fmt: skip
    print("| program | wall s (median) | peak RSS |")
    print("|---|---:|---:|")
    for name, runs in measured.items():
        wall = statistics.median(w for w, _ in runs)
        print(f"| {name} | {wall:.2f} | {max(m for _, m in runs):,.0f} MB |")
    if not ccusage:
        print("| ccusage daily | not installed (npm install ccusage@18) | |")


if __name__ == "__main__":
    main()
