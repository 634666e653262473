"""Calibrate "No strong match" (STRONG_MATCH in toolsel/ranking/strength.py) on eval sets.

    python benchmarks/strong_match.py                    # hybrid, every set, thresholds 0.05..0.95
    python benchmarks/strong_match.py --methods hybrid bm25 --thresholds 0.3 0.5

The flag is shown when the best tool's strength is below the threshold. For each threshold
and set it prints, over the queries `rank` answers as the CLI does (default options):
- shown: the share of queries that get the flag;
- precision: of the flagged queries, the share whose top tool is wrong (not expected);
- recall: of the queries whose top tool is wrong, the share flagged;
- right when not shown: of the unflagged queries, the share whose top tool is right;
- agrees: the share of all queries where the flag tells the truth (shown and the top tool
  wrong, or not shown and it right).
A threshold means what the flag says when precision and "right when not shown" are both
above 50 %: flagged answers are wrong more often than not, unflagged ones right.

Sets: the three public benchmarks' dev splits in ../shared/bench (never copied here) and
the project's own eval sets against the bundled registries.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from toolsel.evaluate import read_cases
from toolsel.ranking import load_index, rank_index
from toolsel.ranking.core import rank_options

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT.parent / "shared" / "bench"
#: (label, registry, cases)
SETS = (
    ("metatool", BENCH / "metatool" / "registry.yaml", BENCH / "metatool" / "queries.dev.jsonl"),
    ("toollens", BENCH / "toollens" / "registry.yaml", BENCH / "toollens" / "queries.dev.jsonl"),
    ("livemcpbench", BENCH / "livemcpbench" / "registry.yaml", BENCH / "livemcpbench" / "queries.dev.jsonl"),
    ("registries", ROOT / "registries", ROOT / "tests" / "selection" / "registries.eval.jsonl"),
    ("conversational", ROOT / "registries", ROOT / "tests" / "selection" / "conversational.eval.jsonl"),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Answer:
    strength: float  # the best tool's
    right: bool  # the best tool is an expected one


def answers(registry: Path, cases_path: Path, method: str) -> Iterator[Answer]:
    cases, _bad = read_cases(cases_path)
    index = load_index(registry, bulk=True)
    options = rank_options(method)
    for case in cases:
        result = rank_index(index, case.query, options)
        if result.results:
            best = result.results[0]
            yield Answer(best.strength, best.name in case.expected)
        else:
            yield Answer(0.0, False)


def measure(found: list[Answer], threshold: float) -> tuple[float, float, float, float, float]:
    """(shown, precision, recall, right when not shown, agrees), as fractions."""
    flagged = [a for a in found if a.strength < threshold]
    unflagged = [a for a in found if a.strength >= threshold]
    wrong = sum(not a.right for a in found)
    flagged_wrong = sum(not a.right for a in flagged)
    return (
        len(flagged) / len(found),
        flagged_wrong / len(flagged) if flagged else float("nan"),
        flagged_wrong / wrong if wrong else float("nan"),
        sum(a.right for a in unflagged) / len(unflagged) if unflagged else float("nan"),
        (flagged_wrong + sum(a.right for a in unflagged)) / len(found),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", nargs="+", default=["hybrid"])
    parser.add_argument(
        "--thresholds", type=float, nargs="+", default=[i / 20 for i in range(1, 20)]
    )
    parser.add_argument("--sets", nargs="+", default=[label for label, _, _ in SETS])
    args = parser.parse_args()
    print("| method | set | queries | top right | threshold | shown | precision | recall | right when not shown | agrees |")  # fmt: skip
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for method in args.methods:
        pooled: list[Answer] = []
        for label, registry, cases in SETS:
            if label not in args.sets:
                continue
            if not cases.exists():
                print(f"{cases} not found: skipped", file=sys.stderr)
                continue
            found = list(answers(registry, cases, method))
            pooled += found
            _rows(method, label, found, args.thresholds)
        if pooled:
            _rows(method, "all (pooled)", pooled, args.thresholds)
    return 0


def _rows(method: str, label: str, found: list[Answer], thresholds: list[float]) -> None:
    right = sum(a.right for a in found) / len(found)
    for threshold in thresholds:
        shown, precision, recall, npv, agrees = measure(found, threshold)
        print(
            f"| {method} | {label} | {len(found)} | {100 * right:.1f} | {threshold:.2f} "
            f"| {100 * shown:.1f} | {100 * precision:.1f} | {100 * recall:.1f} | {100 * npv:.1f} "
            f"| {100 * agrees:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main())
