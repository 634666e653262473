"""`select:` direct lookups, as Claude Code's deferred-tool search does them, and the
`tool_reference` result block they map to, with the diagnostics Claude Code never gives.

    select:read_file, patch_file     -> names trimmed, de-duplicated, kept in order

`select_tools` is the entry point; it reads the registry model only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toolsel.errors import UsageError
from toolsel.registry.cache import blake2b
from toolsel.registry.model import Tool

SELECT_PREFIX = re.compile(r"^select:", re.IGNORECASE)
NOT_FOUND = "No matching deferred tools found"


@dataclass(frozen=True, slots=True)
class Resolution:
    requested: str
    tool: str | None  # the canonical tool name, or None when not found
    how: str  # exact-name | alias | case-insensitive | not-found | ambiguous
    note: str = ""  # a did-you-mean, the ambiguous candidates, or a whitespace warning


@dataclass(frozen=True, slots=True)
class SelectResult:
    query: str
    names: tuple[str, ...]  # the requested names after trimming and de-duplication
    resolutions: tuple[Resolution, ...]
    matches: tuple[str, ...]  # canonical names found, de-duplicated, in request order
    warnings: tuple[str, ...]
    with_deps: tuple[str, ...] = ()  # requires-closure additions, in load order
    tool_use_id: str = ""
    pending_servers: tuple[str, ...] = ()

    @property
    def selected(self) -> tuple[str, ...]:
        """Every tool the block references: the matches, then their requirements."""
        return self.matches + self.with_deps

    @property
    def unresolved(self) -> tuple[Resolution, ...]:
        return tuple(r for r in self.resolutions if r.tool is None)

    def block(self) -> dict[str, Any]:
        """The `tool_result` a ToolSearch-style tool returns for this lookup."""
        return tool_result_block(
            self.selected, tool_use_id=self.tool_use_id, pending_servers=self.pending_servers
        )


def is_select(query: str) -> bool:
    """Whether `query` is a `select:` lookup (any case); also `toolsel.text.is_select`,
    which the query path uses without importing this module and the registry model."""
    return bool(SELECT_PREFIX.match(query))


def parse_select(query: str) -> list[str]:
    """The comma-separated names after `select:`, trimmed and de-duplicated in order."""
    body = SELECT_PREFIX.sub("", query, count=1)
    names = [part.strip() for part in body.split(",")]
    return list(dict.fromkeys(n for n in names if n))


def default_tool_use_id(query: str) -> str:
    """A `tool_use_id` derived from the query, so the same lookup gives the same block."""
    return "toolu_" + blake2b(query.encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()


def select_tools(
    tools: Sequence[Tool],
    query: str,
    *,
    with_deps: bool = False,
    tool_use_id: str | None = None,
    pending_servers: Sequence[str] = (),
) -> SelectResult:
    """Resolve a `select:` query against `tools`; `with_deps` adds each match's `requires`
    closure, prerequisites first."""
    names = parse_select(query)
    if not names:
        raise UsageError("`select:` names no tool", hint="write e.g. select:read_file,patch_file")
    lookup = _Lookup(tools)
    resolutions = [lookup.resolve(name) for name in names]
    matches = tuple(dict.fromkeys(r.tool for r in resolutions if r.tool))
    warnings = tuple(r.note for r in resolutions if r.how == "not-found" and " " in r.requested)
    return SelectResult(
        query=query,
        names=tuple(names),
        resolutions=tuple(resolutions),
        matches=matches,
        warnings=warnings,
        with_deps=_requirements(tools, matches) if with_deps and matches else (),
        tool_use_id=tool_use_id or default_tool_use_id(query),
        pending_servers=tuple(pending_servers),
    )


def _requirements(tools: Sequence[Tool], matches: tuple[str, ...]) -> tuple[str, ...]:
    from toolsel.graph import load_order

    graph: dict[str, list[str]] = {}
    for tool in tools:
        graph.setdefault(tool.name, list(tool.requires))
    return tuple(name for name in load_order(graph, matches) if name not in matches)


class _Lookup:
    """Names, aliases and case-folded keys of every tool, for resolving requested names."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        self.names = [t.name for t in tools]
        self.by_name = set(self.names)
        self.by_alias = {alias: t.name for t in tools for alias in t.aliases}
        self.folded: dict[str, list[str]] = {}
        for tool in tools:
            for key in (tool.name, *tool.aliases):
                self.folded.setdefault(key.casefold(), []).append(tool.name)

    def resolve(self, name: str) -> Resolution:
        if name in self.by_name:
            return Resolution(name, name, "exact-name")
        if name in self.by_alias:
            return Resolution(name, self.by_alias[name], "alias")
        candidates = list(dict.fromkeys(self.folded.get(name.casefold(), [])))
        if len(candidates) == 1:
            note = f"{name!r} matches {candidates[0]!r} only when case is ignored; Claude Code's select: is case-sensitive"
            return Resolution(name, candidates[0], "case-insensitive", note)
        short = [n for n in self.names if n.startswith("mcp__") and n.split("__")[-1] == name]
        if len(short) > 1:
            note = f"{name!r} is the short name of {', '.join(short)}; use the full mcp__server__tool name"
            return Resolution(name, None, "ambiguous", note)
        if len(short) == 1:
            note = f"{name!r} is the short name of {short[0]!r}; select: needs the full name"
        elif " " in name.strip():
            note = f"{name!r} looks like a space-separated list; separate names with commas: select:{','.join(name.split())}"
        else:
            from toolsel.suggest import closest

            guess = closest(name, self.names + list(self.by_alias))
            note = f"did you mean {guess!r}?" if guess else "no tool or alias has this name"
        return Resolution(name, None, "not-found", note)


def tool_result_block(
    matches: Sequence[str], *, tool_use_id: str, pending_servers: Sequence[str] = ()
) -> dict[str, Any]:
    """The `tool_result` a ToolSearch-style tool returns: `tool_reference` blocks, or the
    not-found text (with the pending-MCP-servers hint)."""
    if matches:
        content: Any = [{"type": "tool_reference", "tool_name": name} for name in matches]
    else:
        content = NOT_FOUND
        if pending_servers:
            content += f". Some MCP servers are still connecting: {', '.join(pending_servers)}. Try searching again shortly."
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
