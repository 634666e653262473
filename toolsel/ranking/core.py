"""Field-weighted BM25 ranking: the baseline scorer that richer methods build on."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from toolsel.errors import RegistryError, UsageError
from toolsel.ranking.fields import FIELD_WEIGHTS, tokens, tool_fields
from toolsel.registry.model import Registry

K1 = 1.2
B = 0.75


@dataclass(frozen=True, slots=True)
class RankedTool:
    name: str
    score: float  # 0..1, relative to the best match of this query
    category: str | None
    permission: str
    matched: tuple[str, ...]  # query terms that matched, as field:term


@dataclass(frozen=True, slots=True)
class RankResult:
    query: str
    method: str
    results: tuple[RankedTool, ...]
    replaced: tuple[tuple[str, str | None], ...]  # deprecated tools dropped, with replacement


def rank_tools(registry: Registry, query: str, *, top: int = 8) -> RankResult:
    """Rank the registry's live tools for `query`. Ties are broken by name."""
    if not query.strip():
        raise UsageError(
            "the prompt is empty", hint='give a prompt, e.g. toolsel rank "read a file"'
        )
    if top < 1:
        raise UsageError(f"--top must be at least 1, got {top}")
    if not registry.tools:
        raise RegistryError("the registry has no tools", hint="add entries under `tools:`")
    terms = list(dict.fromkeys(tokens(query)))
    docs = {t.name: tool_fields(t, registry) for t in registry.tools}
    scores = _bm25(docs, terms)
    best = max((s for s, _ in scores.values()), default=0.0)
    ranked = []
    replaced = []
    for tool in registry.tools:
        if tool.deprecated:
            replaced.append((tool.name, tool.deprecated_by))
            continue
        score, matched = scores.get(tool.name, (0.0, ()))
        if score <= 0:
            continue
        ranked.append(
            RankedTool(
                tool.name, round(score / best, 4), tool.category, tool.permission.value, matched
            )
        )
    ranked.sort(key=lambda r: (-r.score, r.name))
    return RankResult(query, "bm25", tuple(ranked[:top]), tuple(replaced))


def _bm25(
    docs: dict[str, dict[str, list[str]]], terms: list[str]
) -> dict[str, tuple[float, tuple[str, ...]]]:
    n = len(docs)
    lengths = {name: sum(len(v) for v in fields.values()) for name, fields in docs.items()}
    average = (sum(lengths.values()) / n) or 1.0
    document_frequency: Counter[str] = Counter()
    for fields in docs.values():
        document_frequency.update({t for words in fields.values() for t in words})
    results: dict[str, tuple[float, tuple[str, ...]]] = {}
    for name, fields in docs.items():
        total = 0.0
        matched = []
        norm = K1 * (1 - B + B * lengths[name] / average)
        for term in terms:
            df = document_frequency.get(term, 0)
            if not df:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            weighted_tf = 0.0
            for field, words in fields.items():
                count = words.count(term)
                if count:
                    weighted_tf += FIELD_WEIGHTS[field] * count
                    matched.append(f"{field}:{term}")
            if weighted_tf:
                total += idf * weighted_tf * (K1 + 1) / (weighted_tf + norm)
        if total > 0:
            results[name] = (total, tuple(matched))
    return results
