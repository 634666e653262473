"""Render `toolsel rank`: search results and `select:` lookups, for people (Rich) and for
programs (versioned JSON and JSONL), plus `--batch` output."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import IO, TYPE_CHECKING, Any

from toolsel.ranking.core import RankedTool, RankResult
from toolsel.render.console import dumps_json, dumps_line, make_console
from toolsel.render.escape import visible
from toolsel.render.formats import RankFormat
from toolsel.schemas import Output, schema_name

if TYPE_CHECKING:
    from toolsel.ranking.batch import BatchLine
    from toolsel.select import SelectResult

RANK_SCHEMA = schema_name(Output.RANK)
RANK_LINE_SCHEMA = schema_name(Output.RANK_LINE)
RANK_BATCH_SCHEMA = schema_name(Output.RANK_BATCH)
SELECT_SCHEMA = schema_name(Output.SELECT)


# -- search -------------------------------------------------------------------------------


def _ranked(tool: RankedTool, rank: int | None, explain: bool) -> dict[str, Any]:
    item: dict[str, Any] = {
        "rank": rank,
        "name": tool.name,
        "score": tool.score,
        "raw_score": tool.raw,
        "strength": tool.strength,
        "category": tool.category,
        "permission": tool.permission,
        "why": tool.match,
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
        "strong_match": result.strong,
        "results": [_ranked(r, i, explain) for i, r in enumerate(result.results, start=1)],
        "always_included": [_ranked(r, None, explain) for r in result.always],
        "blocked": [
            {"name": d.name, "permission": d.needs, "score": round(d.score, 6)}
            for d in result.blocked
        ],
        "excluded": [
            {"name": d.name, "conflicts_with": d.conflicts_with, "score": round(d.score, 6)}
            for d in result.excluded
        ],
        "deprecated": [{"name": d.name, "replaced_by": d.replaced_by} for d in result.deprecated],
    }


def rank_line(result: RankResult, query_id: str | None = None) -> dict[str, Any]:
    """The compact form of a result, one JSON line (`--format jsonl`, `--batch`)."""
    return {
        "schema": RANK_LINE_SCHEMA,
        "id": query_id,
        "query": result.query,
        "strong_match": result.strong,
        "results": [
            {"name": r.name, "score": r.score, "strength": r.strength} for r in result.results
        ],
        "always_included": [r.name for r in result.always],
    }


def render_rank_json(result: RankResult, out: IO[str], *, explain: bool = False) -> None:
    out.write(dumps_json(rank_payload(result, explain=explain)))


def render_rank_jsonl(result: RankResult, out: IO[str], *, explain: bool = False) -> None:
    out.write(dumps_line(rank_line(result)))


def render_rank_human(result: RankResult, out: IO[str], *, explain: bool = False) -> None:
    from rich.table import Table
    from rich.text import Text

    console = make_console(out)
    if result.results:
        table = Table(title=f"Tools for: {visible(result.query)}", title_justify="left")
        table.add_column("#", justify="right")
        table.add_column("tool", overflow="fold", min_width=10)
        table.add_column("score", justify="right")
        table.add_column("category", overflow="fold")
        table.add_column("permission", overflow="fold")
        table.add_column("why", overflow="fold", min_width=12)
        for i, r in enumerate(result.results, start=1):
            table.add_row(
                str(i),
                visible(r.name),
                f"{r.score:.3f}",
                visible(r.category or ""),
                r.permission,
                visible(_why(r)),
            )
        console.print(table)
        if not result.strong:
            best = result.results[0]
            console.print(
                Text(
                    f"No strong match: the best tool matches {best.strength:.0%} of the prompt "
                    f"(scores are relative to the best match; --min-strength cuts on this).",
                    style="yellow",
                )
            )
    else:
        console.print(
            Text(
                f"No tool matches {visible(repr(result.query))} (method {result.method}).",
                style="yellow",
            )
        )
    if result.always:
        names = ", ".join(visible(r.name) for r in result.always)
        console.print(Text(f"Always included: {names}", style="dim"))
    if explain:
        for i, r in enumerate(result.results, start=1):
            if r.contributions:
                console.print(Text(f"{i}. {visible(r.name)}", style="bold"))
                for c in sorted(r.contributions, key=lambda c: -c.value):
                    console.print(f"   {visible(c.term):<16} {c.field:<12} {c.value:8.3f}")
    # a tool dropped, blocked or excluded is said only when it changed the answer: it would
    # have been shown (it scores at least as well as the last tool shown)
    floor = result.results[-1].score if result.results else 0.0
    for d in [d for d in result.deprecated if d.score >= floor][:5]:
        replacement = f"; use {d.replaced_by}" if d.replaced_by else ""
        console.print(Text(visible(f"dropped {d.name}: deprecated{replacement}"), style="dim"))
    for b in (b for b in result.blocked if b.score >= floor):
        console.print(
            Text(visible(f"blocked {b.name}: needs permission {b.needs}"), style="yellow")
        )
    for e in (e for e in result.excluded if e.score >= floor):
        console.print(
            Text(visible(f"excluded {e.name}: conflicts with {e.conflicts_with}"), style="yellow")
        )


def _why(tool: RankedTool) -> str:
    if tool.match != "match":
        return tool.match
    # the embedding's share first, then lexical evidence (strongest first), then what fuzzy
    # matching recognised
    embedding = ("cosine", "semantic")
    parts = [f"{c.field} {c.value:.2f}" for c in tool.contributions if c.field in embedding]
    best: dict[str, str] = {}
    for c in sorted(tool.contributions, key=lambda c: (c.field == "fuzzy", -c.value)):
        if c.field not in embedding:
            best.setdefault(c.term, c.field)
    return ", ".join(parts + [f"{term} ({field})" for term, field in best.items()])


SearchRenderer = Callable[..., None]
#: `rank PROMPT --format F`. A search has no tool_result block (that is `select:`'s).
SEARCH_RENDERERS: dict[RankFormat, SearchRenderer] = {
    RankFormat.HUMAN: render_rank_human,
    RankFormat.JSON: render_rank_json,
    RankFormat.JSONL: render_rank_jsonl,
}


# -- batch --------------------------------------------------------------------------------


def render_batch_jsonl(lines: Iterable[BatchLine], out: IO[str]) -> None:
    """One line per ranked query, written as each is ranked."""
    for item in lines:
        if item.result is not None:
            out.write(dumps_line(rank_line(item.result, item.id)))


def render_batch_json(lines: Iterable[BatchLine], out: IO[str]) -> None:
    queries = [
        {"id": item.id, **rank_payload(item.result)} for item in lines if item.result is not None
    ]
    out.write(dumps_json({"schema": RANK_BATCH_SCHEMA, "queries": queries}))


#: `rank --batch FILE --format F` (human output of a batch is JSON lines).
BATCH_RENDERERS: dict[RankFormat, Callable[[Iterable[BatchLine], IO[str]], None]] = {
    RankFormat.HUMAN: render_batch_jsonl,
    RankFormat.JSONL: render_batch_jsonl,
    RankFormat.JSON: render_batch_json,
}


# -- select: ------------------------------------------------------------------------------


def select_payload(result: SelectResult) -> dict[str, Any]:
    """`toolsel.select`: the tool_result block, and how each requested name resolved."""
    return {
        "schema": SELECT_SCHEMA,
        "query": result.query,
        "requested": list(result.names),
        "resolutions": [
            {"requested": r.requested, "tool": r.tool, "how": r.how, "note": r.note or None}
            for r in result.resolutions
        ],
        "matches": list(result.matches),
        "with_deps": list(result.with_deps),
        "not_found": [r.requested for r in result.unresolved],
        "case_only": [r.requested for r in result.resolutions if r.how == "case-insensitive"],
        "warnings": list(result.warnings),
        "tool_result": result.block(),
    }


def render_select_human(result: SelectResult, out: IO[str]) -> None:
    from rich.table import Table
    from rich.text import Text

    console = make_console(out)
    table = Table(title=f"Direct selection: {visible(result.query)}", title_justify="left")
    for column in ("requested", "tool", "resolved by", "note"):
        table.add_column(column, overflow="fold")
    for r in result.resolutions:
        style = "red" if r.tool is None else ("yellow" if r.how == "case-insensitive" else "")
        table.add_row(
            visible(r.requested), visible(r.tool or "-"), r.how, visible(r.note), style=style
        )
    console.print(table)
    if result.with_deps:
        console.print(
            Text(visible("added by --with-deps: " + ", ".join(result.with_deps)), style="dim")
        )
    if not result.matches:
        console.print(Text("No matching deferred tools found", style="yellow"))


def render_select_json(result: SelectResult, out: IO[str]) -> None:
    out.write(dumps_json(select_payload(result)))


def render_select_jsonl(result: SelectResult, out: IO[str]) -> None:
    out.write(dumps_line(select_payload(result)))


def render_select_block(result: SelectResult, out: IO[str]) -> None:
    """The bare tool_result block, to paste into a conversation."""
    out.write(dumps_json(result.block()))


#: `rank select:A,B --format F`.
SELECT_RENDERERS: dict[RankFormat, Callable[[SelectResult, IO[str]], None]] = {
    RankFormat.HUMAN: render_select_human,
    RankFormat.JSON: render_select_json,
    RankFormat.JSONL: render_select_jsonl,
    RankFormat.TOOL_RESULT: render_select_block,
}
