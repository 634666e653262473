"""Choose the `fusion` weight and the embedded tool text on a tuning sample of the dev splits.

    python benchmarks/embed_tune.py                 # 2,000 tuning queries per benchmark
    python benchmarks/embed_tune.py --sample 0      # every dev query

Needs `toolsel[embed]` and ../shared/bench. For each tool-text recipe it embeds every tool
(the vector cache makes reruns cheap), embeds the queries once (cached under
benchmarks/data/), and prints NDCG@10 of cosine alone and of w x cosine + (1 - w) x BM25
(each min-max scaled per query) for w = 0, 0.1, ..., 1. The sample is drawn with a fixed
seed; README figures come from benchmarks/quality.py on the whole dev split.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from toolsel.embed.model import MODEL_KEY, embedder
from toolsel.embed.vectors import BATCH_SIZE, tool_vectors
from toolsel.evaluate import Case, read_cases, score_case
from toolsel.ranking import load_index, scorers
from toolsel.ranking.fields import embed_text, tokens
from toolsel.ranking.semantic import min_max
from toolsel.registry import load_registry
from toolsel.registry.model import Registry, Tool
from toolsel.text import split_name

HERE = Path(__file__).resolve().parent
BENCH = HERE.parents[1] / "shared" / "bench"
DATA = HERE / "data"
BENCHMARKS = ("metatool", "toollens", "livemcpbench")
WEIGHTS = [round(0.1 * i, 1) for i in range(11)]


def _category(tool: Tool, registry: Registry) -> str:
    category = registry.categories.get(tool.category or "")
    return f"{tool.category}: {category.description}" if category else tool.category or ""


Recipe = Callable[[Tool, Registry], str]
RECIPES: dict[str, Recipe] = {
    "shipped (name, description, parameters)": lambda t, r: embed_text(t),
    "name + description": lambda t, r: f"{' '.join(split_name(t.name))}. {t.description}",
    "description only": lambda t, r: t.description,
    "shipped + tags": lambda t, r: f"{embed_text(t)}. {', '.join(t.tags)}",
    "shipped + category": lambda t, r: f"{embed_text(t)}. {_category(t, r)}",
}


def query_vectors(name: str, queries: list[str]) -> dict[str, np.ndarray]:
    """Query vectors, cached in benchmarks/data by model and query text."""
    path = (
        DATA
        / f"queries-{name}-{hashlib.blake2b(MODEL_KEY.encode(), digest_size=6).hexdigest()}.npz"
    )
    cached: dict[str, np.ndarray] = {}
    if path.exists():
        with np.load(path, allow_pickle=False) as arrays:
            cached = dict(zip(arrays["queries"].tolist(), arrays["vectors"], strict=True))
    todo = [q for q in dict.fromkeys(queries) if q not in cached]
    if todo:
        print(f"  embedding {len(todo)} queries of {name}…", file=sys.stderr, flush=True)
        for q, v in zip(todo, embedder().embed(todo, batch_size=BATCH_SIZE), strict=True):
            cached[q] = v
        DATA.mkdir(parents=True, exist_ok=True)
        keys = list(cached)
        np.savez(path, queries=np.array(keys), vectors=np.stack([cached[k] for k in keys]))
    return cached


def ndcg(cases: list[Case], names: list[str], scores: list[np.ndarray]) -> float:
    total = 0.0
    order_names = np.array(names)
    for case, row in zip(cases, scores, strict=True):
        # ties by name, as toolsel does
        top = np.lexsort((order_names, -row))[:10]
        total += score_case(case, [names[i] for i in top]).ndcg10
    return 100 * total / len(cases)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", nargs="+", default=list(BENCHMARKS))
    parser.add_argument("--sample", type=int, default=2000, help="tuning queries (0 = all)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--recipes", nargs="+", default=list(RECIPES))
    args = parser.parse_args()
    if not BENCH.is_dir():
        print(f"{BENCH} not found", file=sys.stderr)
        return 2
    header = "| benchmark | recipe | cosine | " + " | ".join(f"w={w}" for w in WEIGHTS) + " |"
    print(header)
    print("|---|---|---:|" + "---:|" * len(WEIGHTS))
    for name in args.bench:
        cases, _ = read_cases(BENCH / name / "queries.dev.jsonl")
        if args.sample and args.sample < len(cases):
            cases = random.Random(args.seed).sample(cases, args.sample)
        registry = load_registry(BENCH / name / "registry.yaml")
        index = load_index(BENCH / name / "registry.yaml", bulk=True)
        names = [t.name for t in index.tools]
        qv = query_vectors(name, [c.query for c in cases])
        lexical = [
            min_max(
                np.asarray(scorers.dense_scores(index, tokens(c.query), "bm25"), dtype=np.float64)
            )
            for c in cases
        ]
        for label in args.recipes:
            recipe = RECIPES[label]
            texts = [recipe(t, registry) for t in registry.tools]
            vectors = tool_vectors(texts, f"tune:{label}")
            cos = [min_max((vectors @ qv[c.query]).astype(np.float64)) for c in cases]
            row = [ndcg(cases, names, cos)]
            for w in WEIGHTS:
                row.append(
                    ndcg(
                        cases,
                        names,
                        [w * c + (1 - w) * b for c, b in zip(cos, lexical, strict=True)],
                    )
                )
            print(f"| {name} | {label} | " + " | ".join(f"{v:.1f}" for v in row) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
