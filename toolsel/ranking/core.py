"""`rank_index`: score a prompt against a registry's index, then apply the selection
pipeline.

Pipeline, after scoring: category/tag filters, drop deprecated tools (naming the
replacement), the permission gate (listing what it blocks), conflict resolution (a
higher-ranked tool excludes the tools it conflicts with), always-include tools set apart,
then `--top`, `--min-score` and `--min-strength` on the ranked tools. Ties are broken by
name, so the same input always gives the same output.
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolsel.errors import RegistryError, UsageError
from toolsel.ranking import scorers
from toolsel.ranking.fields import tokens
from toolsel.ranking.index import RankIndex, ToolMeta
from toolsel.ranking.options import Method
from toolsel.ranking.prepared import PreparedIndex, prepare
from toolsel.ranking.scorers import Contribution
from toolsel.registry.permission import Permission
from toolsel.text import fold_name, split_name

if TYPE_CHECKING:
    import numpy as np

#: Hybrid = these weights on each method's max-normalised score (chosen on the dev splits;
#: see benchmarks/quality.py and the README's quality table).
HYBRID_WEIGHTS = {"bm25": 0.5, "tfidf": 0.5, "fuzzy": 0.15}
#: Fuzzy matching and typo correction join hybrid only for queries that look typed by hand
#: (see `looks_typed`): they rescue "raed fle" and "db exec", but on sentences they cost
#: 2-3 NDCG@10 (MetaTool, ToolLens dev splits).
HYBRID_TYPED_MAX_TERMS = 3
#: Fuzzy matching in hybrid looks only at this many lexical candidates (all tools when the
#: lexical methods find nothing), which keeps batch ranking fast on large registries.
HYBRID_FUZZY_CANDIDATES = 50
#: On large registries only this many best-scoring tools go through the selection pipeline.
LARGE_CANDIDATES = 300
DEFAULT_TOP = 8


@dataclass(frozen=True, slots=True)
class RankOptions:
    method: Method = Method.HYBRID
    top: int = DEFAULT_TOP
    permission: Permission | None = None
    categories: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    include_deprecated: bool = False
    min_score: float = 0.0
    min_strength: float = 0.0
    explain: bool = False
    pin_always_include: bool = True  # False: always-include tools compete on score (eval)


@dataclass(frozen=True, slots=True)
class RankedTool:
    name: str
    score: float  # 0..1, relative to the best match
    raw: float  # the method's own score (BM25 units, cosine, WRatio, Claude Code points)
    category: str | None
    permission: str
    match: str  # how it was chosen: exact-name | alias | mcp-prefix | always-include | match
    contributions: tuple[Contribution, ...] = ()
    always_include: bool = False
    #: 0..1, absolute: how much of the prompt this tool matches (see `strength`), so a weak
    #: best match is told apart from a strong one although both score 1.0
    strength: float = 0.0


@dataclass(frozen=True, slots=True)
class Deprecated:
    name: str
    replaced_by: str | None
    score: float


@dataclass(frozen=True, slots=True)
class Blocked:
    name: str
    needs: str  # the permission the tool needs, above the caller's
    score: float


@dataclass(frozen=True, slots=True)
class Excluded:
    name: str
    conflicts_with: str  # the higher-ranked tool it conflicts with
    score: float


#: A best match at or above this strength is a strong match; below it, output says that
#: nothing matches the prompt well.
STRONG_MATCH = 0.5


@dataclass(frozen=True, slots=True)
class RankResult:
    query: str
    method: str
    results: tuple[RankedTool, ...]  # the ranked tools, best first, at most `--top`
    blocked: tuple[Blocked, ...] = ()
    excluded: tuple[Excluded, ...] = ()
    deprecated: tuple[Deprecated, ...] = ()
    terms: tuple[str, ...] = field(default=())
    #: `always_include` tools not in `results`: offered whatever the prompt, not counted in
    #: `--top` (one that ranks in the top is in `results`, at its rank)
    always: tuple[RankedTool, ...] = ()

    @property
    def strong(self) -> bool:
        """Whether the best ranked tool matches the prompt well (an absolute signal)."""
        return bool(self.results) and self.results[0].strength >= STRONG_MATCH

    @property
    def offered(self) -> tuple[str, ...]:
        """Every tool an agent is offered: the always-include tools, then the ranked ones."""
        return tuple(t.name for t in (*self.always, *self.results))


@dataclass(slots=True)
class Scores:
    """One query's raw scores by tool position, and what explaining them needs."""

    raw: dict[int, float]
    match: dict[int, str] = field(default_factory=dict)  # exact matches: how they matched
    cosine: Any = None  # semantic: every tool's cosine
    fusion: tuple[np.ndarray, np.ndarray] | None = None  # fusion: its two scaled parts
    votes: dict[int, float] = field(default_factory=dict)  # what examples added, by tool


