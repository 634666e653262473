"""The cost and usage ledger (`toolsel stats --ledger`): per server and tool, what its
definition costs every request beside what its calls cost and did, and a deferral plan
measured on the transcripts themselves.

The plan defers every tool behind tool search and keeps always loaded only what the
recorded calls need: a call is *reachable* when its tool stays loaded, or when `rank` puts
its tool in the top `top_k` for the user's request that led to it (as `toolsel learn`
mines it). A call with no request before it (or an errored call, which `learn` does not
mine) is reachable only when its tool stays loaded. Tools are kept loaded, the one with the
most unreachable calls first, until the reachable share meets the target. Ranking is over
the whole registry, loaded tools included: a search among fewer tools only finds more.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from toolsel.registry.model import Registry, Tool
from toolsel.replay.stats import SizeSummary, ToolUsage, UsageStats

#: The share of recorded calls the plan keeps reachable unless told otherwise.
DEFAULT_TARGET = 0.99
DEFAULT_TOP_K = 5


@dataclass(frozen=True, slots=True)
class LedgerRow:
    server: str  # the MCP server of an `mcp__server__tool` name; "-" for the others
    tool: str
    definition_tokens: int  # what loading it costs every request (`toolsel prompt`'s estimate)
    calls: int
    errors: int
    result_size: SizeSummary | None
    prompted_calls: int  # successful calls with the request that led to them
    found_calls: int  # of those, the calls whose request ranks the tool in the top k
    loaded: bool  # the plan keeps it always loaded


@dataclass(frozen=True, slots=True)
class Ledger:
    rows: tuple[LedgerRow, ...]  # by server, then most called first
    calls: int  # recorded calls of registry tools
    reachable_calls: int  # with the plan
    tokens_before: int  # every live tool loaded
    tokens_after: int  # the tools kept loaded, and the listing of deferred names
    target: float
    top_k: int
    budget: int | None
    unregistered_calls: int  # calls of tools the registry does not define (not in the plan)

    @property
    def reachable_share(self) -> float:
        return self.reachable_calls / self.calls if self.calls else 1.0

    @property
    def saved_share(self) -> float:
        return 1 - self.tokens_after / self.tokens_before if self.tokens_before else 0.0

    @property
    def over_budget(self) -> bool:
        return self.budget is not None and self.tokens_after > self.budget

    @property
    def failed(self) -> bool:
        """The CI gate: over the token budget, or fewer calls reachable than the target."""
        return self.over_budget or self.reachable_share < self.target


#: The requests that led to a tool's successful calls: prompt -> calls it led to.
Requests = Mapping[str, Mapping[str, int]]


def server_of(name: str) -> str:
    parts = name.split("__")
    return parts[1] if len(parts) >= 3 and parts[0] == "mcp" else "-"


def found_by_rank(registry: Registry, requests: Requests, top_k: int) -> dict[str, int]:
    """Per tool, its calls whose request ranks it among the top `top_k` (each distinct
    request ranked once, `rank_each_once`)."""
    from toolsel.ranking.core import RankOptions
    from toolsel.ranking.requests import rank_each_once

    prompts = (prompt for by_prompt in requests.values() for prompt in by_prompt)
    offered = rank_each_once(registry, prompts, RankOptions(top=top_k))
    found = {
        tool: sum(count for prompt, count in by_prompt.items() if tool in offered[prompt])
        for tool, by_prompt in requests.items()
    }
    return {tool: count for tool, count in found.items() if count}


def build_ledger(
    usage: UsageStats,
    registry: Registry,
    requests: Requests,
    *,
    target: float = DEFAULT_TARGET,
    top_k: int = DEFAULT_TOP_K,
    budget: int | None = None,
    found: Callable[[Registry, Requests, int], Mapping[str, int]] = found_by_rank,
) -> Ledger:
    """The ledger of `usage` (stats over transcripts) against `registry`, with the plan."""
    from toolsel.listing import deferred_block_tokens, definition_tokens

    live = [t for t in registry.tools if not t.deprecated]
    used = {t.name: t for t in usage.tools}
    reached = found(registry, requests, top_k)
    prompted = {tool: sum(p.values()) for tool, p in requests.items()}
    calls = sum(used[t.name].calls for t in live if t.name in used)
    unreachable = {
        t.name: used[t.name].calls - min(reached.get(t.name, 0), used[t.name].calls)
        for t in live
        if t.name in used
    }
    loaded = _plan(live, unreachable, calls, target)
    reachable = calls - sum(n for name, n in unreachable.items() if name not in loaded)
    rows = tuple(
        sorted(
            (_row(t, used.get(t.name), prompted, reached, t.name in loaded) for t in live),
            key=lambda r: (r.server, -r.calls, r.tool),
        )
    )
    deferred = [t.name for t in live if t.name not in loaded]
    tokens_after = sum(r.definition_tokens for r in rows if r.loaded)
    tokens_after += deferred_block_tokens(deferred) if deferred else 0
    registered = {t.name for t in registry.tools}
    return Ledger(
        rows=rows,
        calls=calls,
        reachable_calls=reachable,
        tokens_before=sum(definition_tokens(t) for t in live),
        tokens_after=tokens_after,
        target=target,
        top_k=top_k,
        budget=budget,
        unregistered_calls=sum(t.calls for t in usage.tools if t.name not in registered),
    )


def _plan(
    live: Sequence[Tool], unreachable: Mapping[str, int], calls: int, target: float
) -> set[str]:
    """The tools kept loaded: `always_include` ones, then the most unreachable calls first
    until the reachable share meets `target`."""
    loaded = {t.name for t in live if t.always_include}
    missing = sum(n for name, n in unreachable.items() if name not in loaded)
    for name, count in sorted(unreachable.items(), key=lambda kv: (-kv[1], kv[0])):
        if not count or calls - missing >= target * calls:
            break
        if name not in loaded:
            loaded.add(name)
            missing -= count
    return loaded


def _row(
    tool: Tool,
    usage: ToolUsage | None,
    prompted: Mapping[str, int],
    reached: Mapping[str, int],
    loaded: bool,
) -> LedgerRow:
    from toolsel.listing import definition_tokens

    return LedgerRow(
        server=server_of(tool.name),
        tool=tool.name,
        definition_tokens=definition_tokens(tool),
        calls=usage.calls if usage else 0,
        errors=usage.errors if usage else 0,
        result_size=usage.result_size if usage else None,
        prompted_calls=prompted.get(tool.name, 0),
        found_calls=reached.get(tool.name, 0),
        loaded=loaded,
    )
