"""The ranking methods, one table: how each scores a prompt against an index, explains a
tool's score, and what the selection pipeline needs to know of it (its default `--top`,
whether ties keep registry order, whether always-include tools are pinned). `rank_index`
and every surface (CLI, service, MCP, eval) read the table; nothing else branches on the
method."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolsel.ranking import scorers, taught
from toolsel.ranking.lexical import HYBRID_WEIGHTS, candidate_limit, lexical_scores
from toolsel.ranking.options import Method
from toolsel.ranking.prepared import PreparedIndex
from toolsel.ranking.scorers import Contribution
from toolsel.text import fold_name

if TYPE_CHECKING:
    import numpy as np

#: Fuzzy matching and typo correction join hybrid only for queries that look typed by hand
#: (see `looks_typed`): they rescue "raed fle" and "db exec", but on sentences they cost
#: 2-3 NDCG@10 (MetaTool, ToolLens dev splits).
HYBRID_TYPED_MAX_TERMS = 3
#: Fuzzy matching in hybrid looks only at this many lexical candidates (all tools when the
#: lexical methods find nothing), which keeps batch ranking fast on large registries.
HYBRID_FUZZY_CANDIDATES = 50
#: `cc` passes only its this many best tools on, whatever the registry's size: Claude
#: Code's scoring gives points to nearly every tool for a sentence (any name part holding
#: "a" scores), and the pipeline would otherwise walk them all (at 300, `cc` answered
#: ToolLens's dev queries 2.8x slower than `bm25`; at 100, 2.0x).
CC_CANDIDATES = 100


@dataclass(slots=True)
class Scores:
    """One query's raw scores by tool position, and what explaining them needs."""

    raw: dict[int, float]
    match: dict[int, str] = field(default_factory=dict)  # exact matches: how they matched
    cosine: Any = None  # semantic: every tool's cosine
    fusion: tuple[np.ndarray, np.ndarray] | None = None  # fusion: its two scaled parts
    votes: dict[int, float] = field(default_factory=dict)  # what examples added, by tool


ScoreFn = Callable[[PreparedIndex, str, list[str], Any], Scores]
ExplainFn = Callable[[PreparedIndex, str, list[str], int, Scores], list[Contribution]]


@dataclass(frozen=True, slots=True)
class Scorer:
    """One ranking method: `score(prepared, query, terms, vector)` gives raw scores by tool
    position; `explain(prepared, query, terms, doc, scores)` says what made one."""

    score: ScoreFn
    explain: ExplainFn
    default_top: int = 8
    #: ties keep registry order (Claude Code's stable sort) instead of being broken by name
    registry_order: bool = False
    #: always-include tools are offered whatever the prompt (`cc` returns matches only)
    pins_always_include: bool = True


def _cc(prepared: PreparedIndex, query: str, terms: list[str], vector: Any) -> Scores:
    from toolsel.ranking import cc

    matches = cc.search(
        prepared.tools, query, CC_CANDIDATES, index=prepared.cc_index, vectorised=prepared.bulk
    )
    # fast paths return unscored names; give them a score so they sort first
    return Scores(
        {m.index: float(m.score or 1) for m in matches},
        {m.index: m.path for m in matches if m.path != "keyword"},
    )


def _lexical(name: str) -> Scorer:
    """`bm25` or `tfidf` on its own (`scorers.scored`), with what examples add."""

    def score(prepared: PreparedIndex, query: str, terms: list[str], vector: Any) -> Scores:
        found = scorers.scored(prepared, terms, name, limit=candidate_limit(prepared))
        return _with_examples(prepared, terms, Scores(found.normalised()))

    return Scorer(
        score, lambda p, query, terms, doc, s: scorers.explain_lexical(p, terms, doc, name)
    )


def _fuzzy(prepared: PreparedIndex, query: str, terms: list[str], vector: Any) -> Scores:
    found = scorers.fuzzy(prepared, query, every_string=False)
    limit = candidate_limit(prepared)
    return Scores(scorers.best(found, limit) if limit else found)


def _semantic(prepared: PreparedIndex, query: str, terms: list[str], vector: Any) -> Scores:
    from toolsel.ranking import semantic

    cosine = semantic.cosines(prepared, _vector(query, vector))
    return Scores(scorers.top_entries(cosine, semantic.CANDIDATES), cosine=cosine)