def validate(index: RankIndex | PreparedIndex, query: str, options: RankOptions) -> None:
    if not query.strip():
        raise UsageError(
            "the prompt is empty", hint='give a prompt, e.g. toolsel rank "read a file"'
        )
    if options.top < 1:
        raise UsageError(f"--top must be at least 1, got {options.top}")
    if not 0.0 <= options.min_score <= 1.0:
        raise UsageError(f"--min-score must be between 0 and 1, got {options.min_score}")
    if not 0.0 <= options.min_strength <= 1.0:
        raise UsageError(f"--min-strength must be between 0 and 1, got {options.min_strength}")
    if not len(index):
        raise RegistryError("the registry has no tools", hint="add entries under `tools:`")
    if options.categories or options.tags:
        prepared = prepare(index)
        _known("--category", options.categories, prepared.category_names)
        _known("--tag", options.tags, prepared.tag_names)


def _known(option: str, given: Sequence[str], known: frozenset[str]) -> None:
    """A filter naming a category or tag no tool has would silently select nothing."""
    for value in given:
        if value not in known:
            from toolsel.suggest import did_you_mean

            choices = ", ".join(sorted(known)[:12]) or "none"
            raise UsageError(
                f"{option} {value!r}: no tool has it{did_you_mean(value, sorted(known))}",
                hint=f"known: {choices}",
            )


def rank_index(
    index: RankIndex | PreparedIndex,
    query: str,
    options: RankOptions | None = None,
    *,
    query_vector: Any = None,
) -> RankResult:
    """Rank the tools of `index` for `query` (the query path: no registry, no scikit-learn).
    Pass a `PreparedIndex` to rank many queries; `query_vector` is the prompt's embedding
    when it was computed up front (`semantic`, `fusion`)."""
    options = options or RankOptions()
    prepared = prepare(index)
    validate(prepared, query, options)
    terms = tokens(query)
    scores = score(prepared, query, terms, options.method, query_vector)
    normalised = scorers.normalise(scores.raw)
    kept, dropped = _filter(
        prepared, _order(prepared, normalised, options.method), normalised, options
    )
    always = _always(prepared, kept, options)
    build = functools.partial(_build, prepared, query, terms, scores, normalised, options)
    results = build(kept, always=False)
    shown = {r.name for r in results}
    return RankResult(
        query=query,
        method=options.method.value,
        results=results,
        always=build([d for d in always if prepared.tools[d].name not in shown], always=True),
        blocked=tuple(d for d in dropped if isinstance(d, Blocked)),
        excluded=tuple(d for d in dropped if isinstance(d, Excluded)),
        deprecated=tuple(d for d in dropped if isinstance(d, Deprecated)),
        terms=tuple(terms),
    )


# -- scoring ---------------------------------------------------------------------------


