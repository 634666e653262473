"""`semantic` and `fusion` ranking: embedding similarity, alone or fused with BM25.

Needs the optional extra (`pip install 'toolsel[embed]'`); everything else in toolsel works
without it. Tool vectors are attached to the index once per process (`prepare`), from the
vector cache where possible; prompt vectors are memoised per index.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolsel.ranking import scorers
from toolsel.ranking.fields import EMBED_RECIPE
from toolsel.ranking.index import RankIndex
from toolsel.ranking.scorers import Contribution

if TYPE_CHECKING:
    import numpy as np

    from toolsel.embed.vectors import ProgressFactory

#: fusion = FUSION_WEIGHT x cosine + (1 - FUSION_WEIGHT) x BM25, each min-max scaled per
#: query over every tool (chosen on the dev splits; see the README's quality section).
FUSION_WEIGHT = 0.7
#: How many best-scoring tools go on to the selection pipeline.
CANDIDATES = 300


def prepare(
    index: RankIndex, *, use_cache: bool = True, progress: ProgressFactory | None = None
) -> np.ndarray:
    """The index's tool vectors (embedding what the cache lacks), attached to the index."""
    cached = index.__dict__.get("_vectors")
    if cached is None:
        from toolsel.embed.model import embedder, require
        from toolsel.embed.vectors import tool_vectors

        require()
        embedder().start_loading()  # verify the model file while the vectors load
        texts = index.texts or tuple(t.description for t in index.tools)
        cached = tool_vectors(texts, EMBED_RECIPE, use_cache=use_cache, progress=progress)
        index.__dict__["_vectors"] = cached
    return cached


def prepare_queries(
    index: RankIndex,
    queries: Sequence[str],
    *,
    use_cache: bool = True,
    progress: ProgressFactory | None = None,
) -> None:
    """Embed many prompts in batches up front (eval, --batch, test), memoised on the index
    and cached as a set, so a rerun embeds no prompt again."""
    from toolsel.embed.vectors import prompt_set_vectors

    memo = _memo(index)
    todo = list(dict.fromkeys(q for q in queries if q not in memo))
    if todo:
        vectors = prompt_set_vectors(todo, use_cache=use_cache, progress=progress)
        for query, vector in zip(todo, vectors, strict=True):
            memo[query] = vector


def remember_queries(index: RankIndex, vectors: dict[str, Any]) -> None:
    """Give the index prompt vectors computed elsewhere (benchmarks keep their own cache)."""
    _memo(index).update(vectors)


def _memo(index: RankIndex) -> dict[str, Any]:
    memo: dict[str, Any] | None = index.__dict__.get("_query_vectors")
    if memo is None:
        memo = index.__dict__["_query_vectors"] = {}
    return memo


def cosines(index: RankIndex, query: str) -> np.ndarray:
    """Cosine similarity of the prompt with every tool."""
    memo = _memo(index)
    vector = memo.get(query)
    if vector is None:
        from toolsel.embed.vectors import query_vectors

        vector = memo[query] = query_vectors([query])[0]
    result: np.ndarray = prepare(index) @ vector
    return result


def semantic(index: RankIndex, query: str) -> dict[int, float]:
    return scorers.top_entries(cosines(index, query), CANDIDATES)


def fusion_parts(index: RankIndex, query: str, terms: list[str]) -> tuple[Any, Any]:
    """The two min-max scaled parts, each over every tool: cosine and BM25 (memoised for the
    last prompt, which --explain asks about once per result)."""
    last = index.__dict__.get("_fusion_parts")
    if last is not None and last[0] == (query, tuple(terms)):
        return last[1]  # type: ignore[no-any-return]
    parts = _fusion_parts(index, query, terms)
    index.__dict__["_fusion_parts"] = ((query, tuple(terms)), parts)
    return parts


def _fusion_parts(index: RankIndex, query: str, terms: list[str]) -> tuple[Any, Any]:
    import numpy as np

    lexical = np.asarray(scorers.dense(index, terms, "bm25"), dtype=np.float64)
    return min_max(cosines(index, query).astype(np.float64)), min_max(lexical)


def min_max(values: np.ndarray) -> np.ndarray:
    """Scaled to 0..1 over every tool (all zeros when every tool scores the same)."""
    import numpy as np

    low, high = float(values.min()), float(values.max())
    result: np.ndarray = (values - low) / (high - low) if high > low else np.zeros_like(values)
    return result


def fusion(index: RankIndex, query: str, terms: list[str]) -> dict[int, float]:
    cosine, lexical = fusion_parts(index, query, terms)
    return scorers.top_entries(FUSION_WEIGHT * cosine + (1 - FUSION_WEIGHT) * lexical, CANDIDATES)


def explain(
    index: RankIndex, query: str, terms: list[str], doc: int, fused: bool
) -> list[Contribution]:
    """`semantic`: the cosine. `fusion`: the weighted cosine part, then the weighted lexical
    part split across the BM25 terms and fields that made it, so the parts sum to the score."""
    if not fused:
        return [Contribution("embedding", "cosine", float(cosines(index, query)[doc]))]
    cosine, lexical = fusion_parts(index, query, terms)
    parts = [Contribution("embedding", "semantic", FUSION_WEIGHT * float(cosine[doc]))]
    lexical_part = (1 - FUSION_WEIGHT) * float(lexical[doc])
    rows = scorers.explain_lexical(index, terms, doc, "bm25")
    total = sum(r.value for r in rows)
    if total > 0 and lexical_part > 0:
        parts += [Contribution(r.term, r.field, r.value * lexical_part / total) for r in rows]
    return parts
