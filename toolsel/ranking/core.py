"""`rank_index`: score a prompt against a registry's index, then apply the selection
pipeline.

Pipeline, after scoring: category/tag filters, drop deprecated tools (naming the
replacement), the permission gate (listing what it blocks), conflict resolution (a
higher-ranked tool excludes the tools it conflicts with), always-include tools set apart,
then `--top`, `--min-score` and `--min-strength` on the ranked tools. Ties are broken by
name, so the same input always gives the same output.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from toolsel.errors import RegistryError, UsageError
from toolsel.ranking import scorers
from toolsel.ranking.fields import surface_words, tokens
from toolsel.ranking.index import RankIndex, ToolMeta
from toolsel.ranking.methods import SCORERS, Scores, default_top, explain, score
from toolsel.ranking.options import Method
from toolsel.ranking.prepared import PreparedIndex, prepare
from toolsel.ranking.scorers import Contribution
from toolsel.ranking.strength import STRONG_MATCH, strength, strength_terms
from toolsel.registry.permission import Permission

DEFAULT_TOP = 8


@dataclass(frozen=True, slots=True)
class RankOptions:
    """`method` is the method that runs: `auto` is resolved when the options are made, and
    `requested` keeps what was asked for (with `reason`, why `auto` chose as it did)."""

    method: Method = Method.AUTO
    top: int = DEFAULT_TOP
    permission: Permission | None = None
    categories: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    include_deprecated: bool = False
    min_score: float = 0.0
    min_strength: float = 0.0
    explain: bool = False
    pin_always_include: bool = True  # False: always-include tools compete on score (eval)
    requested: Method | None = None  # what was asked for; None: `method` itself
    reason: str | None = None  # why `auto` became `method`

    def __post_init__(self) -> None:
        if self.method is Method.AUTO:
            from toolsel.ranking.options import resolve

            chosen, reason = resolve(self.method)
            object.__setattr__(self, "method", chosen)
            object.__setattr__(self, "requested", Method.AUTO)
            object.__setattr__(self, "reason", reason)


def rank_options(
    method: Method | str = Method.AUTO,
    top: int | None = None,
    permission: Permission | str | None = None,
    categories: Sequence[str] = (),
    tags: Sequence[str] = (),
    include_deprecated: bool = False,
    min_score: float = 0.0,
    min_strength: float = 0.0,
    explain: bool = False,
) -> RankOptions:
    """The one place ranking options are made, for the CLI, the service and MCP alike: a
    method's own default `top` when none is given (5 for `cc`, 8 otherwise); `auto`
    becomes the method it stands for here (see `options.auto_method`)."""
    method = Method(method)  # `auto` is resolved by RankOptions
    return RankOptions(
        method=method,
        top=top if top is not None else default_top(method),
        permission=Permission(permission) if permission is not None else None,
        categories=tuple(categories),
        tags=tuple(tags),
        include_deprecated=include_deprecated,
        min_score=min_score,
        min_strength=min_strength,
        explain=explain,
    )


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
    #: each of `terms` and the prompt's word it came from ("committ" from "committed"), so
    #: an explanation shows the user's words, not stems
    words: tuple[tuple[str, str], ...] = ()
    requested: str | None = None  # `auto` when `method` was chosen by it
    reason: str | None = None  # why `auto` chose `method`

    def word(self, term: str) -> str:
        """The prompt's own word for search term `term` (the term itself if none)."""
        return dict(self.words).get(term, term)

    @property
    def strong(self) -> bool:
        """Whether the best ranked tool matches the prompt well (an absolute signal)."""
        return bool(self.results) and self.results[0].strength >= STRONG_MATCH

    @property
    def offered(self) -> tuple[str, ...]:
        """Every tool an agent is offered: the always-include tools, then the ranked ones."""
        return tuple(t.name for t in (*self.always, *self.results))


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
        requested=options.requested.value if options.requested is not None else None,
        reason=options.reason,
        results=results,
        always=build([d for d in always if prepared.tools[d].name not in shown], always=True),
        blocked=tuple(d for d in dropped if isinstance(d, Blocked)),
        excluded=tuple(d for d in dropped if isinstance(d, Excluded)),
        deprecated=tuple(d for d in dropped if isinstance(d, Deprecated)),
        terms=tuple(terms),
        words=tuple(surface_words(query).items()),
    )


# -- the selection pipeline: order, filter, pin, build --------------------------------------


def _order(prepared: PreparedIndex, normalised: dict[int, float], method: Method) -> list[int]:
    """Best first; ties by name, except for a method that keeps registry order (`cc`, as
    Claude Code's stable sort does)."""
    tools = prepared.tools
    # scores equal to 12 places are a tie: the order of a float sum (which another tool's
    # examples can change) must not decide which of two equal tools comes first
    if SCORERS[method].registry_order:
        return sorted(normalised, key=lambda d: (-round(normalised[d], TIE_PLACES), d))
    return sorted(normalised, key=lambda d: (-round(normalised[d], TIE_PLACES), tools[d].name))


#: Decimal places at which two scores are equal (`_order`).
TIE_PLACES = 12


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
    return options.pin_always_include and SCORERS[options.method].pins_always_include


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
    matching = strength_terms(prepared, query, terms, options.method)
    results: list[RankedTool] = []
    for doc in chosen:
        tool = tools[doc]
        value = normalised.get(doc, 0.0)
        if not always and value < options.min_score:
            continue
        found = strength(prepared, doc, scores, matching)
        if not always and found < options.min_strength:
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
                contributions=tuple(explain(prepared, query, terms, doc, options.method, scores))
                if options.explain and matched
                else (),
                always_include=tool.always_include,
                strength=round(found, 6),
            )
        )
        if not always and len(results) == options.top:
            break
    return tuple(results)
