"""Registry loading and lint speed, as whole processes, against floors measured in the same run.

    python benchmarks/registry_bench.py            # 1k and 10k tools
    python benchmarks/registry_bench.py --sizes 1000 10000 50000 --runs 3

Figures (median wall time of --runs fresh processes; peak RSS of the slowest):
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
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"

TIMED = """
import json, sys, time
started = time.perf_counter()
{body}
print(json.dumps({{"seconds": time.perf_counter() - started}}))
"""
FLOOR = (
    "import gc, yaml; gc.disable(); yaml.load(open(sys.argv[1]).read(), Loader=yaml.CSafeLoader)"
)
LOAD = (
    "from toolsel import load_registry; load_registry(sys.argv[1], use_cache={cache}, strict=False)"
)


def registry_file(size: int) -> Path:
    path = DATA / f"registry-{size}.yaml"
    if not path.exists():
        subprocess.run(
            [sys.executable, str(HERE / "gen_registry.py"), str(size), "-o", str(path)], check=True
        )
    return path


def in_process(body: str, path: Path, env: dict[str, str]) -> tuple[float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    out = subprocess.run(
        [sys.executable, "-c", TIMED.format(body=body), str(path)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return json.loads(out.stdout.strip().splitlines()[-1])["seconds"], max(rss, before)


def whole_process(args: list[str], env: dict[str, str]) -> tuple[float, int]:
    started = time.perf_counter()
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    return time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def bench(size: int, runs: int) -> dict[str, float]:
    path = registry_file(size)
    cache_dir = tempfile.mkdtemp(prefix="toolsel-bench-cache-")
    env = {**os.environ, "TOOLSEL_CACHE_DIR": cache_dir}
    toolsel = str(Path(sys.executable).with_name("toolsel"))
    floor = median([in_process(FLOOR, path, env)[0] for _ in range(runs)])
    parse = median([in_process(LOAD.format(cache=False), path, env)[0] for _ in range(runs)])
    in_process(LOAD.format(cache=True), path, env)  # fill the cache
    cached = median([in_process(LOAD.format(cache=True), path, env)[0] for _ in range(runs)])
    lint_runs = [
        whole_process([toolsel, "lint", "--no-cache", "-f", "json", str(path)], env)
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
