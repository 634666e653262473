"""What an agent sees before it searches: the deferred-tool listing and the always-loaded
tools with an estimate of the tokens their definitions cost."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from toolsel.registry.model import Registry, Tool
from toolsel.text import estimate_tokens


@dataclass(frozen=True, slots=True)
class Listing:
    deferred: tuple[str, ...]  # sorted names of the defer_loading tools
    loaded: tuple[tuple[str, int], ...]  # (name, estimated tokens) of every other live tool
    budget: int | None

    @property
    def loaded_tokens(self) -> int:
        return sum(tokens for _, tokens in self.loaded)

    @property
    def over_budget(self) -> bool:
        return self.budget is not None and self.loaded_tokens > self.budget

    def block(self) -> str:
        """The `<available-deferred-tools>` block Claude Code prepends (names only, sorted)."""
        return (
            "<available-deferred-tools>\n"
            + "".join(f"{n}\n" for n in self.deferred)
            + "</available-deferred-tools>"
        )


#: How `definition_tokens` estimates, named where its figures are shown.
DEFINITION_TOKEN_METHOD = "chars/4 of the definition's JSON (name, description, input_schema)"


def definition_tokens(tool: Tool) -> int:
    """What loading a tool's definition costs every request, estimated (chars/4)."""
    definition = {
        "name": tool.name,
        "description": tool.description,
        "input_schema": tool.parameters,
    }
    return estimate_tokens(json.dumps(definition))


def deferred_block_tokens(names: Iterable[str]) -> int:
    """What the listing of deferred tool names costs (`Listing.block`), estimated."""
    return estimate_tokens(Listing(tuple(sorted(names)), (), None).block())


def build_listing(registry: Registry, *, budget: int | None = None) -> Listing:
    live = [t for t in registry.tools if not t.deprecated]
    deferred = tuple(sorted(t.name for t in live if t.defer_loading))
    loaded = tuple((t.name, definition_tokens(t)) for t in live if not t.defer_loading)
    return Listing(deferred, loaded, budget)
