"""Registry loading and lint speed, as whole processes, against floors measured in the same run.

    python benchmarks/registry_bench.py            # 1k and 10k tools
    python benchmarks/registry_bench.py --sizes 1000 10000 50000 --runs 3

Figures (median wall time of --runs fresh processes; peak RSS of lint and its worker):
  floor      PyYAML CSafeLoader `yaml.load` with the GC paused (the cost floor of parsing)
  parse      toolsel.load_registry without the cache (libyaml + positions + validation)
  cached     toolsel.load_registry a second time (per-file load cache hit)
  lint       the whole `toolsel lint --no-cache -f json FILE` process
Targets (issue 2): cached well under 0.3 s for 10k tools; lint at most 3x one parse.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"

# Imports happen before the clock starts: these figures are about loading; start-up cost
# shows in the whole-process figures (lint here, rank in the ranking benchmarks).
TIMED = """
import json, sys, time
{setup}
started = time.perf_counter()
{body}
print(json.dumps({{"seconds": time.perf_counter() - started}}))
"""
FLOOR = (
    "import gc, yaml",
    "gc.disable(); yaml.load(open(sys.argv[1]).read(), Loader=yaml.CSafeLoader)",
)
LOAD_SETUP = "from toolsel import load_registry; import toolsel.registry.loader"
PARSE = (LOAD_SETUP, "load_registry(sys.argv[1], use_cache=False, strict=False)")
CACHED = (LOAD_SETUP, "load_registry(sys.argv[1], use_cache=True, strict=False)")


def registry_file(size: int) -> Path:
    path = DATA / f"registry-{size}.yaml"
    if not path.exists():
        subprocess.run(
            [sys.executable, str(HERE / "gen_registry.py"), str(size), "-o", str(path)], check=True
        )
    return path


def in_process(code: tuple[str, str], path: Path, env: dict[str, str]) -> float:
    script = TIMED.format(setup=code[0], body=code[1])
    out = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1])["seconds"])


# A fresh parent per measurement, so RUSAGE_CHILDREN covers exactly this command and the
# worker processes it waits for (the TS209 worker), nothing measured before it.
PEAK = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def whole_process(args: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Run from a folder with no pyproject.toml: toolsel's own [tool.toolsel.lint] (which
    opts into TS701 to dogfood it) must not change what a user's default lint costs."""
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", PEAK, *args],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=tempfile.gettempdir(),
    )
    return time.perf_counter() - started, int(out.stdout.strip())


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def bench(size: int, runs: int) -> dict[str, float]:
    path = registry_file(size)
    cache_dir = tempfile.mkdtemp(prefix="toolsel-bench-cache-")
    env = {**os.environ, "TOOLSEL_CACHE_DIR": cache_dir}
    toolsel = str(Path(sys.executable).with_name("toolsel"))
    floor = median([in_process(FLOOR, path, env) for _ in range(runs)])
    parse = median([in_process(PARSE, path, env) for _ in range(runs)])
    in_process(CACHED, path, env)  # fill the cache
    cached = median([in_process(CACHED, path, env) for _ in range(runs)])
    lint_runs = [
        whole_process([toolsel, "lint", "--no-cache", "-f", "json", str(path.resolve())], env)
        for _ in range(runs)
    ]
    lint = median([seconds for seconds, _ in lint_runs])
    return {
        "tools": size,
        "megabytes": path.stat().st_size / 1e6,
        "floor": floor,
        "parse": parse,
        "cached": cached,
        "lint": lint,
        "lint_vs_parse": lint / parse,
        "peak_rss_mb": max(rss for _, rss in lint_runs) / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(
        "| tools | MB | floor (s) | parse (s) | cached (s) | lint (s) | lint / parse | peak RSS (MB) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size in args.sizes:
        r = bench(size, args.runs)
        print(
            f"| {r['tools']:,} | {r['megabytes']:.1f} | {r['floor']:.2f} | {r['parse']:.2f} | {r['cached']:.3f} "
            f"| {r['lint']:.2f} | {r['lint_vs_parse']:.2f}x | {r['peak_rss_mb']:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