def score(
    prepared: PreparedIndex, query: str, terms: list[str], method: Method, vector: Any = None
) -> Scores:
    """The method's raw scores by tool position."""
    if method is Method.CC:
        from toolsel.ranking import cc

        matches = cc.search(prepared.tools, query, len(prepared), rows=prepared.cc_rows)
        # fast paths return unscored names; give them a score so they sort first
        return Scores(
            {m.index: float(m.score or 1) for m in matches},
            {m.index: m.path for m in matches if m.path != "keyword"},
        )
    if method in (Method.BM25, Method.TFIDF):
        lexical = scorers.lexical(prepared, terms, method.value, limit=_limit(prepared))
        return _with_examples(prepared, terms, Scores(lexical))
    if method is Method.FUZZY:
        return Scores(scorers.fuzzy(prepared, query))
    if method in (Method.SEMANTIC, Method.FUSION):
        return _embedding_scores(prepared, query, terms, method, vector)
    return _hybrid(prepared, query, terms)


def _with_examples(prepared: PreparedIndex, terms: list[str], scores: Scores) -> Scores:
    """Add what the examples say to the method's own max-normalised scores: the learned
    weights' scores (`scorers.learned`, times `PreparedIndex.learned_weight`), or, where
    nothing was learned (a registry over `learned.BUDGET`), the nearest examples' votes
    (`scorers.example_votes`, max-normalised, times `PreparedIndex.vote_weight`)."""
    index = prepared.index
    if not index.example_count or not terms:
        return scores
    extra: dict[int, float] = {}
    if index.learned:
        weight = prepared.learned_weight
        extra = {doc: weight * value for doc, value in scorers.learned(prepared, terms).items()}
    elif prepared.vote_weight:
        votes = scorers.example_votes(prepared, terms)
        top = max(votes.values(), default=0.0)
        extra = {doc: prepared.vote_weight * value / top for doc, value in votes.items()}
    if not extra:
        return scores
    combined = scorers.normalise(scores.raw)
    for doc, value in extra.items():
        combined[doc] = combined.get(doc, 0.0) + value
    scores.raw = combined
    scores.votes = extra
    return scores


def _embedding_scores(
    prepared: PreparedIndex, query: str, terms: list[str], method: Method, vector: Any
) -> Scores:
    from toolsel.ranking import semantic

    if vector is None:
        vector = semantic.query_vector(query)
    if method is Method.SEMANTIC:
        cosine = semantic.cosines(prepared, vector)
        return Scores(scorers.top_entries(cosine, semantic.CANDIDATES), cosine=cosine)
    parts = semantic.fusion_parts(prepared, vector, terms)
    scores = _with_examples(prepared, terms, Scores(semantic.fused(parts), fusion=parts))
    _exact_first(prepared, query, scores)
    return scores


def _hybrid(prepared: PreparedIndex, query: str, terms: list[str]) -> Scores:
    """BM25 and TF-IDF, max-normalised and averaged; fuzzy matching and typo correction for
    queries that look typed by hand; exact name or alias matches first."""
    typed = looks_typed(prepared, terms)
    lexical_terms = scorers.correct_terms(prepared, terms) if typed else terms
    voted = _with_examples(prepared, lexical_terms, Scores(lexical_fusion(prepared, lexical_terms)))
    combined = voted.raw
    if typed or not combined:
        candidates = sorted(combined, key=lambda d: -combined[d])[:HYBRID_FUZZY_CANDIDATES]
        fuzzy = (
            scorers.fuzzy_over(prepared, query, candidates)
            if candidates
            else scorers.fuzzy(prepared, query)
        )
        for doc, value in fuzzy.items():
            combined[doc] = combined.get(doc, 0.0) + HYBRID_WEIGHTS["fuzzy"] * value / 100.0
    scores = Scores(combined, votes=voted.votes)
    _exact_first(prepared, query, scores)
    return scores


