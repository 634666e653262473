"""Cost of the embedding extra (`toolsel[embed]`), as whole processes.

    python benchmarks/embed_bench.py --runs 7            # add --tools 0 to skip the 10k embed

  floor           benchmarks/floor_app.py: bare Typer + Rich printing a table
  fusion cached   `toolsel rank --method fusion` on the bundled registry, vectors cached
  embed 10k       `toolsel rank --method fusion -r registry-10000.yaml`, no vectors cached:
                  embeds every tool; wall time and peak RSS of the process
  10k again       the same command once more: the vectors are cached, nothing is embedded
Targets (issue 5): fusion cached <= 0.6 s; embedding 10k tools < 400 MB peak RSS; a cached
registry never re-embeds (checked here by the vector files and the second run's time).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from rank_bench import HERE, QUERY, ROOT, timed


def run_once(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one child process."""
    script = (
        "import resource, subprocess, sys, time; t = time.perf_counter(); "
        "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
        "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, *args], env=env, check=True, capture_output=True, text=True
    ).stdout.split()
    return float(out[0]), float(out[1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--tools", type=int, default=10000, help="0 skips the large embed")
    args = parser.parse_args()
    cache = tempfile.mkdtemp(prefix="toolsel-embed-bench-")
    env = {**os.environ, "TOOLSEL_CACHE_DIR": cache}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # measure an install with bytecode, as users get
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "toolsel")],
        env=env, check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    toolsel = str(Path(sys.executable).with_name("toolsel"))
    floor = timed([sys.executable, str(HERE / "floor_app.py"), QUERY], env, args.runs)
    timed([toolsel, "rank", "--method", "fusion", QUERY], env, 1)  # embed + cache vectors
    fusion = timed([toolsel, "rank", "--method", "fusion", QUERY], env, args.runs)
    hybrid = timed([toolsel, "rank", QUERY], env, args.runs)
    rows = [
        ("floor: bare Typer + Rich table", floor, ""),
        ("`toolsel rank` (hybrid) on the bundled registry", hybrid, ""),
        (
            "`toolsel rank --method fusion` on the bundled registry, vectors cached",
            fusion,
            "<= 0.6 s",
        ),
    ]
    extra = []
    if args.tools:
        big = HERE / "data" / f"registry-{args.tools}.yaml"
        if not big.exists():
            subprocess.run(
                [sys.executable, str(HERE / "gen_registry.py"), str(args.tools), "-o", str(big)],
                check=True,
            )
        command = [toolsel, "rank", "-r", str(big), "--method", "fusion", QUERY]
        timed([toolsel, "rank", "-r", str(big), QUERY], env, 1)  # the lexical index, cached
        vectors = Path(cache) / "vectors"
        before = sum(1 for _ in vectors.rglob("*.npz"))
        cold, rss = run_once(command, env)
        warm, warm_rss = run_once(command, env)
        after = sum(1 for _ in vectors.rglob("*.npz"))
        rows += [
            (
                f"embed {args.tools:,} tools (first fusion rank), peak RSS {rss:.0f} MB",
                cold,
                "< 400 MB",
            ),
            (f"the same again, vectors cached, peak RSS {warm_rss:.0f} MB", warm, "no re-embed"),
        ]
        extra.append(
            f"vector files: {before} before, {after} after both runs (1 new = embedded once)"
        )
    print("| measurement | seconds | target |")
    print("|---|---:|---|")
    for label, seconds, target in rows:
        print(f"| {label} | {seconds:.3f} | {target} |")
    for line in extra:
        print(f"\n{line}")


if __name__ == "__main__":
    main()
