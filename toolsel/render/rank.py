"""Render `toolsel rank`: search results and `select:` lookups, for people (Rich) and for
programs (versioned JSON and JSONL), plus `--batch` output."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import IO, TYPE_CHECKING, Any

from toolsel.ranking.core import RankedTool, RankResult
from toolsel.render.console import attrs, dumps_json, dumps_line, make_console, writes
from toolsel.render.escape import visible
from toolsel.render.formats import RankFormat
from toolsel.render.layout import Column, fitted_table, left_out_note, print_table, stacked
from toolsel.schemas import Output, schema_name

if TYPE_CHECKING:
    from rich.console import Console

    from toolsel.ranking.batch import BatchLine
    from toolsel.ranking.scorers import Contribution
    from toolsel.select import SelectResult

RANK_SCHEMA = schema_name(Output.RANK)
RANK_LINE_SCHEMA = schema_name(Output.RANK_LINE)
RANK_BATCH_SCHEMA = schema_name(Output.RANK_BATCH)
SELECT_SCHEMA = schema_name(Output.SELECT)


# -- search -------------------------------------------------------------------------------


def _why_payload(tool: RankedTool, result: RankResult) -> dict[str, Any]:
    """How the tool was chosen, and the evidence: each matched term (as the prompt wrote
    it), the field it matched, its weight in the score, and the prompt word a synonym
    stands in for."""
    terms: dict[tuple[str, str], dict[str, Any]] = {}
    for c in tool.contributions:
        entry = terms.setdefault(
            (c.term, c.field),
            {
                "term": c.term,
                "word": c.term if c.field in _NOT_TERMS else result.word(c.term),
                "field": c.field,
                "weight": 0.0,
                "synonym_of": None if c.via is None else result.word(c.via),
            },
        )
        entry["weight"] += c.value
    ordered = sorted(terms.values(), key=lambda t: -t["weight"])
    return {"how": tool.match, "terms": [{**t, "weight": round(t["weight"], 6)} for t in ordered]}


def _ranked(
    tool: RankedTool, rank: int | None, explain: bool, result: RankResult
) -> dict[str, Any]:
    item: dict[str, Any] = {
        "rank": rank,
        "name": tool.name,
        "score": tool.score,
        "raw_score": tool.raw,
        "strength": tool.strength,
        "category": tool.category,
        "permission": tool.permission,
        "why": _why_payload(tool, result),
        "always_include": tool.always_include,
    }
    if explain:
        item["explain"] = [
            {"term": c.term, "field": c.field, "contribution": round(c.value, 6), "via": c.via}
            for c in tool.contributions
        ]
    return item


def rank_payload(result: RankResult, *, explain: bool = False) -> dict[str, Any]:
    return {
        "schema": RANK_SCHEMA,
        "query": result.query,
        "method": result.method,
        **(
            {"method_requested": result.requested, "method_reason": result.reason}
            if result.requested
            else {}
        ),
        "mode": "search",
        "terms": list(result.terms),
        "strong_match": result.strong,
        "results": [_ranked(r, i, explain, result) for i, r in enumerate(result.results, start=1)],
        "always_included": [_ranked(r, None, explain, result) for r in result.always],
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
        "results": [attrs(r, "name score strength") for r in result.results],
        "always_included": [r.name for r in result.always],
    }


def render_rank_human(result: RankResult, out: IO[str], *, explain: bool = False) -> None:
    from rich.text import Text

    console = make_console(out)
    if result.results:
        _print_results(console, result)
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
        if result.requested:
            console.print(
                Text(f"Method: {result.method} ({result.requested}: {result.reason})", style="dim")
            )
        _print_explanations(console, result)
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


#: The strongest pieces of evidence the why column shows per tool; `--explain` lists all.
WHY_TERMS = 4
#: The narrowest the why column may be inside the table; narrower, the reasons are listed
#: under the table instead (a why column of 15 characters made 8 tools 58 lines long).
WHY_MIN_WIDTH = 36
_RESULT_COLUMNS = (
    Column("#", justify="right"),
    Column("tool"),
    Column("score", justify="right"),
    Column("category", optional=2),
    Column("permission", optional=1),
)


def _print_results(console: Console, result: RankResult) -> None:
    """The ranked tools as a table with a why column when it fits; else the table (as many
    columns as fit) with the reasons listed under it; else one block per tool."""
    from rich.table import Table

    title = f"Tools for: {visible(result.query)} · {_method_said(result)}"
    rows = [
        [str(i), visible(r.name), f"{r.score:.3f}", visible(r.category or ""), r.permission]
        for i, r in enumerate(result.results, start=1)
    ]
    whys = [visible(_why(r, result)) for r in result.results]
    with_whys = [[*row, w] for row, w in zip(rows, whys, strict=True)]
    every = [replace(c, optional=0) for c in _RESULT_COLUMNS]
    why = Column("why", wrap=True, min_width=WHY_MIN_WIDTH)
    whole = fitted_table(console, [*every, why], with_whys, title=title)
    if whole is not None:
        console.print(whole.table)
        return
    narrow = fitted_table(console, _RESULT_COLUMNS, rows, title=title)
    if narrow is None:
        console.print(title)
        stacked(console, [*_RESULT_COLUMNS, why], with_whys)
        return
    console.print(narrow.table)
    if narrow.left_out:
        console.print(left_out_note(narrow.left_out), style="dim")
    reasons = Table.grid(padding=(0, 1))
    reasons.add_column(justify="right", no_wrap=True)
    reasons.add_column(overflow="fold")
    for row, tool, reason in zip(rows, result.results, whys, strict=True):
        if reason:
            reasons.add_row(row[0], f"{visible(tool.name)}: {reason}")
    console.print("why:", style="bold")
    console.print(reasons)


def _method_said(result: RankResult) -> str:
    """The method that ranked, and whether `auto` chose it: the same prompt ranks
    differently with and without toolsel[embed], so the output says which it was."""
    return f"{result.method} (auto)" if result.requested == "auto" else result.method


def _print_explanations(console: Console, result: RankResult) -> None:
    """`--explain`: each tool's contributions, strongest first, in the prompt's words."""
    from rich.text import Text

    for i, r in enumerate(result.results, start=1):
        if r.contributions:
            console.print(Text(f"{i}. {visible(r.name)}", style="bold"))
            for c in sorted(r.contributions, key=lambda c: -c.value):
                console.print(f"   {c.value:8.3f}  {_field(c):<12} {visible(_shown(c, result))}")


#: Contributions whose term is not a search term of the prompt (a quoted example, the
#: embedding, a name fuzzy matching recognised).
_NOT_TERMS = frozenset({"example", "fuzzy", "cosine", "semantic"})


def _shown(contribution: Contribution, result: RankResult) -> str:
    """The contribution's term as the user wrote it ("committed", not the stem "committ");
    a word the prompt did not say shows the word it stands in for: `meeting → event`."""
    if contribution.field in _NOT_TERMS:
        return contribution.term
    if contribution.via is not None:
        return f"{result.word(contribution.via)} → {contribution.term}"
    return result.word(contribution.term)


def _field(contribution: Contribution) -> str:
    return f"synonym, {contribution.field}" if contribution.via is not None else contribution.field


def _why(tool: RankedTool, result: RankResult) -> str:
    if tool.match != "match":
        return tool.match
    # the embedding's share first, then lexical evidence (strongest first), then what fuzzy
    # matching recognised
    embedding = ("cosine", "semantic")
    parts = [f"{c.field} {c.value:.2f}" for c in tool.contributions if c.field in embedding]
    best: dict[str, str] = {}
    for c in sorted(tool.contributions, key=lambda c: (c.field == "fuzzy", -c.value)):
        if c.field not in embedding:
            best.setdefault(_shown(c, result), _field(c))
    shown = [f"{term} ({field})" for term, field in best.items()]
    if len(shown) > WHY_TERMS + 1:  # "+1 more" would take the room of the one
        shown[WHY_TERMS:] = [f"+{len(shown) - WHY_TERMS} more (--explain)"]
    return ", ".join(parts + shown)


SearchRenderer = Callable[..., None]
#: `rank PROMPT --format F`. A search has no tool_result block (that is `select:`'s).
SEARCH_RENDERERS: dict[RankFormat, SearchRenderer] = {
    RankFormat.HUMAN: render_rank_human,
    RankFormat.JSON: lambda result, out, explain=False: out.write(
        dumps_json(rank_payload(result, explain=explain))
    ),
    RankFormat.JSONL: lambda result, out, explain=False: out.write(dumps_line(rank_line(result))),
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
    """How each requested name resolved; a note that does not fit beside its row (a fix
    the user would copy, such as `select:a,b`) goes under the table, never folded."""
    from rich.padding import Padding
    from rich.text import Text

    console = make_console(out)
    title = f"Direct selection: {visible(result.query)}"
    columns = [Column("requested"), Column("tool"), Column("resolved by")]
    note = Column("note", wrap=True, min_width=24)
    rows = [[visible(r.requested), visible(r.tool or "-"), r.how] for r in result.resolutions]
    notes = [visible(r.note) for r in result.resolutions]
    styles = [
        "red" if r.tool is None else ("yellow" if r.how == "case-insensitive" else "")
        for r in result.resolutions
    ]
    whole = fitted_table(
        console,
        [*columns, note],
        [[*row, n] for row, n in zip(rows, notes, strict=True)],
        title=title,
        row_styles=styles,
    )
    if whole is not None:
        console.print(whole.table)
    else:
        print_table(console, columns, rows, title=title, row_styles=styles)
        if any(notes):
            console.print("notes:", style="bold")
        for row, text, style in zip(rows, notes, styles, strict=True):
            if text:  # wrapped between words only: the fix in it stays whole
                console.print(
                    Padding(Text(f"{row[0]}: {text}", style=style), (0, 0, 0, 2), expand=False)
                )
    if result.with_deps:
        console.print(
            Text(visible("added by --with-deps: " + ", ".join(result.with_deps)), style="dim")
        )
    if not result.matches:
        console.print(Text("No matching deferred tools found", style="yellow"))


#: `rank select:A,B --format F`.
SELECT_RENDERERS: dict[RankFormat, Callable[[SelectResult, IO[str]], None]] = {
    RankFormat.HUMAN: render_select_human,
    RankFormat.JSON: writes(lambda result: dumps_json(select_payload(result))),
    RankFormat.JSONL: writes(lambda result: dumps_line(select_payload(result))),
    # the bare tool_result block, to paste into a conversation
    RankFormat.TOOL_RESULT: writes(lambda result: dumps_json(result.block())),
}
