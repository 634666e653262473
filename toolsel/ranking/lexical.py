"""Hybrid's lexical evidence: BM25 and TF-IDF, each normalised by its best score without
examples' parts, weighted and summed, with the prompt's synonyms at a lower weight. `hybrid`
adds fuzzy names to it, and `fusion` fuses it with the embedding (`semantic.fusion_parts`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolsel.ranking import scorers
from toolsel.ranking.prepared import PreparedIndex

#: Hybrid = these weights on each method's max-normalised score (chosen on the dev splits;
#: see benchmarks/quality.py and docs/quality.md).
HYBRID_WEIGHTS = {"bm25": 0.5, "tfidf": 0.5, "fuzzy": 0.15}
#: On large registries only this many best-scoring tools go through the selection pipeline.
LARGE_CANDIDATES = 300


def dense_lexical_fusion(prepared: PreparedIndex, terms: Sequence[str]) -> tuple[Any, Any]:
    """`lexical_fusion` for every tool, as numpy arrays: (with what examples add, without)."""
    from toolsel.ranking.synonyms import expansions

    wb, wt = HYBRID_WEIGHTS["bm25"], HYBRID_WEIGHTS["tfidf"]
    extra = expansions(list(terms), prepared.index.vocabulary, prepared.index.bm25_idf)
    b, b_gain = scorers.dense_parts(prepared, terms, "bm25", extra)
    t, t_gain = scorers.dense_parts(prepared, terms, "tfidf", extra)
    b_scale, t_scale = float(b.max()), float(t.max())
    base = wb * scorers.scaled(b, b_scale) + wt * scorers.scaled(t, t_scale)
    fused = wb * scorers.scaled(b + b_gain, b_scale) + wt * scorers.scaled(t + t_gain, t_scale)
    return fused, base


def lexical_scores(prepared: PreparedIndex, terms: Sequence[str]) -> tuple[dict[int, float], bool]:
    """(`lexical_fusion`, whether any tool matched without examples' help)."""
    from toolsel.ranking.synonyms import expansions

    wb, wt = HYBRID_WEIGHTS["bm25"], HYBRID_WEIGHTS["tfidf"]
    limit = candidate_limit(prepared)
    extra = expansions(list(terms), prepared.index.vocabulary, prepared.index.bm25_idf)
    if scorers.numpy_suits(prepared, [*terms, *extra]):
        fused, base = dense_lexical_fusion(prepared, terms)
        taught = prepared.taught_tools
        return scorers.top_entries_each(fused, limit or len(prepared), taught), bool(base.max() > 0)
    bm25 = scorers.scored(prepared, terms, "bm25", extra=extra)
    tfidf = scorers.scored(prepared, terms, "tfidf", extra=extra)
    b, t = bm25.normalised(), tfidf.normalised()
    combined = {doc: wb * b.get(doc, 0.0) + wt * t.get(doc, 0.0) for doc in b.keys() | t.keys()}
    kept = scorers.best_each(combined, limit, prepared.taught_tools) if limit else combined
    return kept, bool(bm25.base or tfidf.base)


def lexical_fusion(prepared: PreparedIndex, terms: Sequence[str]) -> dict[int, float]:
    """BM25 and TF-IDF, each normalised by its best score without examples' parts, weighted
    and summed: hybrid's lexical score, with the prompt's words' alternatives (`synonyms`)
    at a lower weight."""
    return lexical_scores(prepared, terms)[0]


def candidate_limit(prepared: PreparedIndex) -> int | None:
    """On a large registry, only the best-scoring tools go on to the selection pipeline."""
    return LARGE_CANDIDATES if prepared.index.is_large else None