def _fusion(prepared: PreparedIndex, query: str, terms: list[str], vector: Any) -> Scores:
    """Cosine and BM25 fused; a prompt that is a tool's name typed by hand ("raed fle": a few
    words, one the registry never uses, and as a whole at least FUSION_NAME_LIKENESS alike
    to a tool's name) is scored as `hybrid` scores it, with typo correction and fuzzy names,
    since an embedding of a misspelt name means nothing; so is a prompt the English-only
    model does not read (`embed.model.reads`). A short prompt that is not a name ("free
    version or paid?") stays with the embeddings."""
    if looks_typed(prepared, terms) and names_a_tool(prepared, query):
        return _hybrid(prepared, query, terms)
    from toolsel.embed.model import reads

    if not reads(query):  # the model is English-only: another language embeds as noise
        return _hybrid(prepared, query, terms)
    from toolsel.ranking import semantic

    parts, evidence = semantic.fusion_parts(prepared, _vector(query, vector), terms)
    if looks_typed(prepared, terms) or not evidence.any():
        # hybrid's fuzzy name matches are evidence too: fusion keeps every tool hybrid finds
        evidence[list(_hybrid(prepared, query, terms).raw)] = True
    scores = _with_examples(prepared, terms, Scores(semantic.fused(parts, evidence), fusion=parts))
    _exact_first(prepared, query, scores)
    return scores


def _vector(query: str, vector: Any) -> Any:
    if vector is not None:
        return vector
    from toolsel.ranking import semantic

    return semantic.query_vector(query)


def _with_examples(prepared: PreparedIndex, terms: list[str], scores: Scores) -> Scores:
    """Add what the examples say to the method's own normalised scores (normalised as an
    index without examples normalises them, so no other tool moves): the learned
    weights' scores (`taught.learned`, times `PreparedIndex.learned_weight`), or, where
    nothing was learned (a registry over `learned.BUDGET`), the nearest examples' votes
    (`taught.example_votes`, max-normalised, times `PreparedIndex.vote_weight`)."""
    index = prepared.index
    if not index.example_count or not terms:
        return scores
    extra: dict[int, float] = {}
    if index.learned:
        weight = prepared.learned_weight
        extra = {doc: weight * value for doc, value in taught.learned(prepared, terms).items()}
    elif prepared.vote_weight:
        votes = taught.example_votes(prepared, terms)
        top = max(votes.values(), default=0.0)
        extra = {doc: prepared.vote_weight * value / top for doc, value in votes.items()}
    if not extra:
        return scores
    combined = dict(scores.raw)  # already normalised, as an index without examples would
    for doc, value in extra.items():
        combined[doc] = combined.get(doc, 0.0) + value
    scores.raw = combined
    scores.votes = extra
    return scores


def _hybrid(prepared: PreparedIndex, query: str, terms: list[str], vector: Any = None) -> Scores:
    """BM25 and TF-IDF, max-normalised and averaged; fuzzy matching and typo correction for
    queries that look typed by hand; exact name or alias matches first."""
    typed = looks_typed(prepared, terms)
    lexical_terms = scorers.correct_terms(prepared, terms) if typed else terms
    lexical, matched = lexical_scores(prepared, lexical_terms)
    voted = _with_examples(prepared, lexical_terms, Scores(lexical))
    combined = voted.raw
    if typed or not matched:  # what an index without examples matched
        with_examples = prepared.taught_tools
        plain = sorted((d for d in combined if d not in with_examples), key=lambda d: -combined[d])
        shown = sorted((d for d in combined if d in with_examples), key=lambda d: -combined[d])
        candidates = [*plain[:HYBRID_FUZZY_CANDIDATES], *shown[:HYBRID_FUZZY_CANDIDATES]]
        fuzzy = (
            scorers.fuzzy_over(prepared, query, candidates)
            if matched
            else scorers.fuzzy(prepared, query)
        )
        for doc, value in fuzzy.items():
            combined[doc] = combined.get(doc, 0.0) + HYBRID_WEIGHTS["fuzzy"] * value / 100.0
    scores = Scores(combined, votes=voted.votes)
    _exact_first(prepared, query, scores)
    return scores


def _exact_first(prepared: PreparedIndex, query: str, scores: Scores) -> None:
    """An exact name or alias match ranks first."""
    for doc, kind in exact_matches(prepared, query).items():
        scores.raw[doc] = max(scores.raw.values(), default=0.0) + 1.0
        scores.match[doc] = kind


#: How alike (rapidfuzz ratio, 0..100) a typed prompt and a tool's name (as words) must be
#: for `fusion` to score the prompt as a name (see `_fusion`): "raed fle" and read_file are
#: 82 alike; "free version or paid" and the nearest name in the currency registry, 48.
FUSION_NAME_LIKENESS = 75.0


def names_a_tool(prepared: PreparedIndex, query: str) -> bool:
    """Whether the prompt, as a whole, is nearly some tool's name or alias (split into
    words), the way a name typed by hand is."""
    from rapidfuzz import fuzz, process

    from toolsel.text import split_name

    names = [" ".join(split_name(n)) for t in prepared.tools for n in (t.name, *t.aliases)]
    found = process.extractOne(
        query.strip().lower(), names, scorer=fuzz.ratio, score_cutoff=FUSION_NAME_LIKENESS
    )
    return found is not None


