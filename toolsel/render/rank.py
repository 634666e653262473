"""Render ranking results: a Rich table for people, a versioned JSON envelope for programs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolsel.ranking.core import RankResult
from toolsel.render.console import dumps_json

if TYPE_CHECKING:
    from rich.console import Console

RANK_SCHEMA = "toolsel.rank/v1"


def render_rank_json(result: RankResult) -> str:
    return dumps_json(
        {
            "schema": RANK_SCHEMA,
            "query": result.query,
            "method": result.method,
            "mode": "search",
            "results": [
                {
                    "rank": i,
                    "name": r.name,
                    "score": r.score,
                    "category": r.category,
                    "permission": r.permission,
                    "matched": list(r.matched),
                }
                for i, r in enumerate(result.results, start=1)
            ],
            "deprecated": [{"name": n, "replaced_by": by} for n, by in result.replaced],
        }
    )


def render_rank_human(result: RankResult, console: Console) -> None:
    from rich.table import Table

    if not result.results:
        console.print(f"No tool matches {result.query!r}.")
        return
    table = Table(title=f"Tools for: {result.query}", title_justify="left")
    for column, justify in (
        ("#", "right"),
        ("tool", "left"),
        ("score", "right"),
        ("category", "left"),
        ("permission", "left"),
        ("why", "left"),
    ):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for i, r in enumerate(result.results, start=1):
        table.add_row(
            str(i), r.name, f"{r.score:.3f}", r.category or "", r.permission, _why(r.matched)
        )
    console.print(table)


def _why(matched: tuple[str, ...]) -> str:
    """Each matched query term once, with the strongest field it matched in."""
    best: dict[str, str] = {}
    for item in matched:
        field, term = item.split(":", 1)
        best.setdefault(term, field)  # matches are listed strongest field first
    return ", ".join(f"{term} ({field})" for term, field in best.items())
