"""Claude Code's ToolSearch keyword scorer, reproduced rule for rule.

Source: `src/tools/ToolSearchTool/ToolSearchTool.ts` in the public mirror
github.com/stephanoskomnenos/claude-code-clean. Registry authors use `--method cc` to
predict what Claude Code will return for a query: the name-part weights (10/12, 5/6, 3, 4,
2), `+required` terms, the exact-name and `mcp__` prefix fast paths, stable ties, and 5
results by default.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from toolsel.ranking.index import ToolMeta

DEFAULT_MAX_RESULTS = 5
_CAMEL_BOUNDARY = re.compile(r"([a-z])([A-Z])")


@dataclass(frozen=True, slots=True)
class ParsedName:
    parts: tuple[str, ...]
    full: str
    is_mcp: bool


def parse_tool_name(name: str) -> ParsedName:
    if name.startswith("mcp__"):
        rest = name[5:].lower()
        parts = tuple(p for chunk in rest.split("__") for p in chunk.split("_") if p)
        return ParsedName(parts, rest.replace("__", " ").replace("_", " "), True)
    spaced = _CAMEL_BOUNDARY.sub(r"\1 \2", name).replace("_", " ").lower()
    parts = tuple(spaced.split())
    return ParsedName(parts, " ".join(parts), False)


@dataclass(frozen=True, slots=True)
class CcMatch:
    index: int
    score: int  # 0 for the unscored fast paths
    path: str  # exact-name | mcp-prefix | keyword


def search(
    tools: Sequence[ToolMeta],
    query: str,
    max_results: int = DEFAULT_MAX_RESULTS,
    *,
    rows: Sequence[CcRow] | None = None,
) -> list[CcMatch]:
    """The tools Claude Code's ToolSearch would return for `query`, in its order. `rows`
    are the tools' `prepare_rows`, when the caller keeps them (a prepared index does)."""
    query_lower = query.lower().strip()
    for index, tool in enumerate(tools):
        if tool.name.lower() == query_lower:
            return [CcMatch(index, 0, "exact-name")]
    if query_lower.startswith("mcp__") and len(query_lower) > 5:
        found = [
            CcMatch(i, 0, "mcp-prefix")
            for i, t in enumerate(tools)
            if t.name.lower().startswith(query_lower)
        ]
        return found[:max_results]
    required, scoring = _terms(query_lower)
    patterns = {term: re.compile(r"\b" + re.escape(term) + r"\b", re.ASCII) for term in scoring}
    scored: list[CcMatch] = []
    for index, (parsed, joined, description, hint) in enumerate(rows or prepare_rows(tools)):
        if not all(
            _required_matches(term, parsed, description, hint, patterns[term]) for term in required
        ):
            continue
        score = _score(scoring, parsed, joined, description, hint, patterns)
        if score > 0:
            scored.append(CcMatch(index, score, "keyword"))
    scored.sort(key=lambda m: -m.score)  # stable: ties keep registry order
    return scored[:max_results]


#: Per tool: the parsed name; its parts joined by a newline, which no term contains (terms
#: come from `str.split()`), so `term in joined` is `any(term in part for part in parts)`;
#: the lowercased description and search hint.
CcRow = tuple[ParsedName, str, str, str]


def prepare_rows(tools: Sequence[ToolMeta]) -> list[CcRow]:
    rows = []
    for t in tools:
        parsed = parse_tool_name(t.name)
        rows.append(
            (
                parsed,
                "\n".join(parsed.parts),
                t.description.lower(),
                " ".join((t.search_hint or "").split()).lower(),
            )
        )
    return rows


def _terms(query_lower: str) -> tuple[list[str], list[str]]:
    required: list[str] = []
    scoring: list[str] = []
    for term in query_lower.split():
        if term.startswith("+") and len(term) > 1:
            required.append(term[1:])
            scoring.append(term[1:])
        else:
            scoring.append(term)
    return required, scoring


def _required_matches(
    term: str, parsed: ParsedName, description: str, hint: str, pattern: re.Pattern[str]
) -> bool:
    return (
        term in parsed.parts
        or any(term in part for part in parsed.parts)
        or _word_in(term, pattern, description)
        or _word_in(term, pattern, hint)
    )


def _word_in(term: str, pattern: re.Pattern[str], text: str) -> bool:
    """`pattern` (the term at word boundaries) matches `text`. A substring test first: most
    terms are not in most descriptions, and `in` is ~10x cheaper than a regex search."""
    return term in text and pattern.search(text) is not None


def _score(
    terms: list[str],
    parsed: ParsedName,
    joined: str,
    description: str,
    hint: str,
    patterns: dict[str, re.Pattern[str]],
) -> int:
    score = 0
    for term in terms:
        pattern = patterns[term]
        if term in parsed.parts:
            score += 12 if parsed.is_mcp else 10
        elif term in joined:  # a substring of some part
            score += 6 if parsed.is_mcp else 5
        if term in parsed.full and score == 0:
            score += 3
        if _word_in(term, pattern, hint):
            score += 4
        if _word_in(term, pattern, description):
            score += 2
    return score
