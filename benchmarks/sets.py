"""Selection quality per conversational set, against a naive BM25 (issue 22).

    python benchmarks/sets.py                          # every set, every method
    python benchmarks/sets.py --sets mongodb shh --methods hybrid bm25

Sets: every one in tests/selection/sets/sets.yaml (the hand-written sets on third-party
registries, and the project's own two on the bundled registries). Methods: `hybrid`, `bm25`,
`fusion` when `toolsel[embed]` is installed, and `auto` when toolsel has it; all without
example prompts (the third-party registries have none, and the naive baseline uses none).

The naive baseline is plain Okapi BM25 over each tool's name, description and tags, one
text, tokenized as `bm25s.tokenize` does by default (lower case, words of two or more
characters, Lucene's 33 English stop words left out), except that `_` splits words too, so a
name's words count: no stemming, no field weights, no synonyms. Scoring is bm25s's default
(Lucene's idf ln(1 + (N - df + 0.5) / (df + 0.5)), k1 1.5, b 0.75). It returns only the
tools with a positive score, as toolsel does (a list padded with unscored tools would be
scored on luck on a 9-tool registry), ties in registry order. When bm25s is installed
(the `dev` extra) every query's scores are checked against bm25s's before anything is
printed.

Prints markdown: the cases with an expected tool first, Recall@5, NDCG@10 and MRR@10 per
set and method (and the first places summed over the sets); then, per set, where each
toolsel method loses to the naive BM25 (on Recall@5 or NDCG@10), with the queries where
they differ; and the expected tools toolsel gave no score at all (a vocabulary gap).
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolsel.evaluate import Case, Outcome, evaluate, read_cases, score_case

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "tests" / "selection" / "sets" / "sets.yaml"
NAIVE = "naive-bm25"
K1, B = 1.5, 0.75
WORD = re.compile(r"[^\W_]{2,}")
#: bm25s's default stop words (`bm25s.stopwords.STOPWORDS_EN`, Lucene's English list)
STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their "
    "then there these they this to was will with".split()
)


@dataclass(frozen=True, slots=True)
class EvalSet:
    name: str
    cases: Path
    registry: Path | str  # a path, or a built-in catalog (`builtin:codex`)
    #: tools no request can single out (a catalog's tools the model is never offered)
    unaskable: tuple[str, ...] = ()

    @property
    def builtin(self) -> bool:
        return isinstance(self.registry, str)


def load_sets(names: Iterable[str] = ()) -> list[EvalSet]:
    import yaml

    listed = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))["sets"]
    wanted = list(names) or list(listed)
    unknown = [n for n in wanted if n not in listed]
    if unknown:
        raise SystemExit(f"sets.py: unknown set(s) {unknown}; known: {sorted(listed)}")
    return [
        EvalSet(
            n,
            ROOT / listed[n]["cases"],
            _registry(listed[n]["registry"]),
            tuple(listed[n].get("unaskable") or ()),
        )
        for n in wanted
    ]


def _registry(value: str) -> Path | str:
    return value if value.startswith("builtin:") else ROOT / value


# -- the naive baseline -----------------------------------------------------------------------


def words(text: str) -> list[str]:
    return [w for w in WORD.findall(text.lower()) if w not in STOPWORDS]


class NaiveBM25:
    """Okapi BM25 as bm25s scores it by default ("lucene"), over one token list per tool."""

    def __init__(self, documents: Sequence[Sequence[str]]) -> None:
        self.documents = [list(d) for d in documents]
        self.lengths = [len(d) for d in self.documents]
        self.average = sum(self.lengths) / len(self.lengths) if self.lengths else 0.0
        self.counts: list[dict[str, int]] = []
        df: dict[str, int] = {}
        for doc in self.documents:
            counts: dict[str, int] = {}
            for word in doc:
                counts[word] = counts.get(word, 0) + 1
            self.counts.append(counts)
            for word in counts:
                df[word] = df.get(word, 0) + 1
        n = len(self.documents)
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in df.items()}

    def scores(self, query: Sequence[str]) -> list[float]:
        """Every tool's score; a query word counts once per occurrence, as in bm25s."""
        out = [0.0] * len(self.documents)
        for word in query:
            idf = self.idf.get(word)
            if idf is None:
                continue
            for i, counts in enumerate(self.counts):
                tf = counts.get(word, 0)
                if tf:
                    norm = K1 * (1 - B + B * self.lengths[i] / self.average)
                    out[i] += idf * tf / (tf + norm)
        return out

    def rank(self, query: Sequence[str]) -> list[int]:
        """Tools with a positive score, best first, ties in registry order."""
        scores = self.scores(query)
        return sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))


def tool_texts(registry: Path | str) -> tuple[list[str], list[list[str]]]:
    """(names, token lists): name, description and tags of each tool."""
    from toolsel.sources import load_registry

    loaded = load_registry(registry, use_cache=False)
    names = [t.name for t in loaded.tools]
    texts = [words(" ".join([t.name, t.description, *t.tags])) for t in loaded.tools]
    return names, texts


