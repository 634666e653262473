"""What a tool's examples say about a prompt, beside the lexical methods' own scores: how
near the prompt is to one of the tool's examples (`example_similarity`, which gates what the
examples add to the lexical scores), the votes of the nearest examples, and the learned
classifier's decision and score (`ranking.learned` fits it)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from toolsel.ranking.prepared import PreparedIndex

#: Examples that vote: the query's nearest example prompts by BM25, each adding its score
#: to its tool. 20 balanced the dev splits (10: -1.5 on ToolLens; 40: +0.6 on ToolLens,
#: -0.4 on MetaTool).
VOTING_EXAMPLES = 20


def _example_scores(prepared: PreparedIndex, terms: Sequence[str]) -> dict[int, float]:
    """Example -> its BM25 score for the query, from the index's example postings."""
    index = prepared.index
    ex_ids, ex_bm25 = index.ex_ids, index.ex_bm25
    scores: dict[int, float] = {}
    for term in set(terms):
        for p in index.example_postings(term):
            doc = ex_ids[p]
            scores[doc] = scores.get(doc, 0.0) + ex_bm25[p]
    return scores


def example_similarity(prepared: PreparedIndex, terms: Sequence[str]) -> dict[int, float]:
    """Tool -> the largest share of the query's idf-weighted terms one of its examples
    holds (0..1]: how near the query is to something the tool was taught."""
    index = prepared.index
    ex_ids, owner = index.ex_ids, index.ex_owner
    unseen = math.log(1 + (len(index) + 0.5) / 0.5)
    weights: dict[str, float] = {}
    for term in terms:
        position = index.vocabulary.get(term)
        weights.setdefault(term, index.bm25_idf[position] if position is not None else unseen)
    total = sum(weights.values())
    if not total:
        return {}
    held: dict[int, float] = {}
    for term, weight in weights.items():
        for p in index.example_postings(term):
            doc = ex_ids[p]
            held[doc] = held.get(doc, 0.0) + weight
    best: dict[int, float] = {}
    for doc, value in held.items():
        tool = owner[doc]
        share = value / total
        if share > best.get(tool, 0.0):
            best[tool] = share
    return best


def example_votes(prepared: PreparedIndex, terms: Sequence[str]) -> dict[int, float]:
    """Tool -> summed BM25 score of its examples among the query's VOTING_EXAMPLES nearest."""
    import heapq

    owner = prepared.index.ex_owner
    votes: dict[int, float] = {}
    scores = _example_scores(prepared, terms)
    for doc, value in heapq.nlargest(
        VOTING_EXAMPLES, scores.items(), key=lambda kv: (kv[1], -kv[0])
    ):
        votes[owner[doc]] = votes.get(owner[doc], 0.0) + value
    return votes


def nearest_example(prepared: PreparedIndex, terms: Sequence[str], tool: int) -> int | None:
    """The tool's example closest to the query by BM25 (the first of equals), or None."""
    owner = prepared.index.ex_owner
    scores = _example_scores(prepared, terms)
    mine = [(value, -doc) for doc, value in scores.items() if owner[doc] == tool]
    return -max(mine)[1] if mine else None


def learned_query(prepared: PreparedIndex, terms: Sequence[str]) -> dict[int, float]:
    """The query as the learned weights see it: feature position (a word or word pair the
    weights know) -> its TF-IDF weight in the query."""
    from toolsel.ranking.learned import query_weights, with_pairs

    lookup = prepared.learned_features
    positions = [p for p in map(lookup.get, with_pairs(terms)) if p is not None]
    return query_weights(prepared.index.lw_idf, positions)


