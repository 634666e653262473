"""Selection quality on the public tool-retrieval benchmarks in ../shared/bench.

    python benchmarks/quality.py                      # every method, all three dev splits
    python benchmarks/quality.py --sample 3000 --methods hybrid bm25
    python benchmarks/quality.py --learn --methods hybrid bm25 tfidf  # ranking that learns

`--learn` measures learning honestly: each dev split is cut 80/20 by a stable hash of the
query id (sha256 of "toolsel-split:" + id); examples are learned (`toolsel.learn`, as
`toolsel learn --cases` does) from the 80% only, and every method is measured on the 20%,
without examples and with them at --max-per-tool 1, 3 and unlimited.

`--learn --folds K` cross-validates instead: the dev split is cut into K folds by the same
hash, and each fold is measured with examples learned from the other K - 1, so every query
is measured once and examples come from (K - 1) / K of the split. The targets are stated
for examples learned from the whole dev split; K = 10 and 20 come closest to that, and
show how quality still grows with the number of examples.

`--learn --distractors N` adds N generated tools (benchmarks/gen_registry.py, no examples)
to each benchmark's registry: learning on a large registry where only some tools have
examples (issue 22: 3,400 make MetaTool's 199 tools a 3.6k-tool registry).

Reads ../shared/bench/<name>/registry.yaml and queries.dev.jsonl (never copied into this
repository), ranks each query with every method, and prints NDCG@10, MRR@10 and Recall@k
as percentages, next to the baselines the benchmark maintainers measured (SOURCE.md).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolsel.evaluate import evaluate, read_cases
from toolsel.ranking import load_index
from toolsel.ranking.options import EMBEDDING_METHODS, Method
from toolsel.ranking.prepared import PreparedIndex

BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench"
BENCHMARKS = ("metatool", "toollens", "livemcpbench")
# dev-split NDCG@10 baselines from each SOURCE.md ("full" doc view)
BASELINES = {
    "metatool": {"tfidf": 50.2, "bm25": 49.0},
    "toollens": {"tfidf": 36.1, "bm25": 36.0},
    "livemcpbench": {"tfidf": 36.9, "bm25": 36.9},
}


def _prepare_embeddings(name: str, index: PreparedIndex, queries: list[str]) -> dict[str, Any]:
    """Tool vectors from the toolsel cache; query vectors from benchmarks/data (shared with
    embed_tune.py), so a rerun embeds nothing."""
    from embed_tune import query_vectors

    index.tool_vectors()
    index.example_vectors()
    return query_vectors(name, queries)


def split(cases: list[Any]) -> tuple[list[Any], list[Any]]:
    """(learn from, measure on): 80/20 by a stable hash of the query id."""
    import hashlib

    learn: list[Any] = []
    measure: list[Any] = []
    for case in cases:
        digest = hashlib.sha256(f"toolsel-split:{case.id}".encode()).hexdigest()
        (measure if int(digest[:8], 16) % 100 < 20 else learn).append(case)
    return learn, measure


def fold_of(case: Any, folds: int) -> int:
    """The case's fold of `folds`, by the same stable hash as `split`."""
    import hashlib

    digest = hashlib.sha256(f"toolsel-split:{case.id}".encode()).hexdigest()
    return int(digest[:8], 16) % folds


def learned_overlay(cases: list[Any], max_per_tool: int, folder: Path) -> Path:
    from toolsel.learn import Example, learn, overlay_text

    examples = [Example(tool, c.query, c.id) for c in cases for tool in c.expected]
    learned = learn(examples, max_per_tool=max_per_tool)
    path = folder / f"overlay-{max_per_tool}.yaml"
    path.write_text(overlay_text(learned), encoding="utf-8")
    return path


def distractors(count: int) -> Path:
    """benchmarks/data/registry-<count>.yaml: `count` generated tools, made once."""
    import subprocess

    path = Path(__file__).resolve().parent / "data" / f"registry-{count}.yaml"
    if not path.exists():
        script = Path(__file__).resolve().parent / "gen_registry.py"
        subprocess.run([sys.executable, str(script), str(count), "-o", str(path)], check=True)
    return path


def header(*columns: str) -> None:
    """A Markdown table's header; a column named "#..." holds numbers (right-aligned)."""
    print("| " + " | ".join(c.removeprefix("#") for c in columns) + " |")
    print("|" + "|".join("---:" if c.startswith("#") else "---" for c in columns) + "|")


def measured(
    name: str, index: PreparedIndex, cases: list[Any], methods: list[str]
) -> Iterator[tuple[str, Any]]:
    """(method, its evaluation report) for each method, on `cases`."""
    vectors = {}
    if EMBEDDING_METHODS & {Method(m) for m in methods}:
        vectors = _prepare_embeddings(name, index, [c.query for c in cases])
    for method in methods:
        report = evaluate(index, cases, [Method(method)], (1, 5, 10), query_vectors=vectors)
        yield method, report.methods[0]


