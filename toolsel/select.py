"""`select:` direct lookups (the seeds' Direct Selection Mode) and their `tool_reference`
result blocks (Result Mapping), with the diagnostics Claude Code never gives.

    select:read_file, patch_file     -> names trimmed, de-duplicated, kept in order
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

from toolsel.errors import UsageError
from toolsel.ranking.index import ToolMeta

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


def is_select(query: str) -> bool:
    return bool(SELECT_PREFIX.match(query))


def parse_select(query: str) -> list[str]:
    """The comma-separated names after `select:`, trimmed and de-duplicated in order."""
    body = SELECT_PREFIX.sub("", query, count=1)
    names = [part.strip() for part in body.split(",")]
    return list(dict.fromkeys(n for n in names if n))


def resolve_select(tools: tuple[ToolMeta, ...], query: str) -> SelectResult:
    names = parse_select(query)
    if not names:
        raise UsageError("`select:` names no tool", hint="write e.g. select:read_file,patch_file")
    by_name = {t.name: t.name for t in tools}
    by_alias = {alias: t.name for t in tools for alias in t.aliases}
    folded: dict[str, list[str]] = {}
    for tool in tools:
        for key in (tool.name, *tool.aliases):
            folded.setdefault(key.casefold(), []).append(tool.name)
    resolutions = [_resolve(name, tools, by_name, by_alias, folded) for name in names]
    matches = list(dict.fromkeys(r.tool for r in resolutions if r.tool))
    warnings = [r.note for r in resolutions if r.how == "not-found" and " " in r.requested]
    return SelectResult(query, tuple(names), tuple(resolutions), tuple(matches), tuple(warnings))


def _resolve(
    name: str,
    tools: tuple[ToolMeta, ...],
    by_name: dict[str, str],
    by_alias: dict[str, str],
    folded: dict[str, list[str]],
) -> Resolution:
    if name in by_name:
        return Resolution(name, name, "exact-name")
    if name in by_alias:
        return Resolution(name, by_alias[name], "alias")
    candidates = list(dict.fromkeys(folded.get(name.casefold(), [])))
    if len(candidates) == 1:
        return Resolution(
            name,
            candidates[0],
            "case-insensitive",
            f"{name!r} matches {candidates[0]!r} only when case is ignored; Claude Code's select: is case-sensitive",
        )
    short = [t.name for t in tools if t.name.startswith("mcp__") and t.name.split("__")[-1] == name]
    if len(short) > 1:
        return Resolution(
            name,
            None,
            "ambiguous",
            f"{name!r} is the short name of {', '.join(short)}; use the full mcp__server__tool name",
        )
    if len(short) == 1:
        return Resolution(
            name,
            None,
            "not-found",
            f"{name!r} is the short name of {short[0]!r}; select: needs the full name",
        )
    if " " in name.strip():
        parts = name.split()
        return Resolution(
            name,
            None,
            "not-found",
            f"{name!r} looks like a space-separated list; separate names with commas: select:{','.join(parts)}",
        )
    from toolsel.suggest import closest

    guess = closest(name, [t.name for t in tools] + list(by_alias))
    return Resolution(
        name,
        None,
        "not-found",
        f"did you mean {guess!r}?" if guess else "no tool or alias has this name",
    )


def tool_result_block(
    matches: tuple[str, ...] | list[str],
    *,
    tool_use_id: str | None = None,
    pending_servers: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The `tool_result` a ToolSearch-style tool returns: `tool_reference` blocks, or the
    not-found text (with the pending-MCP-servers hint)."""
    block_id = tool_use_id or f"toolu_{uuid.uuid4().hex[:24]}"
    if matches:
        content: Any = [{"type": "tool_reference", "tool_name": name} for name in matches]
    else:
        content = NOT_FOUND
        if pending_servers:
            content += f". Some MCP servers are still connecting: {', '.join(pending_servers)}. Try searching again shortly."
    return {"type": "tool_result", "tool_use_id": block_id, "content": content}
