"""Which OLD tool is which NEW tool. The name is the wire identity, so a pair is made only
by: (1) the same name; (2) the OLD name kept in a NEW tool's `aliases` (a declared
rename); (3) the same name but for case (TD007, still breaking). Anything else is removed
or added; a removed and an added tool with equal parameters and a similar description
are only *hinted* as a rename (the hint never lowers the class: TD001 stays breaking)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from toolsel.diff.canonical import canonical_text
from toolsel.registry.model import Registry, Tool

#: Description similarity (rapidfuzz ratio, 0-100) above which a removed + added pair with
#: equal parameters is hinted as a rename.
RENAME_HINT_SIMILARITY = 80


class PairKind(StrEnum):
    NAME = "name"
    ALIAS = "alias"
    CASE = "case"


@dataclass(frozen=True, slots=True)
class Pair:
    old: Tool
    new: Tool
    kind: PairKind


@dataclass(frozen=True, slots=True)
class Matching:
    pairs: tuple[Pair, ...]
    removed: tuple[Tool, ...]  # OLD tools with no NEW counterpart, in OLD order
    added: tuple[Tool, ...]  # NEW tools with no OLD counterpart, in NEW order
    hints: dict[str, str]  # removed OLD name -> the added NEW name it looks renamed to


def unique_tools(registry: Registry) -> list[Tool]:
    """Each name once, first definition first (lint's TS007 reports the others)."""
    return [tool for tool in registry.tools if registry.get(tool.name) is tool]


def match_tools(old: Registry, new: Registry) -> Matching:
    old_tools, new_tools = unique_tools(old), unique_tools(new)
    pairs: dict[str, Pair] = {}
    taken: set[str] = set()
    for tool in old_tools:
        counterpart = new.get(tool.name)
        if counterpart is not None:
            pairs[tool.name] = Pair(tool, counterpart, PairKind.NAME)
            taken.add(counterpart.name)
    by_alias = {alias: t for t in new_tools for alias in t.aliases if alias not in new}
    by_folded = {t.name.casefold(): t for t in reversed(new_tools)}  # the first one wins
    for tool in old_tools:
        if tool.name in pairs:
            continue
        aliased = by_alias.get(tool.name)
        if aliased is not None and aliased.name not in taken:
            pairs[tool.name] = Pair(tool, aliased, PairKind.ALIAS)
            taken.add(aliased.name)
            continue
        folded = by_folded.get(tool.name.casefold())
        if folded is not None and folded.name not in taken and folded.name not in old:
            pairs[tool.name] = Pair(tool, folded, PairKind.CASE)
            taken.add(folded.name)
    removed = tuple(t for t in old_tools if t.name not in pairs)
    added = tuple(t for t in new_tools if t.name not in taken)
    ordered = tuple(pairs[t.name] for t in old_tools if t.name in pairs)
    return Matching(ordered, removed, added, _rename_hints(removed, added))


def _rename_hints(removed: tuple[Tool, ...], added: tuple[Tool, ...]) -> dict[str, str]:
    if not removed or not added:
        return {}
    from rapidfuzz import fuzz

    by_parameters: dict[str, list[Tool]] = {}
    for tool in added:
        by_parameters.setdefault(canonical_text(tool.parameters), []).append(tool)
    hints: dict[str, str] = {}
    for tool in removed:
        candidates = by_parameters.get(canonical_text(tool.parameters), [])
        scored = [(fuzz.ratio(tool.description, c.description), c.name) for c in candidates]
        best = max(scored, default=None)
        if best is not None and best[0] >= RENAME_HINT_SIMILARITY:
            hints[tool.name] = best[1]
    return hints
