"""`toolsel rank` speed, as whole processes, against a floor measured in the same run.

    python benchmarks/rank_bench.py --runs 7

  floor       benchmarks/floor_app.py: bare Typer + Rich printing a table
  bundled     `toolsel rank "..."` on the bundled registry (index cached)
  10k cached  `toolsel rank -r registry-10000.yaml "..."` (index cached)
  batch       1,000 queries over 10k tools with `rank_index`, after loading the index
  examples    with ../shared/bench present: `toolsel learn --cases` on MetaTool's 14,715
              dev cases (the overlay goes to a scratch folder), then `toolsel rank` over its
              199 tools with those examples (index cached), and a 1,000-query batch

    python benchmarks/rank_bench.py --qps [--methods cc fuzzy bm25]

`--qps` measures instead how many queries per second (of CPU time) each method answers
inside one process (index loaded and prepared, `rank_index` with default options, output not
rendered): on the three public benches in ../shared/bench with their own dev queries, and
on generated registries of 1,800, 3,600 and 10,000 tools with queries of 6 words drawn
from the tools' descriptions. Target (issue 22): `cc` and `fuzzy` within 3x of `bm25`.

Targets (issue 3): bundled <= 2x floor; 10k cached <= 2.5x floor; batch < 2 s.
Targets (issue 11): learn --cases on 14k cases < 10 s; rank with 14k examples over 200 tools,
cached, <= 2.5x floor; --batch of 1,000 with examples < 2 s after load.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
QUERY = "deploy the billing service to production"


def timed(args: list[str], env: dict[str, str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(
            args,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            check=True,
            cwd=ROOT,
        )
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def batch_seconds(path: Path | list[Path], count: int) -> tuple[float, float]:
    from toolsel.ranking import load_index, rank_index
    from toolsel.ranking.core import RankOptions
    from toolsel.render.console import dumps_line
    from toolsel.render.rank import rank_line

    started = time.perf_counter()
    index = load_index(path, bulk=True)
    loaded = time.perf_counter() - started
    words = [w for t in index.tools[:2000] for w in t.description.lower().split()[:12]]
    rng = random.Random(5)
    queries = [" ".join(rng.sample(words, 6)) for _ in range(count)]
    started = time.perf_counter()
    for query in queries:
        dumps_line(rank_line(rank_index(index, query, RankOptions())))
    return loaded, time.perf_counter() - started


def generated(count: int) -> Path:
    """benchmarks/data/registry-<count>.yaml, generated once."""
    path = HERE / "data" / f"registry-{count}.yaml"
    if not path.exists():
        subprocess.run(
            [sys.executable, str(HERE / "gen_registry.py"), str(count), "-o", str(path)],
            check=True,
        )
    return path


def description_queries(index: Any, count: int) -> list[str]:
    words = [w for t in index.tools[:2000] for w in t.description.lower().split()[:12]]
    rng = random.Random(5)
    return [" ".join(rng.sample(words, 6)) for _ in range(count)]


def bench_queries(name: str, count: int) -> list[str]:
    import json

    path = ROOT.parent / "shared" / "bench" / name / "queries.dev.jsonl"
    with path.open(encoding="utf-8") as lines:
        queries = [json.loads(line)["query"] for line in lines if line.strip()]
    return random.Random(5).sample(queries, min(count, len(queries)))


def queries_per_second(index: Any, queries: list[str], method: str, seconds: float) -> float:
    """Queries ranked per second of this process's CPU time with `method`, over at least
    `seconds` (or every query): CPU time, not wall time, so that other processes on a
    shared machine do not count."""
    from toolsel.ranking import rank_index
    from toolsel.ranking.core import rank_options

    options = rank_options(method)
    rank_index(index, queries[0], options)  # prepare what the method derives once
    done = 0
    started = time.process_time()
    for query in queries:
        rank_index(index, query, options)
        done += 1
        if time.process_time() - started >= seconds:
            break
    return done / (time.process_time() - started)


def main_qps(methods: list[str], seconds: float) -> None:
    from toolsel.ranking import load_index

    print("| registry | tools | " + " | ".join(f"{m} (q/s)" for m in methods) + " |")
    print("|---|---:|" + "---:|" * len(methods))
    sets: list[tuple[str, Path, str | None]] = []
    bench = ROOT.parent / "shared" / "bench"
    for name in ("metatool", "toollens", "livemcpbench"):
        if (bench / name).is_dir():
            sets.append((name, bench / name / "registry.yaml", name))
    for count in (1800, 3600, 10000):
        sets.append((f"generated {count:,}", generated(count), None))
    for label, path, name in sets:
        index = load_index(path, bulk=True)
        queries = bench_queries(name, 2000) if name else description_queries(index, 2000)
        # rounds, each method in turn, and the median: other load on the machine then
        # weighs on every method alike
        rounds = [[queries_per_second(index, queries, m, seconds) for m in methods]
                  for _ in range(3)]  # fmt: skip
        rates = [statistics.median(column) for column in zip(*rounds, strict=True)]
        print(f"| {label} | {len(index):,} | " + " | ".join(f"{r:,.0f}" for r in rates) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--qps", action="store_true", help="queries per second per method")
    parser.add_argument("--methods", nargs="+", default=["bm25", "hybrid", "cc", "fuzzy"])
    parser.add_argument(
        "--seconds", type=float, default=1.0, help="--qps: time per method and round"
    )
    args = parser.parse_args()
    if args.qps:
        main_qps(args.methods, args.seconds)
        return
    env = {**os.environ, "TOOLSEL_CACHE_DIR": tempfile.mkdtemp(prefix="toolsel-rank-bench-")}
    # measure what users get: a normal install has bytecode, even where the environment
    # forbids writing it (PYTHONDONTWRITEBYTECODE makes an editable install recompile)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "toolsel")],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    big = generated(10000)
    toolsel = str(Path(sys.executable).with_name("toolsel"))
    floor = timed([sys.executable, str(HERE / "floor_app.py"), QUERY], env, args.runs)
    timed([toolsel, "rank", QUERY], env, 1)  # warm the index cache
    bundled = timed([toolsel, "rank", QUERY], env, args.runs)
    timed([toolsel, "rank", "-r", str(big), QUERY], env, 1)
    cached = timed([toolsel, "rank", "-r", str(big), QUERY], env, args.runs)
    os.environ["TOOLSEL_CACHE_DIR"] = env["TOOLSEL_CACHE_DIR"]
    loaded, batch = batch_seconds(big, 1000)
    print("| measurement | seconds | vs floor | target |")
    print("|---|---:|---:|---|")
    print(f"| floor: bare Typer + Rich table | {floor:.3f} | 1.00x | |")
    print(
        f"| `toolsel rank` on the bundled registry | {bundled:.3f} | {bundled / floor:.2f}x | <= 2x |"
    )
    print(
        f"| `toolsel rank` on 10k tools, index cached | {cached:.3f} | {cached / floor:.2f}x | <= 2.5x |"
    )
    print(
        f"| `--batch`: 1,000 queries over 10k tools, after loading ({loaded:.2f} s) | {batch:.3f} | | < 2 s |"
    )
    bench = ROOT.parent / "shared" / "bench" / "metatool"
    if not bench.is_dir():
        print("(../shared/bench not found: the examples rows are skipped)")
        return
    scratch = Path(tempfile.mkdtemp(prefix="toolsel-rank-bench-"))
    overlay = scratch / "examples.yaml"
    cases = str(bench / "queries.dev.jsonl")
    learn = timed([toolsel, "learn", "--cases", cases, "-o", str(overlay)], env, 1)
    registry = ["-r", str(bench / "registry.yaml"), "-r", str(overlay)]
    timed([toolsel, "rank", *registry, QUERY], env, 1)  # build and cache the index
    examples = timed([toolsel, "rank", *registry, QUERY], env, args.runs)
    loaded, batch = batch_seconds([bench / "registry.yaml", overlay], 1000)
    print(f"| `toolsel learn --cases`: 14,715 MetaTool cases | {learn:.3f} | | < 10 s |")
    print(
        f"| `toolsel rank`, 199 tools + 14k examples, index cached | {examples:.3f} | {examples / floor:.2f}x | <= 2.5x |"
    )
    print(
        f"| `--batch`: 1,000 queries with 14k examples, after loading ({loaded:.2f} s) | {batch:.3f} | | < 2 s |"
    )


if __name__ == "__main__":
    main()
