"""Secret and personal-data detection speed (`toolsel.secrets`), per prompt, in process.

    python benchmarks/secrets_bench.py --runs 5

  ordinary    the dev queries of MetaTool and ToolLens (../shared/bench; 27,833 ordinary
              prompts, almost none with a secret) or, without them, generated prompts:
              `looks_secret` on each (what lint's TS704 and `learn` ask of every prompt)
  redact      `redact` on each, when the module has it (what `learn` does to every prompt)
  leaky       the same prompts, each with an e-mail address and a password appended
              (every one goes past the RE2 prefilter to `re` and is rewritten)

Each figure is the best of --runs passes, in microseconds per prompt.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT.parent / "shared" / "bench"
WORDS = "deploy the billing service to production show me logs for api port 8080 version 4.1.2 on 2024-05-01 call me at 3 fix the failing test in file_12345.py".split()


def prompts() -> list[str]:
    found: list[str] = []
    for name in ("metatool", "toollens"):
        path = BENCH / name / "queries.dev.jsonl"
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                found.append(str(json.loads(line)["query"]))
    if found:
        return found
    rng = random.Random(0)
    return [" ".join(rng.choices(WORDS, k=rng.randint(5, 25))) for _ in range(20_000)]


def best(function: Callable[[str], Any], texts: list[str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        for text in texts:
            function(text)
        samples.append(time.perf_counter() - started)
    return min(samples) / len(texts) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from toolsel import secrets

    texts = prompts()
    leaky = [f"{text} mail jane.doe@example.com, password: hunter22" for text in texts]
    secrets.looks_secret("warm up the prefilter")
    rows = [("`looks_secret`, ordinary prompts", secrets.looks_secret, texts)]
    redact = getattr(secrets, "redact", None)  # not in versions before placeholders
    if redact is not None:
        rows.append(("`redact`, ordinary prompts", redact, texts))
    rows.append(("`looks_secret`, each with an e-mail and a password", secrets.looks_secret, leaky))
    if redact is not None:
        rows.append(("`redact`, each with an e-mail and a password", redact, leaky))
    print(f"{len(texts)} prompts, mean {sum(map(len, texts)) / len(texts):.0f} characters")
    print("| measurement | µs per prompt |")
    print("|---|---:|")
    for label, function, inputs in rows:
        print(f"| {label} | {best(function, inputs, args.runs):.2f} |")


if __name__ == "__main__":
    main()
