"""Selection quality on the public tool-retrieval benchmarks in ../shared/bench.

    python benchmarks/quality.py                      # every method, all three dev splits
    python benchmarks/quality.py --sample 3000 --methods hybrid bm25

Reads ../shared/bench/<name>/registry.yaml and queries.dev.jsonl (never copied into this
repository), ranks each query with every method, and prints NDCG@10, MRR@10 and Recall@k
as percentages, next to the baselines the benchmark maintainers measured (SOURCE.md).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
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
    return query_vectors(name, queries)


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
    args = parser.parse_args()
    if not BENCH.is_dir():
        print(f"{BENCH} not found: the benchmarks live in ../shared/bench", file=sys.stderr)
        return 2
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
