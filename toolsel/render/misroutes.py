"""Render `toolsel stats --misroutes`: per (failed tool, tool that worked) pair, how often
and where, and whether `rank` would have chosen the winner; the `toolsel.misroutes` JSON
document."""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, Any

from toolsel.misroutes import RANK_TOP, MisroutePair, MisrouteReport, RankCheck
from toolsel.render.console import attrs, dumps_json, make_console, writes
from toolsel.render.escape import visible
from toolsel.render.formats import StatsFormat
from toolsel.render.layout import Column, print_table
from toolsel.render.stats import unreadable_note, unreadable_payload
from toolsel.schemas import Output, schema_name

MISROUTES_SCHEMA = schema_name(Output.MISROUTES)


def _pair_payload(pair: MisroutePair) -> dict[str, Any]:
    check = pair.rank
    return {
        **attrs(pair, "loser winner count empty"),
        "occurrences": [attrs(o, "file line winner_line") for o in pair.occurrences],
        "rank": None if check is None else attrs(check, _RANK_FIELDS),
        "requests": [{"text": text, "count": count} for text, count in pair.requests],
    }


_RANK_FIELDS = "prompted winner_first winner_in_top winner_above_loser"


def misroutes_payload(report: MisrouteReport) -> dict[str, Any]:
    return {
        "schema": MISROUTES_SCHEMA,
        "transcripts": report.files,
        "calls": report.calls,
        "failed_calls": report.failed_calls,
        "exit_status_failures": report.exit_failures,
        "misroutes": report.misroutes,
        "window": report.window,
        "rank_top": RANK_TOP if report.registry else None,
        "pairs": [_pair_payload(p) for p in report.pairs],
        "unreadable_lines": unreadable_payload(report.unreadable_lines, report.unreadable),
    }


def _rank_cell(check: RankCheck | None, count: str) -> str:
    if check is None or not check.prompted:
        return "-"
    return f"{getattr(check, count)}/{check.prompted}"


def render_misroutes_human(report: MisrouteReport, out: IO[str]) -> None:
    console = make_console(out)
    columns = [
        Column("failed tool"),
        Column("then worked"),
        Column("times", justify="right"),
        Column("empty", justify="right", optional=2),
        Column("first at", optional=3),
    ]
    if report.registry:
        columns += [
            Column("rank 1st", justify="right", optional=1),
            Column(f"top {RANK_TOP}", justify="right", optional=1),
            Column("above", justify="right", optional=1),
        ]
    rows = []
    for pair in report.pairs:
        first = pair.occurrences[0] if pair.occurrences else None
        row = [
            visible(pair.loser),
            visible(pair.winner),
            f"{pair.count:,}",
            f"{pair.empty:,}",
            visible(f"{first.file}:{first.line}") if first else "-",
        ]
        if report.registry:
            # each count of the check (all but `prompted`), out of `prompted`
            row += [_rank_cell(pair.rank, count) for count in _RANK_FIELDS.split()[1:]]
        rows.append(row)
    title = "Misroutes: a call failed or came back empty, then a different tool worked"
    if rows:
        print_table(console, columns, rows, title=title)
    console.print(
        f"{report.misroutes:,} misroutes in {len(report.pairs):,} pairs; {report.failed_calls:,} "
        f"of {report.calls:,} answered calls failed or came back empty, in "
        f"{report.files:,} transcripts (window: {report.window} calls); "
        f"{report.exit_failures:,} more only reported how a command exited (the tool worked)"
    )
    if report.unreadable:
        unreadable_note(console, report.unreadable, report.unreadable_lines)
    if report.registry:
        console.print(
            f"rank 1st / top {RANK_TOP} / above: occurrences whose request rank (hybrid) "
            f"answers with the winner first, in its top {RANK_TOP}, above the failed tool; "
            "of those with a request",
            style="dim",
        )


#: `stats --misroutes --format F` (HTML: not drawn; the JSON document is the contract).
MISROUTES_RENDERERS: dict[StatsFormat, Callable[[MisrouteReport, IO[str]], None]] = {
    StatsFormat.HUMAN: render_misroutes_human,
    StatsFormat.JSON: writes(lambda report: dumps_json(misroutes_payload(report))),
}
