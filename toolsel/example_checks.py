"""The checks of example prompts that `lint` reports (TS702, TS703) and `learn` leaves out:
one place, so an overlay `learn` writes passes `lint --strict`.

- TS702, a collision: `rank` (its default method, with every example learned) puts another
  tool first for an example, so the example teaches the opposite of the registry.
- TS703, a duplicate: the same prompt (case and spacing ignored) is an example of two tools;
  the first one given keeps it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
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


def collision(index: PreparedIndex, tool: str, text: str) -> Collision | None:
    """The collision of `text` as an example of `tool`: None when `rank` puts `tool` first,
    or when the text has no searchable words (nothing to rank)."""
    from toolsel.ranking.core import RankOptions, rank_index
    from toolsel.ranking.fields import tokens
    from toolsel.ranking.options import Method

    if not tokens(text):
        return None
    # hybrid, never auto: what lint and learn flag must not depend on the extras installed
    options = RankOptions(method=Method.HYBRID, top=COLLISION_DEPTH)
    names = [r.name for r in rank_index(index, text, options).results]
    if not names or names[0] == tool:
        return None
    return Collision(names[0], names.index(tool) + 1 if tool in names else None)


def example_key(text: str) -> str:
    """What two examples share when they are the same prompt: case and spacing ignored."""
    return " ".join(text.casefold().split())


def duplicates(examples: Sequence[tuple[str, str]]) -> Iterator[tuple[int, int]]:
    """TS703: for each (tool, text) whose text an earlier one gives to another tool, (its
    position, the position of the first one with that text)."""
    first: dict[str, int] = {}
    for position, (tool, text) in enumerate(examples):
        owner = first.setdefault(example_key(text), position)
        if examples[owner][0] != tool:
            yield position, owner
