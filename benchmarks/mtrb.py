"""MTRB-MetaTool (arXiv 2410.03212, Table 2): toolsel beside the paper's retrievers.

    python benchmarks/mtrb.py PATH                     # PATH: a checkout of MTRB-QTA
    python benchmarks/mtrb.py PATH --methods hybrid bm25
    python benchmarks/mtrb.py PATH --subset restbench --learn 10   # with examples (issue 32)

MTRB (the Massive Tool Retrieval Benchmark, Fan et al., 2024) is published at
https://github.com/FANXIN-Gmail/MTRB-QTA without a licence, so nothing of it is stored here:
this script reads `metatool/ts_metatool_api_list_rewrite.json` (199 tools: name ->
description, as MTRB rewrote MetaTool's) and `metatool/mtr_metatool_test.json` (90 test
queries, one relevant tool each) from the checkout given, writes them as a toolsel registry
and case file in a temporary directory, and ranks every query with toolsel's methods
(without examples: MTRB's 10 training queries are not used) and with the naive BM25 of
benchmarks/sets.py.

`--subset restbench` reads MTRB-RestBench instead (54 TMDB endpoints, about 2.2 relevant
tools per query). `--learn N` learns examples from the first N queries, as `toolsel learn
--cases FILE -r REGISTRY` does (MTRB trains on 10 queries, which it does not publish), and
measures the others with and without them: a benchmark of learning from multi-tool tasks.

Metrics as the paper defines them: S@k (Sufficiency@k) is the share of queries with every
relevant tool in the top k (toolsel eval's Comp@k); N@k is NDCG@k with binary relevance.
Printed as percentages, as a markdown table below the paper's own rows.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from toolsel.evaluate import Outcome

TOOLS = Path("metatool") / "ts_metatool_api_list_rewrite.json"
QUERIES = Path("metatool") / "mtr_metatool_test.json"
#: arXiv 2410.03212, Table 2, MTRB-MetaTool columns: S@5, S@10, N@5, N@10
PAPER = {
    "BM25": (37.78, 47.78, 30.94, 33.63),
    "all-MiniLM-L6-v2 (zero-shot)": (81.11, 84.44, 71.99, 71.65),
    "all-MiniLM-L6-v2 (fine-tuned)": (81.11, 84.44, 71.99, 71.65),
    "QTA (the paper's method)": (83.31, 85.56, 72.01, 71.71),
}


#: --subset restbench: the TMDB endpoints (named by their usage line, "GET /search/movie",
#: as queries name them) and their test queries
RESTBENCH_TOOLS = Path("restbench") / "tmdb_tool_rewrite.json"
RESTBENCH_QUERIES = Path("restbench") / "mtr_restbench_test.json"


def convert(checkout: Path, out: Path, subset: str = "metatool") -> tuple[Path, Path]:
    """(registry, cases) written under `out` from the MTRB checkout."""
    restbench = subset == "restbench"
    tools_path = checkout / (RESTBENCH_TOOLS if restbench else TOOLS)
    queries_path = checkout / (RESTBENCH_QUERIES if restbench else QUERIES)
    for path in (tools_path, queries_path):
        if not path.is_file():
            raise SystemExit(f"mtrb.py: {path} not found; give a checkout of MTRB-QTA")
    tools = json.loads(tools_path.read_text(encoding="utf-8"))
    queries = json.loads(queries_path.read_text(encoding="utf-8"))
    if restbench:
        entries = [
            {"name": t["tool_usage"], "description": t["rewrite_description"]} for t in tools
        ]
    else:
        entries = [{"name": n, "description": d} for n, d in tools.items()]
    registry = out / f"mtrb-{subset}.json"
    registry.write_text(json.dumps({"tools": entries}), encoding="utf-8")
    cases = out / f"mtrb-{subset}.eval.jsonl"
    lines = [
        json.dumps({"id": f"q{i:02d}", "prompt": q["query"], "expect": q["relevant Tools"]})
        for i, q in enumerate(queries, 1)
    ]
    cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return registry, cases


def paper_metrics(outcomes: Sequence[Outcome]) -> tuple[float, float, float, float]:
    """S@5, S@10, N@5, N@10 in percent."""

    def sufficient(o: Outcome, k: int) -> bool:
        return all(r is not None and r <= k for r in o.ranks.values())

    def ndcg(o: Outcome, k: int) -> float:
        dcg = sum(1 / math.log2(r + 1) for r in o.ranks.values() if r is not None and r <= k)
        ideal = sum(1 / math.log2(i + 1) for i in range(1, min(len(o.ranks), k) + 1))
        return dcg / ideal

    n = len(outcomes)
    return (
        100 * sum(sufficient(o, 5) for o in outcomes) / n,
        100 * sum(sufficient(o, 10) for o in outcomes) / n,
        100 * sum(ndcg(o, 5) for o in outcomes) / n,
        100 * sum(ndcg(o, 10) for o in outcomes) / n,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path, help="a checkout of MTRB-QTA")
    parser.add_argument("--methods", nargs="*", default=[], help="toolsel methods")
    parser.add_argument("--subset", choices=["metatool", "restbench"], default="metatool")
    parser.add_argument("--learn", type=int, default=0, help="learn from the first N queries")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import sets

    methods = sets.available_methods(args.methods)
    with tempfile.TemporaryDirectory() as tmp:
        registry, cases = convert(args.checkout, Path(tmp), args.subset)
        if args.learn:
            return learned_rows(registry, cases, args.learn, methods, Path(tmp))
        rows = sets.measure_set(sets.EvalSet(f"mtrb-{args.subset}", cases, registry), methods)
    print("| retriever | S@5 | S@10 | N@5 | N@10 |")
    print("|---|---|---|---|---|")
    if args.subset == "metatool":
        for name, figures in PAPER.items():
            print(f"| {name} (paper) | " + " | ".join(f"{v:.1f}" for v in figures) + " |")
    for row in rows:
        label = "naive BM25 (sets.py)" if row.method == sets.NAIVE else f"toolsel `{row.method}`"
        figures = paper_metrics(row.outcomes)
        print(f"| {label} | " + " | ".join(f"{v:.1f}" for v in figures) + " |")
    return 0


def learned_rows(registry: Path, cases: Path, first: int, methods: list[str], tmp: Path) -> int:
    """With and without examples learned from the first `first` queries, on the others."""
    from learning import learned_overlay

    from toolsel.evaluate import evaluate, read_cases
    from toolsel.ranking import load_index
    from toolsel.ranking.options import Method

    every, _problems = read_cases(cases)
    learn_from, measure_on = every[:first], every[first:]
    overlay, lines, flagged = learned_overlay(learn_from, [registry], tmp)
    print(f"examples: {lines} lines from {first} queries ({flagged} left out)")
    print("| method | examples | S@5 | S@10 | N@5 | N@10 |")
    print("|---|---|---|---|---|---|")
    for label, paths in (("none", [registry]), ("learned", [registry, overlay])):
        index = load_index(paths, use_cache=False, examples=label == "learned")
        wanted = [Method(m) for m in methods if m != "auto"]
        for report in evaluate(index, measure_on, wanted, (5, 10)).methods:
            figures = paper_metrics(report.outcomes)
            print(
                f"| {report.method} | {label} | " + " | ".join(f"{v:.1f}" for v in figures) + " |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