def lexical_fusion(prepared: PreparedIndex, terms: Sequence[str]) -> dict[int, float]:
    """BM25 and TF-IDF, each max-normalised over the tools, weighted and summed: hybrid's
    lexical score."""
    wb, wt = HYBRID_WEIGHTS["bm25"], HYBRID_WEIGHTS["tfidf"]
    limit = _limit(prepared)
    if scorers.numpy_suits(prepared, terms):
        b = scorers.dense_scores(prepared, terms, "bm25")
        t = scorers.dense_scores(prepared, terms, "tfidf")
        fused = wb * b / (b.max() or 1.0) + wt * t / (t.max() or 1.0)
        return scorers.top_entries(fused, limit or len(prepared))
    bm25 = scorers.normalise(scorers.lexical(prepared, terms, "bm25"))
    tfidf = scorers.normalise(scorers.lexical(prepared, terms, "tfidf"))
    combined = {
        doc: wb * bm25.get(doc, 0.0) + wt * tfidf.get(doc, 0.0)
        for doc in bm25.keys() | tfidf.keys()
    }
    return scorers.best(combined, limit) if limit else combined


def _limit(prepared: PreparedIndex) -> int | None:
    """On a large registry, only the best-scoring tools go on to the selection pipeline."""
    return LARGE_CANDIDATES if prepared.index.is_large else None


def _exact_first(prepared: PreparedIndex, query: str, scores: Scores) -> None:
    """An exact name or alias match ranks first."""
    for doc, kind in exact_matches(prepared, query).items():
        scores.raw[doc] = max(scores.raw.values(), default=0.0) + 1.0
        scores.match[doc] = kind


def looks_typed(prepared: PreparedIndex, terms: list[str]) -> bool:
    """A short query (3 terms or fewer) with a term the registry never uses: a typed,
    possibly misspelt or abbreviated tool name rather than a sentence."""
    return 0 < len(terms) <= HYBRID_TYPED_MAX_TERMS and any(
        t not in prepared.index.vocabulary for t in terms
    )


def exact_matches(prepared: PreparedIndex, query: str) -> dict[int, str]:
    """Tools whose name or alias equals the query, ignoring case and separators."""
    folded = fold_name(query.strip())
    if not folded:
        return {}
    return dict(prepared.folded_names.get(folded, ()))


# -- the selection pipeline: order, filter, pin, build --------------------------------------


def _order(prepared: PreparedIndex, normalised: dict[int, float], method: Method) -> list[int]:
    """Best first; ties by name, except `cc`, which keeps registry order as Claude Code's
    stable sort does."""
    tools = prepared.tools
    if method is Method.CC:
        return sorted(normalised, key=lambda d: (-normalised[d], d))
    return sorted(normalised, key=lambda d: (-normalised[d], tools[d].name))


Dropped = Deprecated | Blocked | Excluded


def _gate(tool: ToolMeta, options: RankOptions) -> str | None:
    """Why the options keep `tool` out: filtered (category or tag), deprecated, permission;
    None when they let it in."""
    if options.categories and tool.category not in options.categories:
        return "filtered"
    if options.tags and not set(options.tags) & set(tool.tags):
        return "filtered"
    if tool.deprecated and not options.include_deprecated:
        return "deprecated"
    if options.permission is not None and not options.permission.allows(
        Permission(tool.permission)
    ):
        return "permission"
    return None


def _filter(
    prepared: PreparedIndex, order: list[int], normalised: dict[int, float], options: RankOptions
) -> tuple[list[int], list[Dropped]]:
    """The scored tools the options let in, best first, and the ones dropped on the way
    (deprecated, blocked by permission, excluded by a better tool they conflict with)."""
    tools = prepared.tools
    conflicts = prepared.conflicts
    kept: list[int] = []
    dropped: list[Dropped] = []
    taken: set[str] = set()
    for doc in order:
        tool = tools[doc]
        gate = _gate(tool, options)
        if gate == "deprecated":
            dropped.append(Deprecated(tool.name, tool.deprecated_by, normalised[doc]))
            continue
        if gate == "permission":
            dropped.append(Blocked(tool.name, tool.permission, normalised[doc]))
            continue
        if gate is not None:
            continue
        rivals = conflicts.get(tool.name)
        clash = rivals & taken if rivals else None
        if clash:
            dropped.append(Excluded(tool.name, min(clash), normalised[doc]))
            continue
        kept.append(doc)
        taken.add(tool.name)
    return kept, dropped


