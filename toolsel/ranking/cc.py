"""Claude Code's ToolSearch keyword scorer, reproduced rule for rule.

Source: `src/tools/ToolSearchTool/ToolSearchTool.ts` in the public mirror
github.com/stephanoskomnenos/claude-code-clean. Registry authors use `--method cc` to
predict what Claude Code will return for a query: the name-part weights (10/12, 5/6, 3, 4,
2), `+required` terms, the exact-name and `mcp__` prefix fast paths, stable ties, and 5
results by default.

Claude Code scores every tool for every term; here each tool's text is indexed once
(`CcIndex`), so a term finds the tools it scores on through postings. The results are the
same, tool for tool and point for point: tests/ranking/test_cc.py checks them against a
rule-for-rule transcription on generated registries.
"""

from __future__ import annotations

import heapq
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from toolsel.ranking.index import ToolMeta

DEFAULT_MAX_RESULTS = 5
_CAMEL_BOUNDARY = re.compile(r"([a-z])([A-Z])")
#: A run of the characters `\b` (in ASCII mode) counts as a word: a pattern `\bterm\b`
#: can only match where each such run of the term is a whole run of the text.
_WORD_RUN = re.compile(r"[A-Za-z0-9_]+")
#: How many terms' postings an index keeps (a few MB on 10k tools).
TERM_CACHE = 4096


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
    index: CcIndex | None = None,
    vectorised: bool = False,
) -> list[CcMatch]:
    """The tools Claude Code's ToolSearch would return for `query`, in its order. `index`
    is `CcIndex(tools)`, when the caller keeps one (a prepared index does); `vectorised`
    adds the points up with numpy (worth its import when many queries are ranked)."""
    index = index or CcIndex(tools)
    query_lower = query.lower().strip()
    exact = index.exact_names.get(query_lower)
    if exact is not None:
        return [CcMatch(exact, 0, "exact-name")]
    if query_lower.startswith("mcp__") and len(query_lower) > 5:
        found = [
            CcMatch(i, 0, "mcp-prefix")
            for i, name in enumerate(index.lower_names)
            if name.startswith(query_lower)
        ]
        return found[:max_results]
    required, scoring = _terms(query_lower)
    counts = Counter(scoring)
    if not counts:
        return []
    if vectorised:
        return index.search_numpy(counts, set(required), max_results)
    return index.search_python(counts, set(required), max_results)


