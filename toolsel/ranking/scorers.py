"""The lexical and fuzzy scoring methods. Each returns {tool position: raw score} for
scores above zero, and can explain a tool's score as (term, field, contribution) rows.
What examples say beside them (votes, the learned classifier) is in `taught`.

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
from toolsel.ranking.taught import example_similarity


@dataclass(frozen=True, slots=True)
class Contribution:
    term: str
    field: str
    value: float
    #: the prompt's term this one stands in for (a synonym or related word the prompt did
    #: not say: `meeting` for `event`), None when the prompt said it
    via: str | None = None


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


@dataclass(frozen=True, slots=True)
class Lexical:
    """One method's scores for one prompt. `scores` hold what examples add to the tools they
    name (gated, `taught_gates`); `scale` and `base` are what an index without examples
    would have: the best score without any example's part, and the tools matched without
    them. Normalising by `scale` leaves every tool without examples exactly where an index
    without examples puts it."""

    scores: dict[int, float]
    scale: float
    base: frozenset[int]

    def normalised(self) -> dict[int, float]:
        """Divided by `scale`; a tool with examples at most TAUGHT_CAP. Where no tool
        matched without examples, divided by the best (examples alone reach 1)."""
        scale = self.scale if self.scale > 0 else max(self.scores.values(), default=0.0)
        if scale <= 0:
            return {}
        return {d: min(v / scale, TAUGHT_CAP) for d, v in self.scores.items() if v > 0}


#: The most a tool's normalised lexical score reaches with what its examples add: twice
#: the best without them. Dividing by the best score *without* examples keeps the others
#: where they were, but a prompt that barely matches any tool's own words would otherwise
#: lift a tool its examples match a thousandfold.
TAUGHT_CAP = 2.0


def scaled(values: Any, scale: float) -> Any:
    """`Lexical.normalised` for a numpy array of every tool's scores."""
    import numpy as np

    top = scale if scale > 0 else float(values.max(initial=0.0))
    return np.minimum(values / top, TAUGHT_CAP) if top > 0 else np.zeros_like(values)


def scored(
    prepared: PreparedIndex,
    terms: Sequence[str],
    method: str,
    *,
    limit: int | None = None,
    extra: dict[str, float] | None = None,
) -> Lexical:
    """`bm25` (BM25F: field-weighted tf, one length normalisation, Okapi idf) or `tfidf`
    (cosine of sublinear TF-IDF vectors), summed over the postings of the query's terms
    (and `extra` ones, at their weight); only the `limit` best when given; with what
    normalising needs (`Lexical`)."""
    if numpy_suits(prepared, [*terms, *(extra or ())]):
        import numpy as np

        plain, gains = dense_parts(prepared, terms, method, extra)
        taught = prepared.taught_tools
        kept = top_entries_each(plain + gains, limit or len(prepared), taught)
        matched = frozenset(np.nonzero(plain > 0)[0].tolist())
        return Lexical(kept, float(plain.max(initial=0.0)), matched)
    index = prepared.index
    weights = index.bm25 if method == "bm25" else index.tfidf
    taught_weights = (index.bm25_taught if method == "bm25" else index.tfidf_taught) or weights
    gates = taught_gates(prepared, terms) if index.taught else {}
    doc_ids = index.doc_ids
    base: dict[int, float] = {}
    scores: dict[int, float] = {}
    for term, factor in query_weights(prepared, terms, method, extra).items():
        for p in index.postings(term):
            doc = doc_ids[p]
            base[doc] = base.get(doc, 0.0) + factor * weights[p]
            gate = gates.get(doc, 0.0)
            gain = gate * (taught_weights[p] - weights[p]) if gate else 0.0
            scores[doc] = scores.get(doc, 0.0) + factor * (weights[p] + gain)
    kept = best_each(scores, limit, prepared.taught_tools) if limit else scores
    return Lexical(
        kept, max(base.values(), default=0.0), frozenset(d for d, v in base.items() if v > 0)
    )


def best_each(scores: dict[int, float], limit: int, taught: frozenset[int]) -> dict[int, float]:
    """The `limit` best of the tools without examples, and the `limit` best of those with:
    which tools without examples are kept never depends on what examples add."""
    if not taught:
        return best(scores, limit)
    plain = best({d: v for d, v in scores.items() if d not in taught}, limit)
    return {**plain, **best({d: v for d, v in scores.items() if d in taught}, limit)}


def top_entries_each(scores: Any, limit: int, taught: frozenset[int]) -> dict[int, float]:
    """`top_entries`, kept apart as `best_each` keeps them."""
    if not taught:
        return top_entries(scores, limit)
    import numpy as np

    mask = np.zeros(len(scores), dtype=bool)
    mask[list(taught)] = True
    plain = top_entries(np.where(mask, 0.0, scores), limit)
    return {**plain, **top_entries(np.where(mask, scores, 0.0), limit)}


