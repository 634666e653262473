"""Ranking tools against a prompt: the index (`index`, cached by `store`), what is derived
from it (`prepared`), the scoring methods (`scorers`, `taught`, `cc`, `semantic`) and the selection
pipeline (`core`). `rank_tools` and `load_index` are the entry points.

Attributes are imported lazily, so the CLI can import `toolsel.ranking.options` cheaply.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolsel.ranking.core import RankedTool, RankOptions, RankResult, rank_index
    from toolsel.ranking.index import RankIndex, build_index
    from toolsel.ranking.options import Method
    from toolsel.ranking.prepared import PreparedIndex, prepare
    from toolsel.ranking.store import load_index
    from toolsel.registry.model import Registry

_LAZY = {
    name: module
    for module, names in {
        "toolsel.ranking.core": ("RankedTool", "RankOptions", "RankResult", "rank_index"),
        "toolsel.ranking.index": ("RankIndex", "build_index"),
        "toolsel.ranking.options": ("Method",),
        "toolsel.ranking.prepared": ("PreparedIndex", "prepare"),
        "toolsel.ranking.store": ("load_index",),
    }.items()
    for name in names
}
__all__ = [
    "Method", "PreparedIndex", "RankIndex", "RankOptions", "RankResult", "RankedTool",
    "build_index", "load_index", "prepare", "rank_index", "rank_tools",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'toolsel.ranking' has no attribute {name!r}")
    return getattr(importlib.import_module(_LAZY[name]), name)


def rank_tools(
    registry: Registry | RankIndex | PreparedIndex, query: str, options: RankOptions | None = None
) -> RankResult:
    """Rank a loaded `Registry` (or a prebuilt index) for `query`."""
    from toolsel.ranking.core import rank_index
    from toolsel.ranking.index import RankIndex, build_index
    from toolsel.ranking.prepared import PreparedIndex

    index = registry if isinstance(registry, (RankIndex, PreparedIndex)) else build_index(registry)
    return rank_index(index, query, options)