class CcIndex:
    """What Claude Code's scorer reads of each tool, as postings: distinct name parts (with
    a trigram index over them) -> tools; description and hint word runs -> tools."""

    def __init__(self, tools: Sequence[ToolMeta]) -> None:
        self.size = len(tools)
        self.lower_names = [t.name.lower() for t in tools]
        self.exact_names: dict[str, int] = {}
        for position, name in enumerate(self.lower_names):
            self.exact_names.setdefault(name, position)
        self.is_mcp: list[bool] = []
        self.descriptions = [t.description.lower() for t in tools]
        self.hints = [" ".join((t.search_hint or "").split()).lower() for t in tools]
        by_part: dict[str, list[int]] = {}  # each distinct name part -> the tools with it
        for position, tool in enumerate(tools):
            parsed = parse_tool_name(tool.name)
            self.is_mcp.append(parsed.is_mcp)
            for part in dict.fromkeys(parsed.parts):
                by_part.setdefault(part, []).append(position)
        self.parts = list(by_part)
        self.part_tools = list(by_part.values())
        self.part_ids = {part: pid for pid, part in enumerate(self.parts)}
        self.trigrams: dict[str, set[int]] = {}
        for part, pid in self.part_ids.items():
            for at in range(len(part) - 2):
                self.trigrams.setdefault(part[at : at + 3], set()).add(pid)
        self.description_runs = _runs(self.descriptions)
        self.hint_runs = _runs(self.hints)
        self.points = lru_cache(maxsize=TERM_CACHE)(self._points)
        self.arrays = lru_cache(maxsize=TERM_CACHE)(self._arrays)

    def _points(self, term: str) -> dict[int, int]:
        """Tool -> the points one occurrence of `term` gives it (tools it gives none are
        left out): a name part equal to it 10 (12 for MCP tools), else one holding it 5 (6),
        the hint at word boundaries 4, the description 2. (Claude Code's +3 for the term in
        the space-joined name while the total is 0 never applies here: a term has no
        whitespace, so one inside that name is inside a part, which has already scored.)"""
        found: dict[int, int] = {}
        equal = self.part_ids.get(term)
        for pid in self._parts_holding(term):
            bonus = 2 if pid == equal else 1
            for tool in self.part_tools[pid]:
                value = (6 if self.is_mcp[tool] else 5) * bonus
                if value > found.get(tool, 0):
                    found[tool] = value
        for tool in self._word_matches(term, self.hint_runs, self.hints):
            found[tool] = found.get(tool, 0) + 4
        for tool in self._word_matches(term, self.description_runs, self.descriptions):
            found[tool] = found.get(tool, 0) + 2
        return found

    def _parts_holding(self, term: str) -> list[int]:
        """The distinct name parts `term` is a substring of."""
        if len(term) < 3:
            return [pid for pid, part in enumerate(self.parts) if term in part]
        candidates: set[int] | None = None
        for at in range(len(term) - 2):
            holders = self.trigrams.get(term[at : at + 3])
            if not holders:
                return []
            if candidates is None or len(holders) < len(candidates):
                candidates = holders
        assert candidates is not None
        return sorted(pid for pid in candidates if term in self.parts[pid])

    def _word_matches(
        self, term: str, runs: dict[str, list[int]], texts: list[str]
    ) -> Sequence[int]:
        """The tools whose text matches `term` at word boundaries (`\\bterm\\b`)."""
        words = _WORD_RUN.findall(term)
        if words == [term]:
            return runs.get(term, ())
        if words:  # every run of the term is a whole run of a text it matches
            candidates: Sequence[int] = min((runs.get(w, ()) for w in words), key=len)
        else:
            candidates = range(self.size)
        pattern = re.compile(r"\b" + re.escape(term) + r"\b", re.ASCII)
        return [t for t in candidates if term in texts[t] and pattern.search(texts[t])]

    def search_python(
        self, counts: Counter[str], required: set[str], max_results: int
    ) -> list[CcMatch]:
        totals: dict[int, int] = {}
        for term, count in counts.items():
            for tool, value in self.points(term).items():
                totals[tool] = totals.get(tool, 0) + value * count
        for term in required:
            held = self.points(term)
            totals = {tool: value for tool, value in totals.items() if tool in held}
        best = heapq.nsmallest(max_results, totals.items(), key=lambda kv: (-kv[1], kv[0]))
        return [CcMatch(tool, value, "keyword") for tool, value in best]

    def _arrays(self, term: str) -> tuple[Any, Any]:
        import numpy as np

        found = self.points(term)
        return (
            np.fromiter(found.keys(), dtype=np.intp, count=len(found)),
            np.fromiter(found.values(), dtype=np.int64, count=len(found)),
        )

    def search_numpy(
        self, counts: Counter[str], required: set[str], max_results: int
    ) -> list[CcMatch]:
        import numpy as np

        parts = [self.arrays(term) for term in counts]
        totals = np.bincount(
            np.concatenate([tools for tools, _ in parts]),
            weights=np.concatenate(
                [values * count for (_, values), count in zip(parts, counts.values(), strict=True)]
            ),
            minlength=self.size,
        ).astype(np.int64)  # whole points: exact in float64
        for term in required:
            held = np.zeros(self.size, dtype=bool)
            held[self.arrays(term)[0]] = True
            totals[~held] = 0
        (scored,) = np.nonzero(totals > 0)
        values = totals[scored]
        if len(scored) > max_results:  # the best, ties in registry order
            cut = -np.partition(-values, max_results - 1)[max_results - 1]
            keep = np.nonzero(values > cut)[0]
            ties = np.nonzero(values == cut)[0][: max_results - len(keep)]
            scored, values = scored[np.r_[keep, ties]], values[np.r_[keep, ties]]
        order = np.lexsort((scored, -values))
        return [
            CcMatch(tool, value, "keyword")
            for tool, value in zip(scored[order].tolist(), values[order].tolist(), strict=True)
        ]


def _runs(texts: Sequence[str]) -> dict[str, list[int]]:
    """Word run -> the positions of the texts holding it, ascending."""
    found: dict[str, list[int]] = {}
    for position, text in enumerate(texts):
        for word in set(_WORD_RUN.findall(text)):
            found.setdefault(word, []).append(position)
    return found


def _terms(query_lower: str) -> tuple[list[str], list[str]]:
    """(the `+required` terms, every term to score), the `+` taken off."""
    terms = [t[1:] if t.startswith("+") and len(t) > 1 else t for t in query_lower.split()]
    required = [t[1:] for t in query_lower.split() if t.startswith("+") and len(t) > 1]
    return required, terms
