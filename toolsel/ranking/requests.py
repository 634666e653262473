"""Rank many recorded requests over one registry, each distinct request once: what the
ledger (`stats --ledger`), the misroutes (`stats --misroutes`) and lint's misroute
evidence (TS708) ask of `rank`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolsel.ranking.core import RankOptions
    from toolsel.ranking.prepared import PreparedIndex
    from toolsel.registry.model import Registry


def rank_each_once(
    registry: Registry | PreparedIndex, requests: Iterable[str], options: RankOptions
) -> dict[str, tuple[str, ...]]:
    """Per distinct request, the tools `rank` offers for it under `options`, best first.
    The index is prepared once (its vocabulary and statistics serve every request) and,
    for `semantic` or `fusion`, the requests are embedded up front in batches, as `eval`
    does, not one model call per request."""
    from toolsel.ranking.core import rank_index
    from toolsel.ranking.index import build_index
    from toolsel.ranking.prepared import PreparedIndex
    from toolsel.ranking.semantic import prepare_methods

    index = (
        registry if isinstance(registry, PreparedIndex) else PreparedIndex(build_index(registry))
    )
    distinct = list(dict.fromkeys(requests))
    vectors = prepare_methods(index, [options.method], distinct)
    return {
        request: tuple(
            r.name
            for r in rank_index(index, request, options, query_vector=vectors.get(request)).results
        )
        for request in distinct
    }
