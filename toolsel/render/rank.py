"""Render ranking and `select:` results: Rich for people, versioned JSON/JSONL for programs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolsel.ranking.core import RankedTool, RankResult
from toolsel.render.console import dumps_json
from toolsel.select import SelectResult

if TYPE_CHECKING:
    from rich.console import Console

RANK_SCHEMA = "toolsel.rank/v1"


def _ranked(tool: RankedTool, rank: int, explain: bool) -> dict[str, Any]:
    item: dict[str, Any] = {
        "rank": rank,
        "name": tool.name,
        "score": tool.score,
        "raw_score": tool.raw,
        "category": tool.category,
        "permission": tool.permission,
        "why": tool.why,
        "always_include": tool.always_include,
    }
    if explain:
        item["explain"] = [
            {"term": c.term, "field": c.field, "contribution": round(c.value, 6)}
            for c in tool.contributions
        ]
    return item


def rank_payload(result: RankResult, *, explain: bool = False) -> dict[str, Any]:
    return {
        "schema": RANK_SCHEMA,
        "query": result.query,
        "method": result.method,
        "mode": "search",
        "terms": list(result.terms),
        "results": [_ranked(r, i, explain) for i, r in enumerate(result.results, start=1)],
        "blocked": [
            {"name": d.name, "permission": d.detail, "score": round(d.score, 6)}
            for d in result.blocked
        ],
        "excluded": [
            {"name": d.name, "conflicts_with": d.detail, "score": round(d.score, 6)}
            for d in result.excluded
        ],
        "deprecated": [
            {"name": d.name, "replaced_by": d.detail or None} for d in result.deprecated
        ],
    }


def render_rank_json(result: RankResult, *, explain: bool = False) -> str:
    return dumps_json(rank_payload(result, explain=explain))


def render_rank_jsonl(result: RankResult, query_id: str | None = None) -> str:
    import orjson

    line = {
        "id": query_id,
        "query": result.query,
        "results": [{"name": r.name, "score": r.score} for r in result.results],
    }
    return orjson.dumps(line, option=orjson.OPT_SORT_KEYS).decode() + "\n"


def render_rank_human(result: RankResult, console: Console, *, explain: bool = False) -> None:
    from rich.table import Table
    from rich.text import Text

    if result.results:
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
            table.add_row(str(i), r.name, f"{r.score:.3f}", r.category or "", r.permission, _why(r))
        console.print(table)
    else:
        console.print(
            Text(f"No tool matches {result.query!r} (method {result.method}).", style="yellow")
        )
    if explain:
        for i, r in enumerate(result.results, start=1):
            if r.contributions:
                console.print(Text(f"{i}. {r.name}", style="bold"))
                for c in sorted(r.contributions, key=lambda c: -c.value):
                    console.print(f"   {c.term:<16} {c.field:<12} {c.value:8.3f}")
    for d in result.deprecated[:5]:
        replacement = f"; use {d.detail}" if d.detail else ""
        console.print(Text(f"dropped {d.name}: deprecated{replacement}", style="dim"))
    for d in result.blocked:
        console.print(Text(f"blocked {d.name}: needs permission {d.detail}", style="yellow"))
    for d in result.excluded:
        console.print(Text(f"excluded {d.name}: conflicts with {d.detail}", style="yellow"))


def _why(tool: RankedTool) -> str:
    if tool.why != "match":
        return tool.why
    # the embedding's share first, then lexical evidence (strongest first), then what fuzzy
    # matching recognised
    embedding = ("cosine", "semantic")
    parts = [f"{c.field} {c.value:.2f}" for c in tool.contributions if c.field in embedding]
    best: dict[str, str] = {}
    for c in sorted(tool.contributions, key=lambda c: (c.field == "fuzzy", -c.value)):
        if c.field not in embedding:
            best.setdefault(c.term, c.field)
    return ", ".join(parts + [f"{term} ({field})" for term, field in best.items()])


# -- select: -----------------------------------------------------------------------------


def render_select_human(result: SelectResult, console: Console) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"Direct selection: {result.query}", title_justify="left")
    for column in ("requested", "tool", "resolved by", "note"):
        table.add_column(column)
    for r in result.resolutions:
        style = "red" if r.tool is None else ("yellow" if r.how == "case-insensitive" else "")
        table.add_row(r.requested, r.tool or "-", r.how, r.note, style=style)
    console.print(table)
    if result.with_deps:
        console.print(Text("added by --with-deps: " + ", ".join(result.with_deps), style="dim"))
    if not result.matches:
        console.print(Text("No matching deferred tools found", style="yellow"))
