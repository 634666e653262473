"""The lexical and fuzzy scoring methods. Each returns {tool position: raw score} for
scores above zero, and can explain a tool's score as (term, field, contribution) rows.

A query is scored in pure Python over the postings of its terms; only a query whose terms
have many postings is scored with numpy over every tool, so a single prompt never pays
numpy's import (0.1 s) and a batch over a large registry gets its speed.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toolsel.ranking.fields import FIELD_NAMES
from toolsel.ranking.prepared import PreparedIndex, wants_numpy

#: The lexical weighting schemes an index stores per posting.
LEXICAL = ("bm25", "tfidf")


@dataclass(frozen=True, slots=True)
class Contribution:
    term: str
    field: str
    value: float


def query_weights(
    prepared: PreparedIndex,
    terms: Sequence[str],
    method: str,
    extra: dict[str, float] | None = None,
) -> dict[str, float]:
    """How much each known query term counts: BM25 counts repeats; TF-IDF weighs the
    query's sublinear tf by idf and l2-normalises it, as the tools' vectors are. `extra`:
    terms the prompt did not say, with what each counts for (`synonyms.expansions`)."""
    index = prepared.index
    counts = Counter(t for t in terms if t in index.vocabulary)
    if method == "bm25":
        scale = {t: float(n) for t, n in counts.items()}
        if extra:
            scale.update((t, w) for t, w in extra.items() if t not in counts)
        return scale
    weights = {t: (1 + math.log(n)) * index.idf[index.vocabulary[t]] for t, n in counts.items()}
    if extra:
        weights.update(
            (t, w * index.idf[index.vocabulary[t]]) for t, w in extra.items() if t not in counts
        )
    norm = math.sqrt(sum(v * v for v in weights.values())) or 1.0
    return {t: v / norm for t, v in weights.items()}


def lexical(
    prepared: PreparedIndex,
    terms: Sequence[str],
    method: str,
    *,
    limit: int | None = None,
    extra: dict[str, float] | None = None,
) -> dict[int, float]:
    """`bm25` (BM25F: field-weighted tf, one length normalisation, Okapi idf) or `tfidf`
    (cosine of sublinear TF-IDF vectors), summed over the postings of the query's terms
    (and `extra` ones, at their weight); only the `limit` best when given."""
    if numpy_suits(prepared, [*terms, *(extra or ())]):
        return top_entries(dense_scores(prepared, terms, method, extra), limit or len(prepared))
    index = prepared.index
    weights = index.bm25 if method == "bm25" else index.tfidf
    doc_ids = index.doc_ids
    scores: dict[int, float] = {}
    for term, factor in query_weights(prepared, terms, method, extra).items():
        for p in index.postings(term):
            doc = doc_ids[p]
            scores[doc] = scores.get(doc, 0.0) + factor * weights[p]
    return best(scores, limit) if limit else scores


def numpy_suits(prepared: PreparedIndex, terms: Sequence[str]) -> bool:
    """Whether this query is better scored with numpy over every tool (see `wants_numpy`)."""
    index = prepared.index
    return wants_numpy(prepared, sum(len(index.postings(term)) for term in set(terms)))


def dense(prepared: PreparedIndex, scale: dict[str, float], method: str) -> Any:
    """The method's score for every tool, as one numpy array (large indexes, and fusion)."""
    import numpy as np

    arrays = prepared.arrays
    doc_ids, weights = arrays["doc_ids"], arrays[method]
    totals = np.zeros(len(prepared), dtype=np.float64)
    for term, factor in scale.items():
        span = prepared.index.postings(term)
        if span:
            window = slice(span.start, span.stop)
            totals[doc_ids[window]] += weights[window] * factor
    return totals


def dense_scores(
    prepared: PreparedIndex,
    terms: Sequence[str],
    method: str,
    extra: dict[str, float] | None = None,
) -> Any:
    return dense(prepared, query_weights(prepared, terms, method, extra), method)


def best(scores: dict[int, float], limit: int) -> dict[int, float]:
    """The `limit` highest scores (all of them when there are no more)."""
    if len(scores) <= limit:
        return scores
    import heapq

    return dict(heapq.nlargest(limit, scores.items(), key=lambda item: item[1]))


def top_entries(scores: Any, limit: int) -> dict[int, float]:
    """The `limit` highest positive entries of a numpy score array, as a dict."""
    import numpy as np

    positive = np.nonzero(scores > 0)[0]
    if len(positive) > limit:
        best = np.argpartition(-scores[positive], limit - 1)[:limit]
        positive = positive[best]
    return dict(zip(positive.tolist(), scores[positive].tolist(), strict=True))