def check_against_bm25s(documents: list[list[str]], queries: list[list[str]]) -> str:
    """'' when bm25s is not installed; else a note that every query's scores agree."""
    try:
        import bm25s
        import numpy as np
        from bm25s.stopwords import STOPWORDS_EN
    except ImportError:
        return ""
    if set(STOPWORDS_EN) != STOPWORDS:
        raise SystemExit("sets.py: bm25s's English stop words changed")
    naive = NaiveBM25(documents)
    retriever = bm25s.BM25(k1=K1, b=B, method="lucene")
    retriever.index(documents, show_progress=False)
    vocabulary = retriever.vocab_dict
    for query in queries:
        known = [w for w in query if w in vocabulary]
        theirs = retriever.get_scores(known) if known else np.zeros(len(documents))
        if not np.allclose(theirs, naive.scores(query), rtol=1e-5, atol=1e-6):
            raise SystemExit(f"sets.py: the naive BM25 disagrees with bm25s on {query}")
    return f"bm25s {bm25s.__version__}"


# -- measuring ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Row:
    set: str
    method: str
    outcomes: tuple[Outcome, ...]

    def recall(self, k: int) -> float:
        found = [
            sum(1 for r in o.ranks.values() if r is not None and r <= k) / len(o.ranks)
            for o in self.outcomes
        ]
        return sum(found) / len(found)

    @property
    def ndcg10(self) -> float:
        return sum(o.ndcg10 for o in self.outcomes) / len(self.outcomes)

    @property
    def first(self) -> int:
        """Cases with an expected tool in first place."""
        return sum(1 for o in self.outcomes if 1 in o.ranks.values())

    @property
    def mrr10(self) -> float:
        return sum(o.reciprocal_rank for o in self.outcomes) / len(self.outcomes)

    @property
    def no_evidence(self) -> int:
        return sum(len(o.no_evidence) for o in self.outcomes)

    @property
    def expected(self) -> int:
        return sum(len(o.ranks) for o in self.outcomes)


def naive_outcomes(eval_set: EvalSet, cases: Sequence[Case]) -> tuple[Outcome, ...]:
    names, documents = tool_texts(eval_set.registry)
    bm25 = NaiveBM25(documents)
    outcomes = []
    for case in cases:
        ranked = [names[i] for i in bm25.rank(words(case.query))]
        outcome = score_case(case, ranked[:10])
        unscored = tuple(n for n in case.expected if n not in ranked)
        outcomes.append(Outcome(outcome.case, outcome.ranks, outcome.ndcg10,
                                outcome.reciprocal_rank, unscored))  # fmt: skip
    return tuple(outcomes)


def available_methods(wanted: Sequence[str] = ()) -> list[str]:
    """hybrid, bm25, fusion (with `toolsel[embed]`), auto (when toolsel has it)."""
    from toolsel.embed.model import missing
    from toolsel.ranking.options import Method

    known = {m.value for m in Method}
    methods = ["hybrid", "bm25"]
    if missing() is None:
        methods.append("fusion")
    if "auto" in known:
        methods.append("auto")
    if wanted:
        unknown = [m for m in wanted if m not in known]
        if unknown:
            raise SystemExit(f"sets.py: unknown method(s) {unknown}; known: {sorted(known)}")
        methods = list(wanted)
    return methods


def measure_set(eval_set: EvalSet, methods: Sequence[str], naive: bool = True) -> list[Row]:
    """One row per method (without examples), then the naive baseline's."""
    from toolsel.ranking import load_index
    from toolsel.ranking.options import Method
    from toolsel.ranking.semantic import prepare_methods

    cases, problems = read_cases(eval_set.cases)
    if problems:
        raise SystemExit(f"sets.py: {eval_set.cases}: unreadable cases: {problems[0]}")
    # `expect: none`: measured by eval, not here (getattr: a commit before it, to compare)
    cases = [c for c in cases if not getattr(c, "none", False)]
    index = load_index(eval_set.registry, use_cache=False, bulk=True, examples=False)
    wanted = [Method(m) for m in methods]
    vectors = prepare_methods(index, wanted, [c.query for c in cases], use_cache=True)
    report = evaluate(index, cases, wanted, (5, 10), query_vectors=vectors)
    rows = [Row(eval_set.name, m.method, m.outcomes) for m in report.methods]
    if naive:
        rows.append(Row(eval_set.name, NAIVE, naive_outcomes(eval_set, cases)))
    return rows


def none_rows(eval_set: EvalSet, methods: Sequence[str]) -> list[tuple[str, str, Any]]:
    """(set, method, `toolsel.evaluate.Calibration`) for each method, on every case of the
    set, `expect: none` ones included: what `toolsel eval --calibrate` prints."""
    from toolsel.evaluate import calibrate
    from toolsel.ranking import load_index
    from toolsel.ranking.options import Method
    from toolsel.ranking.semantic import prepare_methods

    cases, _problems = read_cases(eval_set.cases)
    if not any(c.none for c in cases):
        return []
    index = load_index(eval_set.registry, use_cache=False, bulk=True, examples=False)
    wanted = [Method(m) for m in methods]
    vectors = prepare_methods(index, wanted, [c.query for c in cases], use_cache=True)
    report = evaluate(index, cases, wanted, (5, 10), query_vectors=vectors)
    return [(eval_set.name, m.method, calibrate(m, (5, 10))) for m in report.methods]


