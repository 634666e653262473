"""`toolsel replay --format html` on a big transcript: report size, generation time and
peak memory beside `--format json`, then the time Chromium takes to open the report, to
draw it, and to turn a page of the timeline.

    python benchmarks/html_bench.py --megabytes 200
    python benchmarks/html_bench.py --megabytes 200 --formats claude-code stream-json

The transcripts are generated as `benchmarks/replay_bench.py` generates them (and shared
with it, under benchmarks/data/). Needs Playwright and Debian's chromium (see .ci/chromium).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from replay_bench import FORMATS, PEAK, generate  # noqa: E402

ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def run(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of one process."""
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", PEAK, *command], capture_output=True, text=True, check=True, env=env
    )
    return time.perf_counter() - started, int(out.stdout.split()[0]) / 1024  # PEAK: "rss cpu"


def open_times(report: Path, runs: int) -> tuple[float, float, float]:
    """Median seconds to the `load` event, to the page drawn (body[data-ready]), and to
    draw the next page of the timeline, in a fresh page each run."""
    from playwright.sync_api import sync_playwright

    loads, drawn, turned = [], [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        for _ in range(runs):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            started = time.perf_counter()
            page.goto(report.as_uri(), wait_until="load", timeout=300_000)
            loads.append(time.perf_counter() - started)
            page.wait_for_selector("body[data-ready]", timeout=300_000)
            drawn.append(time.perf_counter() - started)
            before = time.perf_counter()
            page.click("#timeline-pager button:nth-of-type(2)")
            page.wait_for_selector("#timeline-pager >> text=page 2 of")
            turned.append(time.perf_counter() - before)
            page.close()
        browser.close()
    return statistics.median(loads), statistics.median(drawn), statistics.median(turned)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--formats", nargs="+", choices=list(FORMATS), default=["claude-code"])
    args = parser.parse_args()
    toolsel = str(Path(sys.executable).with_name("toolsel"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    print("| format | input | replay json | replay html | peak RSS html | report size | open (load) | drawn | next page |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for fmt in args.formats:
        path = HERE / "data" / f"transcript-{fmt}-{args.megabytes}mb-v2.jsonl"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            generate(path, fmt, args.megabytes)
        with tempfile.TemporaryDirectory() as folder:
            report = Path(folder) / "report.html"
            json_runs, html_runs = [], []
            for _ in range(args.runs):
                json_runs.append(run([toolsel, "replay", "--no-registry", "-f", "json", "-o", os.devnull, str(path)], env))  # fmt: skip
                report.unlink(missing_ok=True)
                html_runs.append(run([toolsel, "replay", "--no-registry", "-f", "html", "-o", str(report), str(path)], env))  # fmt: skip
            loaded, drawn, turned = open_times(report, args.runs)
            print(
                f"| {fmt} | {path.stat().st_size / 1e6:.0f} MB"
                f" | {statistics.median(s for s, _ in json_runs):.2f} s"
                f" | {statistics.median(s for s, _ in html_runs):.2f} s"
                f" | {max(m for _, m in html_runs):.0f} MB"
                f" | {report.stat().st_size / 1e6:.1f} MB"
                f" | {loaded:.2f} s | {drawn:.2f} s | {turned * 1000:.0f} ms |",
                flush=True,
            )


if __name__ == "__main__":
    main()