def looks_typed(prepared: PreparedIndex, terms: list[str]) -> bool:
    """A short query (3 terms or fewer) with a term the registry never uses: a typed,
    possibly misspelt or abbreviated tool name rather than a sentence."""
    return 0 < len(terms) <= HYBRID_TYPED_MAX_TERMS and any(
        t not in prepared.plain_vocabulary for t in terms
    )


def exact_matches(prepared: PreparedIndex, query: str) -> dict[int, str]:
    """Tools whose name or alias equals the query, ignoring case and separators."""
    folded = fold_name(query.strip())
    if not folded:
        return {}
    return dict(prepared.folded_names.get(folded, ()))


# -- explaining a score ------------------------------------------------------------------


def _explain_semantic(
    prepared: PreparedIndex, query: str, terms: list[str], doc: int, scores: Scores
) -> list[Contribution]:
    from toolsel.ranking import semantic

    if scores.fusion is not None:
        return semantic.explain_fusion(prepared, terms, doc, scores.fusion)
    if scores.cosine is None:  # fusion of a typed prompt, scored as hybrid scores it
        return _explain_hybrid(prepared, query, terms, doc, scores)
    return [Contribution("embedding", "cosine", float(scores.cosine[doc]))]


def _explain_hybrid(
    prepared: PreparedIndex, query: str, terms: list[str], doc: int, scores: Scores
) -> list[Contribution]:
    from toolsel.ranking.synonyms import expansions, sources

    typed = looks_typed(prepared, terms)
    used = scorers.correct_terms(prepared, terms) if typed else terms
    vocabulary = prepared.index.vocabulary
    lexical = scorers.explain_lexical(
        prepared,
        used,
        doc,
        "bm25",
        expansions(used, vocabulary, prepared.index.bm25_idf),
        sources(used, vocabulary),
    )
    # fuzzy matching took part only for typed queries (or when nothing matched lexically)
    return (
        lexical + scorers.explain_fuzzy(prepared, query, doc) if typed or not lexical else lexical
    )


def explain(
    prepared: PreparedIndex, query: str, terms: list[str], doc: int, method: Method, scores: Scores
) -> list[Contribution]:
    """What made tool `doc`'s score: the method's own reasons, then the examples' (the
    nearest one quoted, or the query's learned words)."""
    found = SCORERS[method].explain(prepared, query, terms, doc, scores)
    if doc in scores.votes:  # matched through examples: quote the nearest one
        found += _explain_examples(prepared, terms, doc, scores.votes[doc])
    return found


def _explain_examples(
    prepared: PreparedIndex, terms: list[str], doc: int, value: float
) -> list[Contribution]:
    """The nearest example that shares a word with the query, quoted; else the query's words
    whose learned weights speak for the tool (`prod (learned)`); else nothing (the tool's
    learned score came from no word of the query)."""
    nearest = taught.nearest_example(prepared, terms, doc)
    if nearest is not None:
        return [Contribution(f'"{prepared.index.example_texts[nearest]}"', "example", value)]
    if not prepared.index.learned:
        return []
    return [
        Contribution(word, "learned", value * share)
        for word, share in taught.learned_words(prepared, terms, doc)
    ]


#: Every ranking method. `set(SCORERS) == set(Method)`, which a test keeps so.
SCORERS: dict[Method, Scorer] = {
    Method.HYBRID: Scorer(_hybrid, _explain_hybrid),
    Method.TFIDF: _lexical("tfidf"),
    Method.BM25: _lexical("bm25"),
    Method.FUZZY: Scorer(_fuzzy, lambda p, query, t, doc, s: scorers.explain_fuzzy(p, query, doc)),
    # Claude Code's points: the match kind already says it
    Method.CC: Scorer(
        _cc, lambda *_: [], default_top=5, registry_order=True, pins_always_include=False
    ),
    Method.SEMANTIC: Scorer(_semantic, _explain_semantic),  # EMBEDDING_METHODS: need
    Method.FUSION: Scorer(_fusion, _explain_semantic),  # toolsel[embed]
}


def score(
    prepared: PreparedIndex, query: str, terms: list[str], method: Method, vector: Any = None
) -> Scores:
    """The method's raw scores by tool position."""
    return SCORERS[method].score(prepared, query, terms, vector)


def default_top(method: Method) -> int:
    """How many tools `method` offers unless told: 5 for `cc` (Claude Code's default), 8
    for the others (`auto`: the method it stands for)."""
    from toolsel.ranking.options import resolve

    return SCORERS[resolve(method)[0]].default_top