def none_table(rows: list[tuple[str, str, Any]]) -> list[str]:
    """Prompts no tool fits: how often a tool is offered anyway, and what `--calibrate`'s
    cut-off does to that and to recall."""
    lines = [
        "| set | method | `none` prompts | offered anyway | --calibrate chose | offered after "
        "| R@5 before | R@5 after | NDCG@10 before | NDCG@10 after |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    totals: dict[str, list[int]] = {}
    for name, method, cal in rows:
        before, after = cal.before, cal.after
        chosen = f"{cal.chosen:.4f}" if cal.chosen is not None else "none"
        lines.append(
            f"| {name} | {method} | {before.none_cases} | {before.offered_anyway} | {chosen} "
            f"| {after.offered_anyway} | {_pct(before.recall[5])} | {_pct(after.recall[5])} "
            f"| {_pct(before.ndcg10)} | {_pct(after.ndcg10)} |"
        )
        total = totals.setdefault(method, [0, 0, 0])
        total[0] += before.none_cases
        total[1] += before.offered_anyway
        total[2] += after.offered_anyway
    for method, (cases, anyway, after_) in totals.items():
        lines.append(f"| **all** | {method} | {cases} | {anyway} | | {after_} | | | | |")
    return lines


# -- printing ----------------------------------------------------------------------------------


def _pct(value: float) -> str:
    return f"{100 * value:.1f}"


def quality_table(rows: Sequence[Row]) -> list[str]:
    lines = [
        "| set | cases | method | first | R@5 | NDCG@10 | MRR@10 | no evidence |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        gap = f"{row.no_evidence}/{row.expected}"
        lines.append(
            f"| {row.set} | {len(row.outcomes)} | {row.method} | {row.first} | "
            f"{_pct(row.recall(5))} | {_pct(row.ndcg10)} | {_pct(row.mrr10)} | {gap} |"
        )
    totals: dict[str, int] = {}
    for row in rows:
        totals[row.method] = totals.get(row.method, 0) + row.first
    lines.append("")
    lines.append(
        "Cases with an expected tool first, every set: "
        + ", ".join(f"{method} {count}" for method, count in totals.items())
    )
    return lines


def differing(a: Row, b: Row) -> tuple[int, int]:
    """(queries where `a` has the higher NDCG@10, queries where `b` has)."""
    pairs = list(zip(a.outcomes, b.outcomes, strict=True))
    return (
        sum(x.ndcg10 > y.ndcg10 + 1e-9 for x, y in pairs),
        sum(y.ndcg10 > x.ndcg10 + 1e-9 for x, y in pairs),
    )


def versus_table(rows: Sequence[Row]) -> list[str]:
    """Per set and toolsel method: the difference to the naive BM25, and a verdict."""
    lines = [
        "| set | method | ΔR@5 | ΔNDCG@10 | queries better / worse | verdict |",
        "|---|---|---|---|---|---|",
    ]
    by_set: dict[str, list[Row]] = {}
    for row in rows:
        by_set.setdefault(row.set, []).append(row)
    for name, found in by_set.items():
        naive = next((r for r in found if r.method == NAIVE), None)
        if naive is None:
            continue
        for row in found:
            if row is naive:
                continue
            d_recall = row.recall(5) - naive.recall(5)
            d_ndcg = row.ndcg10 - naive.ndcg10
            better, worse = differing(row, naive)
            losses = [m for m, d in (("R@5", d_recall), ("NDCG@10", d_ndcg)) if d < -1e-9]
            verdict = f"**loses** on {', '.join(losses)}" if losses else "holds"
            lines.append(
                f"| {name} | {row.method} | {100 * d_recall:+.1f} | {100 * d_ndcg:+.1f} | "
                f"{better} / {worse} | {verdict} |"
            )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="*", default=[], help="set names (default: all)")
    parser.add_argument("--methods", nargs="*", default=[], help="toolsel methods")
    parser.add_argument(
        "--none", action="store_true", help="prompts no tool fits, before and after --calibrate"
    )
    args = parser.parse_args()
    sets = load_sets(args.sets)
    methods = available_methods(args.methods)
    if args.none:
        found = [row for eval_set in sets for row in none_rows(eval_set, methods)]
        print("\n".join(none_table(found)))
        return 0
    rows: list[Row] = []
    checked = ""
    for eval_set in sets:
        cases, _ = read_cases(eval_set.cases)
        _names, documents = tool_texts(eval_set.registry)
        checked = check_against_bm25s(documents, [words(c.query) for c in cases]) or checked
        rows.extend(measure_set(eval_set, methods))
    print(f"Methods without examples; naive BM25 checked against {checked or 'nothing'}.\n")
    print("\n".join(quality_table(rows)))
    print()
    print("\n".join(versus_table(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