def learned_words(
    prepared: PreparedIndex, terms: Sequence[str], tool: int, limit: int = 2
) -> list[tuple[str, float]]:
    """The query's words (or word pairs) whose learned weights speak most for `tool`, with
    their share of its positive evidence, at most `limit`, strongest first: what `--explain`
    names when no example of the tool shares a word with the query."""
    index = prepared.index
    evidence: dict[int, float] = {}
    for position, q in learned_query(prepared, terms).items():
        for p in range(index.lw_ptr[position], index.lw_ptr[position + 1]):
            if index.lw_tools[p] == tool and index.lw_weights[p] > 0:
                evidence[position] = q * index.lw_weights[p]
    total = sum(evidence.values())
    strongest = sorted(evidence.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    return [(index.lw_terms[position], value / total) for position, value in strongest]


def decisions(prepared: PreparedIndex, terms: Sequence[str]) -> dict[int, float]:
    """Tool -> its classifier's decision value for the prompt, for the tools with a model."""
    index = prepared.index
    bias = index.lw_bias  # only tools with examples have a model (`learned.fit`)
    decision = {tool: bias[tool] for tool in prepared.learned_tools}
    lw_ptr, lw_tools, lw_weights = index.lw_ptr, index.lw_tools, index.lw_weights
    for position, q in learned_query(prepared, terms).items():
        for p in range(lw_ptr[position], lw_ptr[position + 1]):
            decision[lw_tools[p]] += q * lw_weights[p]
    return decision


#: The learned score is at least the logistic of (decision - centre) / LEARNED_SPREAD, less
#: that of the tool's bias, where centre = LEARNED_CENTRE + LEARNED_SHIFT x (1 - coverage)
#: to SHIFT_POWER:
#: where examples cover every tool, a prompt on the classifier's boundary (decision 0) gets
#: half, one at 0.3 nearly all, one at -0.3 almost nothing, and a prompt of words the model
#: never saw nothing. Measured on the dev splits (benchmarks/learning.py): the right tool's
#: decision is above 0 for 90 % of the prompts like its examples; for a prompt of a tool
#: without examples, the best other tool's is below -0.1 for 90 %. Where examples cover
#: a small part of the registry, a classifier must be surer: the tools without examples
#: are the ones a prompt near no example belongs to. On MetaTool with 3,400 generated
#: tools and examples for half of MetaTool's (3 % of the registry), the untaught half's
#: NDCG@10 lost 3.1 to examples with no shift, 1.6 with this one; the power keeps the
#: shift small where examples cover half the registry or more (0.016 at half), where a
#: larger one cost the taught tools about 1 NDCG@10 (benchmarks/learning.py --mode half).
LEARNED_CENTRE = 0.0
LEARNED_SHIFT = 0.25
SHIFT_POWER = 4.0
LEARNED_SPREAD = 0.1
#: Tools whose decision is this far below the best's get no relative learned score (their
#: exp(-distance) would be under 5 %).
LEARNED_CUTOFF = 3.0


def learned(prepared: PreparedIndex, terms: Sequence[str]) -> dict[int, float]:
    """Tool -> its learned score, 0..1, for the tools with a model: the larger of how much
    surer its classifier is that the prompt is its than of an empty prompt (absolute: a
    prompt unlike every example gets almost none), and exp(decision - the best decision)
    times the index's `confidence` (relative: it fades out where examples cover part of the
    registry, since the prompt's tool may then be one without any)."""
    if not prepared.index.learned:
        return {}
    bias = prepared.index.lw_bias
    every = decisions(prepared, terms)
    top = max(every.values(), default=0.0)
    confidence = prepared.confidence
    centre = LEARNED_CENTRE + LEARNED_SHIFT * (1.0 - prepared.coverage) ** SHIFT_POWER
    found = {}
    for tool, value in every.items():
        sure = _logistic((value - centre) / LEARNED_SPREAD) - _logistic(
            (bias[tool] - centre) / LEARNED_SPREAD
        )
        near_best = confidence * math.exp(value - top) if value >= top - LEARNED_CUTOFF else 0.0
        score = max(sure, near_best)
        if score > 0:
            found[tool] = score
    return found


def _logistic(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z > -60 else 0.0
