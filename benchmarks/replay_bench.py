"""`toolsel replay` speed and memory on a generated transcript, against floors in the same run.

    python benchmarks/replay_bench.py --megabytes 200
    python benchmarks/replay_bench.py --megabytes 1000 --runs 1

  floor json   for line in f: json.loads(line)
  floor orjson for line in f: orjson.loads(line)
  replay       the whole `toolsel replay --format json FILE` process, and its peak RSS
Targets (issue 4): replay within 1.3x the json.loads floor; peak RSS under 150 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FLOOR = """
import sys, time, {module}
started = time.perf_counter()
with open(sys.argv[1], "rb") as f:
    for line in f:
        {module}.loads(line)
print(time.perf_counter() - started)
"""
PEAK = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def generate(path: Path, megabytes: int) -> None:
    """Claude Code-shaped lines: streamed assistant calls, user results, some padding text."""
    rng = random.Random(3)
    tools = ["Read", "Bash", "Grep", "Edit", "Glob", "Write"]
    target = megabytes * 1024 * 1024
    written = 0
    n = 0
    with path.open("w") as out:
        while written < target:
            n += 1
            call_id = f"toolu_{n:024d}"
            call = {"type": "assistant", "uuid": f"a{n}", "sessionId": "s", "timestamp": "2026-01-01T00:00:00.000Z",
                    "message": {"id": f"msg_{n}", "role": "assistant", "content": [{"type": "tool_use", "id": call_id, "name": rng.choice(tools), "input": {"path": f"/src/file_{n}.py"}}]}}  # fmt: skip
            result = {"type": "user", "uuid": f"u{n}", "sessionId": "s", "timestamp": "2026-01-01T00:00:01.000Z",
                      "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": "x" * rng.randint(200, 2000)}]}}  # fmt: skip
            for record in (call, result):
                line = json.dumps(record) + "\n"
                out.write(line)
                written += len(line)


def floor(module: str, path: Path, runs: int) -> float:
    """Median seconds of a bare `for line in f: module.loads(line)` pass, in a fresh process."""
    script = [sys.executable, "-c", FLOOR.format(module=module), str(path)]
    return statistics.median(
        float(subprocess.run(script, capture_output=True, text=True, check=True).stdout)
        for _ in range(runs)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    path = HERE / "data" / f"transcript-{args.megabytes}mb.jsonl"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        generate(path, args.megabytes)
    toolsel = str(Path(sys.executable).with_name("toolsel"))
    # measure what users get: a normal install has bytecode, even where the environment
    # forbids writing it (PYTHONDONTWRITEBYTECODE makes an editable install recompile)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(HERE.parent / "toolsel")],
        env=env, check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    # floors and toolsel take turns, so drifting load on a shared machine hits all three alike
    json_runs: list[float] = []
    orjson_runs: list[float] = []
    runs = []
    for _ in range(args.runs):
        json_runs.append(floor("json", path, 1))
        orjson_runs.append(floor("orjson", path, 1))
        started = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", PEAK, toolsel, "replay", "--format", "json", str(path)],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        runs.append((time.perf_counter() - started, int(out.stdout.strip()) / 1024))
    floor_json = statistics.median(json_runs)
    floor_orjson = statistics.median(orjson_runs)
    replay = statistics.median(seconds for seconds, _ in runs)
    peak = max(rss for _, rss in runs)
    size = path.stat().st_size / 1e6
    print("| input | json.loads floor | orjson floor | toolsel replay | vs json floor | peak RSS |")
    print("|---|---:|---:|---:|---:|---:|")
    print(
        f"| {size:.0f} MB | {floor_json:.2f} s | {floor_orjson:.2f} s | {replay:.2f} s | {replay / floor_json:.2f}x | {peak:.0f} MB |"
    )


if __name__ == "__main__":
    main()