def _pinned(options: RankOptions) -> bool:
    # `cc` reproduces Claude Code's search, which returns matches only
    return options.pin_always_include and options.method is not Method.CC


def _always(prepared: PreparedIndex, kept: list[int], options: RankOptions) -> list[int]:
    """The always-include tools, offered whatever the prompt: the matched ones by score,
    then the rest in registry order (those the options let in). One that ranks in the top
    is shown there, at its rank, and not again among the always-included."""
    if not _pinned(options):
        return []
    tools = prepared.tools
    always = [d for d in kept if tools[d].always_include]
    matched = set(always)
    always += [
        d for d in prepared.always_include if d not in matched and _gate(tools[d], options) is None
    ]
    return always


def _build(
    prepared: PreparedIndex,
    query: str,
    terms: list[str],
    scores: Scores,
    normalised: dict[int, float],
    options: RankOptions,
    chosen: list[int],
    *,
    always: bool,
) -> tuple[RankedTool, ...]:
    """Ranked tools: at most `--top`, at or above `--min-score` and `--min-strength`.
    Always-include tools: all of them, exempt from the limits."""
    tools = prepared.tools
    matching = _strength_terms(prepared, query, terms, options.method)
    results: list[RankedTool] = []
    for doc in chosen:
        tool = tools[doc]
        value = normalised.get(doc, 0.0)
        if not always and value < options.min_score:
            continue
        strength = _strength(prepared, doc, scores, matching)
        if not always and strength < options.min_strength:
            continue
        matched = doc in normalised
        kind = scores.match.get(doc) or ("always-include" if always and not matched else "match")
        results.append(
            RankedTool(
                name=tool.name,
                score=round(value, 6),
                raw=round(scores.raw.get(doc, 0.0), 6),
                category=tool.category,
                permission=tool.permission,
                match=kind,
                contributions=tuple(_explain(prepared, query, terms, doc, options.method, scores))
                if options.explain and matched
                else (),
                always_include=tool.always_include,
                strength=round(strength, 6),
            )
        )
        if not always and len(results) == options.top:
            break
    return tuple(results)


# -- strength: an absolute signal beside the relative score --------------------------------


@dataclass(frozen=True, slots=True)
class _Matching:
    """The prompt's searchable terms as (term, weight, credit): the weight is the term's
    BM25 idf (a word the registry never uses weighs as much as the rarest word can); the
    credit is 1, or 1/2 for a typo correction, which is a guess."""

    query: str
    terms: tuple[tuple[str, float, float], ...]
    total: float


#: Below this, a prompt and a name are not alike at all ("purple elephant" and
#: send_chat_message are 0.41 alike by edit distance).
NAME_LIKENESS_FLOOR = 0.6
#: Prompts of more words than this are sentences, not names typed by hand.
NAME_LIKENESS_MAX_WORDS = 4
#: What a term corrected for a typo ("raed" -> "read") counts for when found.
CORRECTED_CREDIT = 0.5


def _strength_terms(
    prepared: PreparedIndex, query: str, terms: list[str], method: Method
) -> _Matching:
    index = prepared.index
    corrected = terms
    if method is Method.HYBRID and looks_typed(prepared, terms):
        corrected = scorers.correct_terms(prepared, terms)
    unseen = math.log(1 + (len(index) + 0.5) / 0.5)
    weighted: dict[str, tuple[float, float]] = {}
    for original, term in zip(terms, corrected, strict=True):
        position = index.vocabulary.get(term)
        weight = index.bm25_idf[position] if position is not None else unseen
        weighted.setdefault(term, (weight, 1.0 if term == original else CORRECTED_CREDIT))
    return _Matching(
        query.strip().lower(),
        tuple((term, w, c) for term, (w, c) in weighted.items()),
        sum(w for w, _ in weighted.values()),
    )