def main_learn(args: argparse.Namespace) -> int:
    import tempfile

    header("benchmark", "#measured on", "examples per tool", "method", "#NDCG@10", "#R@1", "#R@5",
           "#learn (s)", "#index (s)", "#index CPU (s)")  # fmt: skip
    for name in args.bench:
        cases, _bad = read_cases(BENCH / name / "queries.dev.jsonl")
        learn_from, measure_on = split(cases)
        registry = BENCH / name / "registry.yaml"
        tools = [registry, *([distractors(args.distractors)] if args.distractors else [])]
        with tempfile.TemporaryDirectory() as tmp:
            settings: list[tuple[str, list[Path], bool]] = [("none", tools, False)]
            for cap in args.max_per_tool:
                settings.append((str(cap or "all"), tools, True))
            for label, paths, with_examples in settings:
                started = time.perf_counter()
                if with_examples:
                    cap = 0 if label == "all" else int(label)
                    paths = [*tools, learned_overlay(learn_from, cap, Path(tmp))]
                learned_at = time.perf_counter()
                cpu = time.process_time()  # this process's CPU: other load does not count
                index = load_index(paths, bulk=True, use_cache=False, examples=with_examples)
                indexed_at = time.perf_counter()
                cpu = time.process_time() - cpu
                for method, report in measured(name, index, measure_on, args.methods):
                    print(
                        f"| {name} | {report.cases} | {label} | {method} | {100 * report.ndcg10:.1f} "
                        f"| {100 * report.recall[1]:.1f} | {100 * report.recall[5]:.1f} "
                        f"| {learned_at - started:.2f} | {indexed_at - learned_at:.2f} "
                        f"| {cpu:.2f} |",
                        flush=True,
                    )
    return 0


def main_folds(args: argparse.Namespace) -> int:
    import tempfile

    header("benchmark", "#folds", "#learned from", "#measured on", "examples per tool", "method",
           "#NDCG@10", "#R@1", "#R@5")  # fmt: skip
    for name in args.bench:
        cases, _bad = read_cases(BENCH / name / "queries.dev.jsonl")
        registry = BENCH / name / "registry.yaml"
        folds = [[c for c in cases if fold_of(c, args.folds) == k] for k in range(args.folds)]
        for cap in args.max_per_tool:
            # per method: (cases, NDCG@10 sum, R@1 sum, R@5 sum), weighted by cases
            totals = {m: [0, 0.0, 0.0, 0.0] for m in args.methods}
            for k, measure_on in enumerate(folds):
                learn_from = [c for j, fold in enumerate(folds) if j != k for c in fold]
                with tempfile.TemporaryDirectory() as tmp:
                    overlay = learned_overlay(learn_from, cap, Path(tmp))
                    index = load_index([registry, overlay], bulk=True, use_cache=False)
                for method, report in measured(name, index, measure_on, args.methods):
                    total = totals[method]
                    total[0] += report.cases
                    total[1] += report.ndcg10 * report.cases
                    total[2] += report.recall[1] * report.cases
                    total[3] += report.recall[5] * report.cases
            share = f"{100 * (args.folds - 1) / args.folds:.0f} %"
            for method, (n, ndcg, r1, r5) in totals.items():
                print(
                    f"| {name} | {args.folds} | {share} | {n} | {cap or 'all'} | {method} "
                    f"| {100 * ndcg / n:.1f} | {100 * r1 / n:.1f} | {100 * r5 / n:.1f} |",
                    flush=True,
                )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", nargs="+", default=list(BENCHMARKS))
    from toolsel.embed.model import missing

    methods = [m.value for m in Method if missing() is None or m not in EMBEDDING_METHODS]
    parser.add_argument("--methods", nargs="+", default=methods)
    parser.add_argument(
        "--sample", type=int, default=0, help="random dev queries per benchmark (0 = all)"
    )
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--learn", action="store_true", help="measure ranking that learns")
    parser.add_argument(
        "--max-per-tool", type=int, nargs="+", default=[1, 3, 0], help="0 = unlimited"
    )
    parser.add_argument(
        "--folds",
        type=int,
        default=0,
        help="with --learn: K-fold cross-validation instead of the 80/20 split",
    )
    parser.add_argument(
        "--distractors",
        type=int,
        default=0,
        help="with --learn: add this many generated tools (without examples) to each registry",
    )
    args = parser.parse_args()
    if args.folds == 1 or args.folds < 0:
        parser.error("--folds needs at least 2 folds")
    if not BENCH.is_dir():
        print(f"{BENCH} not found: the benchmarks live in ../shared/bench", file=sys.stderr)
        return 2
    if args.learn:
        return main_folds(args) if args.folds else main_learn(args)
    print(
        "| benchmark | queries | method | NDCG@10 | MRR@10 | R@1 | R@5 | R@10 | baseline BM25 / TF-IDF NDCG@10 | seconds |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---|---:|")
    for name in args.bench:
        cases, bad = read_cases(BENCH / name / "queries.dev.jsonl")
        if args.sample and args.sample < len(cases):
            cases = random.Random(args.seed).sample(cases, args.sample)
        index = load_index(BENCH / name / "registry.yaml", bulk=True)
        vectors = {}
        if EMBEDDING_METHODS & {Method(m) for m in args.methods}:
            vectors = _prepare_embeddings(name, index, [c.query for c in cases])
        for method in args.methods:
            started = time.perf_counter()
            report = evaluate(
                index, cases, [Method(method)], (1, 5, 10), bad_lines=bad, query_vectors=vectors
            ).methods[0]
            seconds = time.perf_counter() - started
            base = BASELINES[name]
            print(
                f"| {name} | {report.cases} | {method} | {100 * report.ndcg10:.1f} | {100 * report.mrr10:.1f} "
                f"| {100 * report.recall[1]:.1f} | {100 * report.recall[5]:.1f} | {100 * report.recall[10]:.1f} "
                f"| {base['bm25']} / {base['tfidf']} | {seconds:.1f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