#: How near a prompt must be to one of a tool's examples for the examples' words to count
#: in full: the gain they add is scaled by (the share of the prompt's weight one example
#: holds) to this power, times (1 - `PreparedIndex.confidence`), so a prompt that shares a
#: common word with an example gains little, and one that says what an example says gains
#: all. Where examples cover the whole registry the gain counts in full: there is no tool
#: without examples for it to push down.
GATE_POWER = 2.0


def taught_gates(prepared: PreparedIndex, terms: Sequence[str]) -> dict[int, float]:
    """Tool -> how much of what its examples add to its lexical score counts for this
    prompt (0..1): `example_similarity` to GATE_POWER x (1 - confidence)."""
    power = GATE_POWER * (1.0 - prepared.confidence)
    return {
        tool: share**power
        for tool, share in example_similarity(prepared, terms).items()
        if share > 0
    }


def numpy_suits(prepared: PreparedIndex, terms: Sequence[str]) -> bool:
    """Whether this query is better scored with numpy over every tool (see `wants_numpy`)."""
    index = prepared.index
    return wants_numpy(prepared, sum(len(index.postings(term)) for term in set(terms)))


def dense_parts(
    prepared: PreparedIndex,
    terms: Sequence[str],
    method: str,
    extra: dict[str, float] | None = None,
) -> tuple[Any, Any]:
    """(every tool's score without examples' parts, what its examples add, scaled by its
    gate) as numpy arrays (large indexes, and fusion)."""
    import numpy as np

    arrays = prepared.arrays
    doc_ids, weights = arrays["doc_ids"], arrays[method]
    taught = arrays[f"{method}_taught"] if prepared.index.taught else None
    totals = np.zeros(len(prepared), dtype=np.float64)
    gains = np.zeros(len(prepared), dtype=np.float64)
    for term, factor in query_weights(prepared, terms, method, extra).items():
        span = prepared.index.postings(term)
        if span:
            window = slice(span.start, span.stop)
            docs = doc_ids[window]
            totals[docs] += weights[window] * factor
            if taught is not None:
                gains[docs] += (taught[window] - weights[window]) * factor
    if taught is not None:
        gates = np.zeros(len(prepared), dtype=np.float64)
        for tool, gate in taught_gates(prepared, terms).items():
            gates[tool] = gate
        gains *= gates
    return totals, gains


def dense_scores(
    prepared: PreparedIndex,
    terms: Sequence[str],
    method: str,
    extra: dict[str, float] | None = None,
) -> Any:
    """Every tool's score with what its examples add (`dense_parts`, summed)."""
    base, gains = dense_parts(prepared, terms, method, extra)
    return base + gains


def best(scores: dict[int, float], limit: int) -> dict[int, float]:
    """The `limit` highest scores (all of them when there are no more)."""
    if len(scores) <= limit:
        return scores
    import heapq

    # ties at the boundary go to the lower tool index, so which tools are kept never
    # depends on the order the scores were summed in
    return dict(heapq.nlargest(limit, scores.items(), key=lambda item: (item[1], -item[0])))


def top_entries(scores: Any, limit: int) -> dict[int, float]:
    """The `limit` highest positive entries of a numpy score array, as a dict."""
    import numpy as np

    positive = np.nonzero(scores > 0)[0]
    if len(positive) > limit:
        values = scores[positive]
        kth = values[np.argpartition(-values, limit - 1)[limit - 1]]
        above = positive[values > kth]  # ties at the boundary go to the lower tool index
        tied = positive[values == kth][: limit - len(above)]
        positive = np.concatenate([above, tied])
    return dict(zip(positive.tolist(), scores[positive].tolist(), strict=True))


def explain_lexical(
    prepared: PreparedIndex,
    terms: Sequence[str],
    doc: int,
    method: str,
    extra: dict[str, float] | None = None,
    via: dict[str, str] | None = None,
) -> list[Contribution]:
    """Split each matching term's contribution to `doc` across the fields it matched in;
    a term of `extra` (an alternative the prompt did not say) names its prompt term
    (`via`)."""
    index = prepared.index
    said = set(terms)
    via = via or {}
    scale = query_weights(prepared, terms, method, extra)
    weights = index.bm25 if method == "bm25" else index.tfidf
    taught = (index.bm25_taught if method == "bm25" else index.tfidf_taught) or weights
    gate = taught_gates(prepared, terms).get(doc, 0.0) if index.taught else 0.0
    rows: list[Contribution] = []
    for term, factor in scale.items():
        for p in index.postings(term):
            if index.doc_ids[p] != doc:
                continue
            parts = [w * index.field_tf[i][p] for i, w in enumerate(index.field_weights)]
            total = sum(parts) or 1.0
            value = factor * (weights[p] + gate * (taught[p] - weights[p]))
            source = None if term in said else via.get(term)
            rows.extend(
                Contribution(term, field, value * part / total, source)
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
    vocabulary = prepared.plain_vocabulary
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
