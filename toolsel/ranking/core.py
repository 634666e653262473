"""`rank_index`: score a prompt against a registry's index, then apply the selection
pipeline.

Pipeline, after scoring: category/tag filters, drop deprecated tools (naming the
replacement), the permission gate (listing what it blocks), conflict resolution (a
higher-ranked tool excludes the tools it conflicts with), always-include tools first,
then `--top` and `--min-score`. Ties are broken by name, so the same input always gives the
same output.
"""

from __future__ import annotations

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
from toolsel.text import fold_name

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


@dataclass(frozen=True, slots=True)
class RankResult:
    query: str
    method: str
    results: tuple[RankedTool, ...]
    blocked: tuple[Blocked, ...] = ()
    excluded: tuple[Excluded, ...] = ()
    deprecated: tuple[Deprecated, ...] = ()
    terms: tuple[str, ...] = field(default=())


@dataclass(slots=True)
class Scores:
    """One query's raw scores by tool position, and what explaining them needs."""

    raw: dict[int, float]
    match: dict[int, str] = field(default_factory=dict)  # exact matches: how they matched
    cosine: Any = None  # semantic: every tool's cosine
    fusion: tuple[np.ndarray, np.ndarray] | None = None  # fusion: its two scaled parts


def validate(index: RankIndex | PreparedIndex, query: str, options: RankOptions) -> None:
    if not query.strip():
        raise UsageError(
            "the prompt is empty", hint='give a prompt, e.g. toolsel rank "read a file"'
        )
    if options.top < 1:
        raise UsageError(f"--top must be at least 1, got {options.top}")
    if not 0.0 <= options.min_score <= 1.0:
        raise UsageError(f"--min-score must be between 0 and 1, got {options.min_score}")
    if not len(index):
        raise RegistryError("the registry has no tools", hint="add entries under `tools:`")


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
    chosen = _pin(prepared, kept, options)
    results = _build(prepared, query, terms, chosen, scores, normalised, options)
    return RankResult(
        query=query,
        method=options.method.value,
        results=results,
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
        return Scores(scorers.lexical(prepared, terms, method.value, limit=_limit(prepared)))
    if method is Method.FUZZY:
        return Scores(scorers.fuzzy(prepared, query))
    if method in (Method.SEMANTIC, Method.FUSION):
        return _embedding_scores(prepared, query, terms, method, vector)
    return _hybrid(prepared, query, terms)


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
    scores = Scores(semantic.fused(parts), fusion=parts)
    _exact_first(prepared, query, scores)
    return scores


def _hybrid(prepared: PreparedIndex, query: str, terms: list[str]) -> Scores:
    """BM25 and TF-IDF, max-normalised and averaged; fuzzy matching and typo correction for
    queries that look typed by hand; exact name or alias matches first."""
    typed = looks_typed(prepared, terms)
    combined = lexical_fusion(prepared, scorers.correct_terms(prepared, terms) if typed else terms)
    if typed or not combined:
        candidates = sorted(combined, key=lambda d: -combined[d])[:HYBRID_FUZZY_CANDIDATES]
        fuzzy = (
            scorers.fuzzy_over(prepared, query, candidates)
            if candidates
            else scorers.fuzzy(prepared, query)
        )
        for doc, value in fuzzy.items():
            combined[doc] = combined.get(doc, 0.0) + HYBRID_WEIGHTS["fuzzy"] * value / 100.0
    scores = Scores(combined)
    _exact_first(prepared, query, scores)
    return scores


def lexical_fusion(prepared: PreparedIndex, terms: Sequence[str]) -> dict[int, float]:
    """BM25 and TF-IDF, each max-normalised over the tools, weighted and summed: hybrid's
    lexical score (also what lint's TS701 ranks by)."""
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


def _pin(prepared: PreparedIndex, kept: list[int], options: RankOptions) -> list[int]:
    """Always-include tools first: the matched ones by score, then the rest in registry
    order (those the options let in)."""
    if not _pinned(options):
        return kept
    tools = prepared.tools
    matched = set(kept)
    always_matched = [d for d in kept if tools[d].always_include]
    always_other = [
        d for d in prepared.always_include if d not in matched and _gate(tools[d], options) is None
    ]
    return always_matched + always_other + [d for d in kept if d not in always_matched]


def _build(
    prepared: PreparedIndex,
    query: str,
    terms: list[str],
    chosen: list[int],
    scores: Scores,
    normalised: dict[int, float],
    options: RankOptions,
) -> tuple[RankedTool, ...]:
    """The offered tools, at most `--top`, above `--min-score` (always-include is exempt)."""
    tools = prepared.tools
    pinned = _pinned(options)
    results: list[RankedTool] = []
    for doc in chosen:
        tool = tools[doc]
        value = normalised.get(doc, 0.0)
        if value < options.min_score and not (pinned and tool.always_include):
            continue
        matched = doc in normalised
        kind = scores.match.get(doc) or (
            "always-include" if tool.always_include and not matched else "match"
        )
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
            )
        )
        if len(results) == options.top:
            break
    return tuple(results)


def _explain(
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