def explain_lexical(
    prepared: PreparedIndex,
    terms: Sequence[str],
    doc: int,
    method: str,
    extra: dict[str, float] | None = None,
) -> list[Contribution]:
    """Split each matching term's contribution to `doc` across the fields it matched in."""
    index = prepared.index
    scale = query_weights(prepared, terms, method, extra)
    weights = index.bm25 if method == "bm25" else index.tfidf
    rows: list[Contribution] = []
    for term, factor in scale.items():
        for p in index.postings(term):
            if index.doc_ids[p] != doc:
                continue
            parts = [w * index.field_tf[i][p] for i, w in enumerate(index.field_weights)]
            total = sum(parts) or 1.0
            value = factor * weights[p]
            rows.extend(
                Contribution(term, field, value * part / total)
                for field, part in zip(FIELD_NAMES, parts, strict=True)
                if part
            )
    return rows


def fuzzy(
    prepared: PreparedIndex, query: str, *, cutoff: float = 60.0, every_string: bool = True
) -> dict[int, float]:
    """rapidfuzz WRatio of the query against names, aliases, tags and hints; best per tool.
    Catches typos and partial names ("raed fle", "db exec"). Without `every_string`, a
    sentence is compared only with the strings sharing a word with it (`ranking.fuzzy`)."""
    return prepared.fuzzy_index.scores(query, cutoff, every_string=every_string)


def fuzzy_over(prepared: PreparedIndex, query: str, candidates: Sequence[int]) -> dict[int, float]:
    """`fuzzy`, but only for the tools at `candidates` (hybrid looks at a few)."""
    from rapidfuzz import fuzz, utils

    strings, owners = prepared.fuzzy_strings
    wanted = set(candidates)
    scores: dict[int, float] = {}
    processed = utils.default_process(query)
    for text, owner in zip(strings, owners, strict=True):
        if owner in wanted:
            value = fuzz.WRatio(processed, utils.default_process(text), score_cutoff=60)
            if value > scores.get(owner, 0.0):
                scores[owner] = value
    return scores


def explain_fuzzy(prepared: PreparedIndex, query: str, doc: int) -> list[Contribution]:
    from rapidfuzz import fuzz, utils

    strings, owners = prepared.fuzzy_strings
    best = max(
        (
            (fuzz.WRatio(query, s, processor=utils.default_process), s)
            for s, o in zip(strings, owners, strict=True)
            if o == doc
        ),
        default=(0.0, ""),
    )
    return [Contribution(best[1], "fuzzy", best[0])] if best[0] else []


def correct_terms(prepared: PreparedIndex, terms: Sequence[str]) -> list[str]:
    """Replace query terms the registry never uses by a vocabulary term one typo away
    (Damerau distance 1; 2 for words of 8+ letters): "raed" -> "read". A longer or shorter
    word ("config" vs "configur") is not a typo and is left alone."""
    vocabulary = prepared.index.vocabulary
    if all(t in vocabulary for t in terms):
        return list(terms)
    from rapidfuzz import process
    from rapidfuzz.distance import OSA

    known = list(vocabulary)
    corrected = []
    for term in terms:
        if term in vocabulary or len(term) < 4:
            corrected.append(term)
            continue
        limit = 2 if len(term) >= 8 else 1
        match = process.extractOne(term, known, scorer=OSA.distance, score_cutoff=limit)
        corrected.append(match[0] if match else term)
    return corrected


def normalise(scores: dict[int, float]) -> dict[int, float]:
    """Divide by the best score, so every method's scores land in (0, 1]."""
    best = max(scores.values(), default=0.0)
    return {doc: value / best for doc, value in scores.items()} if best > 0 else {}


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


#: Tools whose learned decision value is this far below the best's get no learned score
#: (their exp(-distance) would be under 5 %).
LEARNED_CUTOFF = 3.0


def learned(prepared: PreparedIndex, terms: Sequence[str]) -> dict[int, float]:
    """Tool -> exp(decision - best decision) from the learned weights (`ranking.learned`),
    in (0, 1], for the tools within LEARNED_CUTOFF of the best."""
    index = prepared.index
    if not index.learned:
        return {}
    bias = index.lw_bias  # only tools with examples have a model (`learned.fit`)
    decision = {tool: bias[tool] for tool in prepared.learned_tools}
    lw_ptr, lw_tools, lw_weights = index.lw_ptr, index.lw_tools, index.lw_weights
    for position, q in learned_query(prepared, terms).items():
        for p in range(lw_ptr[position], lw_ptr[position + 1]):
            decision[lw_tools[p]] += q * lw_weights[p]
    top = max(decision.values(), default=0.0)
    return {
        tool: math.exp(value - top)
        for tool, value in decision.items()
        if value >= top - LEARNED_CUTOFF
    }
