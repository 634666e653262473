"""The scoring methods. Each returns {tool position: raw score} for scores above zero, and
can explain a tool's score as (term, field, contribution) rows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toolsel.ranking.fields import FIELD_NAMES, FIELD_WEIGHTS
from toolsel.ranking.index import RankIndex

#: Indexes with at least this many postings are scored with numpy; smaller ones in pure
#: Python, so ranking a small registry never pays numpy's import.
NUMPY_MIN_POSTINGS = 50_000  # same threshold as the npz cache (ranking.store)


@dataclass(frozen=True, slots=True)
class Contribution:
    term: str
    field: str
    value: float


def _accumulate(
    index: RankIndex, terms: Sequence[str], weights: Sequence[float], scale: dict[str, float]
) -> dict[int, float]:
    """Sum, over query terms, each posting's weight times the term's query weight."""
    if len(index.doc_ids) >= NUMPY_MIN_POSTINGS:
        return _accumulate_numpy(index, terms, weights, scale)
    scores: dict[int, float] = {}
    doc_ids = index.doc_ids
    for term in terms:
        factor = scale[term]
        for p in index.postings(term):
            doc = doc_ids[p]
            scores[doc] = scores.get(doc, 0.0) + factor * weights[p]
    return scores


def _accumulate_numpy(
    index: RankIndex, terms: Sequence[str], weights: Sequence[float], scale: dict[str, float]
) -> dict[int, float]:
    import numpy as np

    arrays = index.numpy()
    doc_ids = arrays["doc_ids"]
    weight_array = arrays["bm25"] if weights is index.bm25 else arrays["tfidf"]
    totals = np.zeros(len(index), dtype=np.float64)
    for term in terms:
        span = index.postings(term)
        if span:
            sl = slice(span.start, span.stop)
            totals[doc_ids[sl]] += weight_array[sl] * scale[term]
    nonzero = np.nonzero(totals > 0)[0]
    return dict(zip(nonzero.tolist(), totals[nonzero].tolist(), strict=True))


def bm25(index: RankIndex, terms: Sequence[str]) -> dict[int, float]:
    """BM25F: field-weighted term frequencies, one length normalisation, Okapi idf."""
    counts = Counter(t for t in terms if t in index.vocabulary)
    return _accumulate(index, list(counts), index.bm25, {t: float(n) for t, n in counts.items()})


def tfidf(index: RankIndex, terms: Sequence[str]) -> dict[int, float]:
    """Cosine between the query's sublinear TF-IDF vector and each tool's (both l2-normed)."""
    import math

    counts = Counter(t for t in terms if t in index.vocabulary)
    if not counts:
        return {}
    query = {t: (1 + math.log(n)) * index.idf[index.vocabulary[t]] for t, n in counts.items()}
    norm = math.sqrt(sum(v * v for v in query.values())) or 1.0
    return _accumulate(index, list(query), index.tfidf, {t: v / norm for t, v in query.items()})


def explain_lexical(
    index: RankIndex, terms: Sequence[str], doc: int, method: str
) -> list[Contribution]:
    """Split each matching term's contribution to `doc` across the fields it matched in."""
    import math

    counts = Counter(t for t in terms if t in index.vocabulary)
    scale: dict[str, float] = {t: float(n) for t, n in counts.items()}
    weights = index.bm25
    if method == "tfidf":
        query = {t: (1 + math.log(n)) * index.idf[index.vocabulary[t]] for t, n in counts.items()}
        norm = math.sqrt(sum(v * v for v in query.values())) or 1.0
        scale = {t: v / norm for t, v in query.items()}
        weights = index.tfidf
    rows: list[Contribution] = []
    for term in counts:
        for p in index.postings(term):
            if index.doc_ids[p] != doc:
                continue
            field_tf = [index.field_tf[f][p] for f in range(len(FIELD_NAMES))]
            weighted = [FIELD_WEIGHTS[f] * c for f, c in zip(FIELD_NAMES, field_tf, strict=True)]
            total = sum(weighted) or 1.0
            value = scale[term] * weights[p]
            for field, part in zip(FIELD_NAMES, weighted, strict=True):
                if part:
                    rows.append(Contribution(term, field, value * part / total))
    return rows