def _strength(prepared: PreparedIndex, doc: int, scores: Scores, matching: _Matching) -> float:
    """How much of the prompt tool `doc` matches, 0..1, whatever the other tools score: 1 for
    an exact name or alias; the cosine for `semantic`; otherwise the larger of the
    idf-weighted share of the prompt's words found in the tool's indexed text, and how
    alike the prompt and the tool's name are (a typed name: "raed fle")."""
    if doc in scores.match:
        return 1.0
    if scores.cosine is not None and scores.fusion is None:
        return max(0.0, min(1.0, float(scores.cosine[doc])))
    index = prepared.index
    doc_ids = index.doc_ids
    found = 0.0
    for term, weight, credit in matching.terms:
        span = index.postings(term)
        if span:
            at = bisect.bisect_left(doc_ids, doc, span.start, span.stop)
            if at < span.stop and doc_ids[at] == doc:
                found += weight * credit
    share = found / matching.total if matching.total else 0.0
    if share >= STRONG_MATCH or len(matching.query.split()) > NAME_LIKENESS_MAX_WORDS:
        return share  # a sentence is not a name typed by hand (and rapidfuzz stays unloaded)
    return max(share, _name_likeness(prepared.tools[doc], matching.query))


def _name_likeness(tool: ToolMeta, query: str) -> float:
    """The best plain edit-distance ratio between the prompt and the tool's name (as words),
    display name or aliases: "raed fle" and read_file are 0.82 alike."""
    from rapidfuzz import fuzz

    names = [tool.name, *tool.aliases] + ([tool.display_name] if tool.display_name else [])
    best = max(fuzz.ratio(query, " ".join(split_name(name))) for name in names) / 100.0
    return best if best >= NAME_LIKENESS_FLOOR else 0.0


def _explain(
    prepared: PreparedIndex, query: str, terms: list[str], doc: int, method: Method, scores: Scores
) -> list[Contribution]:
    found = _explain_method(prepared, query, terms, doc, method, scores)
    if doc in scores.votes:  # matched through examples: quote the nearest one
        found += _explain_examples(prepared, terms, doc, scores.votes[doc])
    return found


def _explain_examples(
    prepared: PreparedIndex, terms: list[str], doc: int, value: float
) -> list[Contribution]:
    """The nearest example that shares a word with the query, quoted; else the query's words
    whose learned weights speak for the tool (`prod (learned)`); else nothing (the tool's
    learned score came from no word of the query)."""
    nearest = scorers.nearest_example(prepared, terms, doc)
    if nearest is not None:
        return [Contribution(f'"{prepared.index.example_texts[nearest]}"', "example", value)]
    if not prepared.index.learned:
        return []
    return [
        Contribution(word, "learned", value * share)
        for word, share in scorers.learned_words(prepared, terms, doc)
    ]


def _explain_method(
    prepared: PreparedIndex, query: str, terms: list[str], doc: int, method: Method, scores: Scores
) -> list[Contribution]:
    if method is Method.FUZZY:
        return scorers.explain_fuzzy(prepared, query, doc)
    if method is Method.CC:
        return []
    if method is Method.SEMANTIC:
        from toolsel.ranking import semantic

        return semantic.explain_cosine(float(scores.cosine[doc]))
    if method is Method.FUSION:
        from toolsel.ranking import semantic

        assert scores.fusion is not None
        return semantic.explain_fusion(prepared, terms, doc, scores.fusion)
    if method is Method.HYBRID:
        typed = looks_typed(prepared, terms)
        lexical = scorers.explain_lexical(
            prepared, scorers.correct_terms(prepared, terms) if typed else terms, doc, "bm25"
        )
        # fuzzy matching took part only for typed queries (or when nothing matched lexically)
        return (
            lexical + scorers.explain_fuzzy(prepared, query, doc)
            if typed or not lexical
            else lexical
        )
    return scorers.explain_lexical(prepared, terms, doc, method.value)
