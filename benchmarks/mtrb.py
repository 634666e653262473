"""MTRB-MetaTool (arXiv 2410.03212, Table 2): toolsel beside the paper's retrievers.

    python benchmarks/mtrb.py PATH                     # PATH: a checkout of MTRB-QTA
    python benchmarks/mtrb.py PATH --methods hybrid bm25

MTRB (the Massive Tool Retrieval Benchmark, Fan et al., 2024) is published at
https://github.com/FANXIN-Gmail/MTRB-QTA without a licence, so nothing of it is stored here:
this script reads `metatool/ts_metatool_api_list_rewrite.json` (199 tools: name ->
description, as MTRB rewrote MetaTool's) and `metatool/mtr_metatool_test.json` (90 test
queries, one relevant tool each) from the checkout given, writes them as a toolsel registry
and case file in a temporary directory, and ranks every query with toolsel's methods
(without examples: MTRB's 10 training queries are not used) and with the naive BM25 of
benchmarks/sets.py.

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


def convert(checkout: Path, out: Path) -> tuple[Path, Path]:
    """(registry, cases) written under `out` from the MTRB checkout."""
    tools_path, queries_path = checkout / TOOLS, checkout / QUERIES
    for path in (tools_path, queries_path):
        if not path.is_file():
            raise SystemExit(f"mtrb.py: {path} not found; give a checkout of MTRB-QTA")
    tools = json.loads(tools_path.read_text(encoding="utf-8"))
    queries = json.loads(queries_path.read_text(encoding="utf-8"))
    registry = out / "mtrb-metatool.json"
    registry.write_text(
        json.dumps({"tools": [{"name": n, "description": d} for n, d in tools.items()]}),
        encoding="utf-8",
    )
    cases = out / "mtrb-metatool.eval.jsonl"
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
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import sets

    methods = sets.available_methods(args.methods)
    with tempfile.TemporaryDirectory() as tmp:
        registry, cases = convert(args.checkout, Path(tmp))
        rows = sets.measure_set(sets.EvalSet("mtrb-metatool", cases, registry), methods)
    print("| retriever | S@5 | S@10 | N@5 | N@10 |")
    print("|---|---|---|---|---|")
    for name, figures in PAPER.items():
        print(f"| {name} (paper) | " + " | ".join(f"{v:.1f}" for v in figures) + " |")
    for row in rows:
        label = "naive BM25 (sets.py)" if row.method == sets.NAIVE else f"toolsel `{row.method}`"
        figures = paper_metrics(row.outcomes)
        print(f"| {label} | " + " | ".join(f"{v:.1f}" for v in figures) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