def fuzzy_strings(index: RankIndex) -> tuple[list[str], list[int]]:
    """The short strings fuzzy matching looks at (name words, display name, aliases, tags,
    search hint), each with the position of its tool."""
    from toolsel.text import split_name

    cached = index.__dict__.get("_fuzzy_strings")
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    strings: list[str] = []
    owners: list[int] = []
    for position, tool in enumerate(index.tools):
        for text in (
            " ".join(split_name(tool.name)),
            tool.display_name,
            *tool.aliases,
            *tool.tags,
            tool.search_hint,
        ):
            if text:
                strings.append(text)
                owners.append(position)
    index.__dict__["_fuzzy_strings"] = (strings, owners)
    return strings, owners


def fuzzy(index: RankIndex, query: str, *, cutoff: float = 60.0) -> dict[int, float]:
    """rapidfuzz WRatio of the query against names, aliases, tags and hints; best per tool.
    Catches typos and partial names ("raed fle", "db exec")."""
    from rapidfuzz import fuzz, process, utils

    strings, owners = fuzzy_strings(index)
    scores: dict[int, float] = {}
    for _, score, key in process.extract(
        query,
        strings,
        scorer=fuzz.WRatio,
        processor=utils.default_process,
        limit=None,
        score_cutoff=cutoff,
    ):
        owner = owners[key]
        if score > scores.get(owner, 0.0):
            scores[owner] = score
    return scores


def explain_fuzzy(index: RankIndex, query: str, doc: int) -> list[Contribution]:
    from rapidfuzz import fuzz, utils

    strings, owners = fuzzy_strings(index)
    best = max(
        (
            (fuzz.WRatio(query, s, processor=utils.default_process), s)
            for s, o in zip(strings, owners, strict=True)
            if o == doc
        ),
        default=(0.0, ""),
    )
    return [Contribution(best[1], "fuzzy", best[0])] if best[0] else []


def correct_terms(index: RankIndex, terms: Sequence[str]) -> list[str]:
    """Replace query terms the registry never uses by a vocabulary term one typo away
    (Damerau distance 1; 2 for words of 8+ letters): "raed" -> "read". A longer or shorter
    word ("config" vs "configur") is not a typo and is left alone."""
    if all(t in index.vocabulary for t in terms):
        return list(terms)
    from rapidfuzz import process
    from rapidfuzz.distance import OSA

    vocabulary = list(index.vocabulary)
    corrected = []
    for term in terms:
        if term in index.vocabulary or len(term) < 4:
            corrected.append(term)
            continue
        limit = 2 if len(term) >= 8 else 1
        match = process.extractOne(term, vocabulary, scorer=OSA.distance, score_cutoff=limit)
        corrected.append(match[0] if match else term)
    return corrected


def normalise(scores: dict[int, float]) -> dict[int, float]:
    """Divide by the best score, so every method's scores land in (0, 1]."""
    best = max(scores.values(), default=0.0)
    return {doc: value / best for doc, value in scores.items()} if best > 0 else {}


# -- large indexes: numpy arrays over every tool, then only the best candidates ---------


def is_large(index: RankIndex) -> bool:
    return len(index.doc_ids) >= NUMPY_MIN_POSTINGS


def dense(index: RankIndex, terms: Sequence[str], method: str) -> Any:
    """The method's (`bm25` or `tfidf`) score for every tool, as one numpy array."""
    import math

    import numpy as np

    counts = Counter(t for t in terms if t in index.vocabulary)
    if method == "bm25":
        scale = {t: float(n) for t, n in counts.items()}
    else:
        query = {t: (1 + math.log(n)) * index.idf[index.vocabulary[t]] for t, n in counts.items()}
        norm = math.sqrt(sum(v * v for v in query.values())) or 1.0
        scale = {t: v / norm for t, v in query.items()}
    arrays = index.numpy()
    totals = np.zeros(len(index), dtype=np.float64)
    for term, factor in scale.items():
        span = index.postings(term)
        if span:
            sl = slice(span.start, span.stop)
            totals[arrays["doc_ids"][sl]] += arrays[method][sl] * factor
    return totals


def top_entries(scores: Any, limit: int) -> dict[int, float]:
    """The `limit` highest positive entries of a numpy score array, as a dict."""
    import numpy as np

    positive = np.nonzero(scores > 0)[0]
    if len(positive) > limit:
        best = np.argpartition(-scores[positive], limit - 1)[:limit]
        positive = positive[best]
    return dict(zip(positive.tolist(), scores[positive].tolist(), strict=True))
