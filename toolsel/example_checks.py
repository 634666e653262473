"""The checks of example prompts that `lint` reports (TS702 `collision`, TS703
`contradictions`) and `learn` leaves out: one place, so an overlay `learn` writes passes
`lint --strict`. A prompt given as an example of several tools (case and spacing ignored)
is a task that needs them all: it is an example of each, and its tools are its group.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolsel.ranking.prepared import PreparedIndex

#: How deep a collision looks for the example's own tool (to say where it ranks).
COLLISION_DEPTH = 10


@dataclass(frozen=True, slots=True)
class Collision:
    """TS702: the tool ranked first for an example of another tool, and where that tool is."""

    first: str
    place: int | None  # 1-based rank of the example's own tool; None: not in the top 10

    @property
    def where(self) -> str:
        return f"#{self.place}" if self.place is not None else f"not in the top {COLLISION_DEPTH}"


def collision(
    index: PreparedIndex, tool: str, text: str, group: frozenset[str] = frozenset()
) -> Collision | None:
    """The collision of `text` as an example of `tool` (and of the other tools of its
    `group`): the example teaches the opposite of the registry when `rank` (hybrid, every
    example learned) puts first a tool outside the group. None when `rank` puts `tool` or
    one of its group first, or when the text has no searchable words (nothing to rank)."""
    from toolsel.ranking.core import RankOptions, rank_index
    from toolsel.ranking.fields import tokens
    from toolsel.ranking.options import Method

    if not tokens(text):
        return None
    # hybrid, never auto: what lint and learn flag must not depend on the extras installed
    options = RankOptions(method=Method.HYBRID, top=COLLISION_DEPTH)
    names = [r.name for r in rank_index(index, text, options).results]
    if not names or names[0] == tool or names[0] in group:
        return None
    return Collision(names[0], names.index(tool) + 1 if tool in names else None)


def example_key(text: str) -> str:
    """What two examples share when they are the same prompt: case and spacing ignored."""
    return " ".join(text.casefold().split())


def groups(examples: Sequence[tuple[str, str]]) -> dict[str, frozenset[str]]:
    """Each example text (by `example_key`) and every tool it is an example of."""
    found: dict[str, set[str]] = {}
    for tool, text in examples:
        found.setdefault(example_key(text), set()).add(tool)
    return {key: frozenset(tools) for key, tools in found.items()}


def contradictions(
    examples: Sequence[tuple[str, str]], conflicting: Callable[[str, str], bool]
) -> Iterator[tuple[int, int]]:
    """TS703, the same prompt an example of two tools that `conflicts` says are never used
    together: for each (tool, text) whose text an earlier one gives to a tool it conflicts
    with, (its position, the position of that earlier one)."""
    first: dict[str, list[int]] = {}
    for position, (tool, text) in enumerate(examples):
        earlier = first.setdefault(example_key(text), [])
        for other in earlier:
            if conflicting(examples[other][0], tool):
                yield position, other
                break
        earlier.append(position)
