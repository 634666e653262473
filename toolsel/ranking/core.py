"""`rank_tools`: score a prompt against a registry, then apply the seeds' selection pipeline.

Pipeline, after scoring: category/tag filters, drop deprecated tools (naming the
replacement), the permission gate (listing what it blocks), conflict resolution (a
higher-ranked tool excludes the tools it conflicts with), always-include tools first,
then `--top` and `--min-score`. Ties are broken by name, so the same input always gives the
same output.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from toolsel.errors import RegistryError, UsageError
from toolsel.ranking import scorers
from toolsel.ranking.fields import tokens
from toolsel.ranking.index import RankIndex, ToolMeta
from toolsel.ranking.options import Method
from toolsel.ranking.scorers import Contribution
from toolsel.registry.model import Permission
from toolsel.text import fold_name

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
    score: float  # 0..1
    raw: float  # the method's own score (BM25 units, cosine, WRatio, Claude Code points)
    category: str | None
    permission: str
    why: str  # exact-name | alias | always-include | match
    contributions: tuple[Contribution, ...] = ()
    always_include: bool = False


@dataclass(frozen=True, slots=True)
class Dropped:
    name: str
    reason: str  # deprecated | permission | conflict
    detail: str  # replacement, required permission, or the tool that excluded it
    score: float


@dataclass(frozen=True, slots=True)
class RankResult:
    query: str
    method: str
    results: tuple[RankedTool, ...]
    blocked: tuple[Dropped, ...] = ()
    excluded: tuple[Dropped, ...] = ()
    deprecated: tuple[Dropped, ...] = ()
    considered: int = 0
    terms: tuple[str, ...] = field(default=())


def validate(index: RankIndex, query: str, options: RankOptions) -> None:
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


def rank_index(index: RankIndex, query: str, options: RankOptions | None = None) -> RankResult:
    """Rank the tools of `index` for `query` (the query path: no registry, no scikit-learn)."""
    options = options or RankOptions()
    validate(index, query, options)
    terms = tokens(query)
    raw, why = score(index, query, terms, options.method)
    return _select(index, query, terms, raw, why, options)


def score(
    index: RankIndex, query: str, terms: list[str], method: Method
) -> tuple[dict[int, float], dict[int, str]]:
    """Raw scores by tool position, and why each exact match matched."""
    why: dict[int, str] = {}
    if method is Method.CC:
        from toolsel.ranking import cc

        matches = cc.search(index.tools, query, max_results=len(index))
        # fast paths return unscored names; give them a score so they sort first
        return {m.index: float(m.score or 1) for m in matches}, {
            m.index: m.path for m in matches if m.path != "keyword"
        }
    if method in (Method.BM25, Method.TFIDF) and scorers.is_large(index):
        # large registries: score in numpy, turn only the best candidates into Python objects
        return scorers.top_entries(scorers.dense(index, terms, method.value), LARGE_CANDIDATES), why
    if method is Method.BM25:
        return scorers.bm25(index, terms), why
    if method is Method.TFIDF:
        return scorers.tfidf(index, terms), why
    if method is Method.FUZZY:
        return scorers.fuzzy(index, query), why
    if method is Method.SEMANTIC:
        from toolsel.ranking import semantic

        return semantic.semantic(index, query), why
    if method is Method.FUSION:
        from toolsel.ranking import semantic

        fused = semantic.fusion(index, query, terms)
        return _exact_first(index, query, fused)
    return _hybrid(index, query, terms)


def _hybrid(
    index: RankIndex, query: str, terms: list[str]
) -> tuple[dict[int, float], dict[int, str]]:
    """BM25 and TF-IDF, max-normalised and averaged; fuzzy matching and typo correction for
    queries that look typed by hand; exact name or alias matches first."""
    typed = looks_typed(index, terms)
    lexical_terms = scorers.correct_terms(index, terms) if typed else terms
    combined = _lexical_fusion(index, lexical_terms)
    if typed or not combined:
        candidates = sorted(combined, key=lambda d: -combined[d])[:HYBRID_FUZZY_CANDIDATES]
        fuzzy = _fuzzy_over(index, query, candidates) if candidates else scorers.fuzzy(index, query)
        for doc, value in fuzzy.items():
            combined[doc] = combined.get(doc, 0.0) + HYBRID_WEIGHTS["fuzzy"] * value / 100.0
    return _exact_first(index, query, combined)


def _exact_first(
    index: RankIndex, query: str, scores: dict[int, float]
) -> tuple[dict[int, float], dict[int, str]]:
    """An exact name or alias match ranks first."""
    why: dict[int, str] = {}
    for doc, kind in exact_matches(index, query).items():
        scores[doc] = max(scores.values(), default=0.0) + 1.0
        why[doc] = kind
    return scores, why


def _lexical_fusion(index: RankIndex, terms: list[str]) -> dict[int, float]:
    """Max-normalised BM25 and TF-IDF, weighted and summed."""
    wb, wt = HYBRID_WEIGHTS["bm25"], HYBRID_WEIGHTS["tfidf"]
    if scorers.is_large(index):
        b, t = scorers.dense(index, terms, "bm25"), scorers.dense(index, terms, "tfidf")
        fused = wb * b / (b.max() or 1.0) + wt * t / (t.max() or 1.0)
        return scorers.top_entries(fused, LARGE_CANDIDATES)
    lexical_b = scorers.normalise(scorers.bm25(index, terms))
    lexical_t = scorers.normalise(scorers.tfidf(index, terms))
    return {
        doc: wb * lexical_b.get(doc, 0.0) + wt * lexical_t.get(doc, 0.0)
        for doc in lexical_b.keys() | lexical_t.keys()
    }


def looks_typed(index: RankIndex, terms: list[str]) -> bool:
    """A short query (3 terms or fewer) with a term the registry never uses: a typed,
    possibly misspelt or abbreviated tool name rather than a sentence."""
    return 0 < len(terms) <= HYBRID_TYPED_MAX_TERMS and any(
        t not in index.vocabulary for t in terms
    )


def _fuzzy_over(index: RankIndex, query: str, candidates: list[int]) -> dict[int, float]:
    from rapidfuzz import fuzz, utils

    strings, owners = scorers.fuzzy_strings(index)
    wanted = set(candidates)
    scores: dict[int, float] = {}
    processed = utils.default_process(query)
    for text, owner in zip(strings, owners, strict=True):
        if owner in wanted:
            value = fuzz.WRatio(processed, utils.default_process(text), score_cutoff=60)
            if value > scores.get(owner, 0.0):
                scores[owner] = value
    return scores


def exact_matches(index: RankIndex, query: str) -> dict[int, str]:
    """Tools whose name or alias equals the query, ignoring case and separators."""
    folded = fold_name(query.strip())
    if not folded:
        return {}
    return dict(_folded_names(index).get(folded, ()))


def _folded_names(index: RankIndex) -> dict[str, list[tuple[int, str]]]:
    cached = index.__dict__.get("_folded_names")
    if cached is None:
        cached = {}
        for position, tool in enumerate(index.tools):
            cached.setdefault(fold_name(tool.name), []).append((position, "exact-name"))
        for position, tool in enumerate(index.tools):
            for alias in tool.aliases:
                entries = cached.setdefault(fold_name(alias), [])
                if all(p != position for p, _ in entries):
                    entries.append((position, "alias"))
        index.__dict__["_folded_names"] = cached
    return cached


def _select(
    index: RankIndex,
    query: str,
    terms: list[str],
    raw: dict[int, float],
    why: dict[int, str],
    options: RankOptions,
) -> RankResult:
    tools = index.tools
    normalised = scorers.normalise(raw)
    # ties break by name (deterministic); `cc` keeps registry order, as Claude Code's stable sort does
    tie = (lambda d: d) if options.method is Method.CC else (lambda d: tools[d].name)
    order = sorted(normalised, key=lambda d: (-normalised[d], tie(d)))
    wanted_categories = set(options.categories)
    wanted_tags = set(options.tags)
    deprecated: list[Dropped] = []
    blocked: list[Dropped] = []
    excluded: list[Dropped] = []
    kept: list[int] = []
    taken: set[str] = set()
    conflicts = _conflicts(index)
    for doc in order:
        tool = tools[doc]
        if wanted_categories and tool.category not in wanted_categories:
            continue
        if wanted_tags and not wanted_tags & set(tool.tags):
            continue
        if tool.deprecated and not options.include_deprecated:
            deprecated.append(
                Dropped(tool.name, "deprecated", tool.deprecated_by or "", normalised[doc])
            )
            continue
        if options.permission is not None and not options.permission.allows(
            Permission(tool.permission)
        ):
            blocked.append(Dropped(tool.name, "permission", tool.permission, normalised[doc]))
            continue
        rivals = conflicts.get(tool.name)
        clash = rivals & taken if rivals else None
        if clash:
            excluded.append(Dropped(tool.name, "conflict", min(clash), normalised[doc]))
            continue
        kept.append(doc)
        taken.add(tool.name)
    # always-include tools come first: the matched ones by score, then the rest in registry order
    matched = set(kept)
    pinned = options.pin_always_include and options.method is not Method.CC
    always_matched = [d for d in kept if tools[d].always_include] if pinned else []
    # `cc` reproduces Claude Code's search, which returns matches only
    always_other = (
        [d for d in _always_include(index) if d not in matched and _allowed(tools[d], options)]
        if pinned
        else []
    )
    chosen = always_matched + always_other + [d for d in kept if d not in always_matched]
    results = []
    for doc in chosen:
        tool = tools[doc]
        value = normalised.get(doc, 0.0)
        if value < options.min_score and not (pinned and tool.always_include):
            continue
        kind = why.get(doc) or (
            "always-include" if tool.always_include and doc not in normalised else "match"
        )
        contributions = (
            tuple(_explain(index, query, terms, doc, options.method))
            if options.explain and doc in normalised
            else ()
        )
        results.append(
            RankedTool(
                tool.name,
                round(value, 6),
                round(raw.get(doc, 0.0), 6),
                tool.category,
                tool.permission,
                kind,
                contributions,
                tool.always_include,
            )
        )
        if len(results) == options.top:
            break
    return RankResult(
        query=query,
        method=options.method.value,
        results=tuple(results),
        blocked=tuple(blocked),
        excluded=tuple(excluded),
        deprecated=tuple(deprecated),
        considered=len(order),
        terms=tuple(terms),
    )


def _allowed(tool: ToolMeta, options: RankOptions) -> bool:
    if tool.deprecated and not options.include_deprecated:
        return False
    if options.categories and tool.category not in options.categories:
        return False
    if options.tags and not set(options.tags) & set(tool.tags):
        return False
    return options.permission is None or options.permission.allows(Permission(tool.permission))


def _conflicts(index: RankIndex) -> dict[str, set[str]]:
    """Who conflicts with whom, both ways (built once per index)."""
    graph: dict[str, set[str]] | None = index.__dict__.get("_conflict_graph")
    if graph is None:
        graph = {}
        for tool in index.tools:
            for other in tool.conflicts:
                graph.setdefault(tool.name, set()).add(other)
                graph.setdefault(other, set()).add(tool.name)
        index.__dict__["_conflict_graph"] = graph
    return graph


def _always_include(index: RankIndex) -> list[int]:
    """Positions of the always-include tools, in registry order (found once per index)."""
    found: list[int] | None = index.__dict__.get("_always_include")
    if found is None:
        found = [d for d, t in enumerate(index.tools) if t.always_include]
        index.__dict__["_always_include"] = found
    return found


def _explain(
    index: RankIndex, query: str, terms: list[str], doc: int, method: Method
) -> list[Contribution]:
    if method is Method.FUZZY:
        return scorers.explain_fuzzy(index, query, doc)
    if method is Method.CC:
        return []
    if method in (Method.SEMANTIC, Method.FUSION):
        from toolsel.ranking import semantic

        return semantic.explain(index, query, terms, doc, method is Method.FUSION)
    if method is Method.HYBRID:
        typed = looks_typed(index, terms)
        lexical = scorers.explain_lexical(
            index, scorers.correct_terms(index, terms) if typed else terms, doc, "bm25"
        )
        # fuzzy matching took part only for typed queries (or when nothing matched lexically)
        return (
            lexical + scorers.explain_fuzzy(index, query, doc) if typed or not lexical else lexical
        )
    return scorers.explain_lexical(index, terms, doc, method.value)
