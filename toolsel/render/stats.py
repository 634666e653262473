"""Render `toolsel stats`: the per-tool usage table, never-called tools and co-used pairs;
the `toolsel.stats` JSON document; and the serve dashboard's charts as one self-contained
HTML page, drawn from that document (with charts over time when a series is given)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, Any

from toolsel.render.console import attrs, dumps_json, make_console
from toolsel.render.escape import visible
from toolsel.render.formats import StatsFormat
from toolsel.render.layout import Column, fitted_table, left_out_note, stacked
from toolsel.replay.sizes import TOKEN_METHOD, estimated_tokens
from toolsel.replay.stats import SizeSummary, ToolUsage, UnreadableFile, UsageStats
from toolsel.schemas import Output, schema_name

if TYPE_CHECKING:
    from rich.console import Console

    from toolsel.replay.series import SeriesRecorder

STATS_SCHEMA = schema_name(Output.STATS)


def stats_payload(stats: UsageStats) -> dict[str, Any]:
    return {
        "schema": STATS_SCHEMA,
        "transcripts": stats.transcripts,
        "tools": {
            t.name: {
                **attrs(t, _TOOL_FIELDS),
                **error_messages(t),
                "result_bytes": size_payload(t.result_size),
                "input_bytes": size_payload(t.input_size),
            }
            for t in stats.tools
        },
        "token_method": TOKEN_METHOD,
        "never_called": list(stats.never_called) if stats.never_called is not None else None,
        "co_used_pairs": [
            {"tools": list(p.tools), "transcripts": p.transcripts} for p in stats.co_used_pairs
        ],
        "unreadable_lines": unreadable_payload(stats.unreadable_lines, stats.unreadable),
        "notes": list(stats.notes),
        "orphan_results": {"count": stats.orphan_results, "errors": stats.orphan_errors},
    }


_TOOL_FIELDS = "calls answered unanswered errors transcripts error_rate success_rate median_latency_s p95_latency_s"  # fmt: skip


def unreadable_payload(count: int, unreadable: Sequence[UnreadableFile]) -> dict[str, Any]:
    """The lines that could not be read, and per file how many from which line."""
    return {"count": count, "files": [attrs(u, "path lines first_line") for u in unreadable]}


def error_messages(tool: ToolUsage) -> dict[str, Any]:
    """A tool's most frequent error messages (normalised), in its `toolsel.stats` entry."""
    return {"top_errors": [{"message": m, "count": n} for m, n in tool.top_errors]}


def print_error_messages(console: Console, stats: UsageStats, *, top: int = 3) -> None:
    """Why calls failed: each tool's most frequent error messages, folded to the width."""
    failing = [t for t in stats.tools if t.top_errors]
    if not failing:
        return
    console.print(
        "Why calls failed (most frequent messages; paths, ids and numbers as <path>, <id>, <n>)",
        soft_wrap=False,
    )
    for t in failing:
        errors = "1 error" if t.errors == 1 else f"{t.errors} errors"
        console.print(visible(f"{t.name}: {errors}"), style="bold", soft_wrap=False)
        for message, count in t.top_errors[:top]:
            console.print(visible(f"  {count}× {message}"), soft_wrap=False)


def size_payload(size: SizeSummary | None) -> dict[str, Any] | None:
    """A tool's result or input sizes, in bytes and estimated tokens (`token_method`)."""
    if size is None:
        return None
    return {
        **attrs(size, "count total median p95"),
        **{f"{n}_tokens": estimated_tokens(getattr(size, n)) for n in ("total", "median", "p95")},
    }


#: Rows of a human per-tool table unless `--top` says otherwise (JSON always has every tool).
TOP_TOOLS = 50


def print_usage(
    console: Console,
    stats: UsageStats,
    *,
    title: str,
    transcripts: bool = True,
    top: int = TOP_TOOLS,
    show_all: str = "--top 0",
) -> None:
    """Per tool: calls, (unanswered, transcripts, success over answered calls,) errors and
    median latency; used by replay too. Names stay whole: a narrow terminal loses the
    optional columns first, then gets one block per tool."""
    if transcripts:
        headers = [("calls", 0), ("open", 2), ("files", 3), ("success", 0)]
    else:
        headers = [("calls", 0), ("errors", 0)]
    columns = [
        Column("tool"),
        *(Column(h, justify="right", optional=o) for h, o in headers),
        Column("median latency", justify="right", optional=1),
    ]
    sized = transcripts and any(t.result_size is not None for t in stats.tools)
    if sized:  # what each result costs the context
        columns += [
            Column("result p50", justify="right", optional=4),
            Column("p95", justify="right", optional=4),
            Column("total", justify="right", optional=5),
        ]
    shown = stats.tools[:top] if top > 0 else stats.tools
    hidden = len(stats.tools) - len(shown)
    caption = f"{hidden} less-called tools not shown ({show_all} shows all)" if hidden else None
    rows = []
    for t in shown:
        latency = f"{t.median_latency_s:.2f} s" if t.median_latency_s is not None else "-"
        if transcripts:
            success = f"{100 * t.success_rate:.0f}%" if t.success_rate is not None else "-"
            cells = [str(t.calls), str(t.unanswered), str(t.transcripts), success]
        else:
            cells = [str(t.calls), str(t.errors)]
        row = [visible(t.name), *cells, latency]
        if sized:
            row += size_cells(t.result_size)
        rows.append(row)
    fitted = fitted_table(console, columns, rows, title=title, caption=caption)
    if fitted is None:
        console.print(title)
        stacked(console, columns, rows)
        if caption:
            console.print(caption)
        return
    console.print(fitted.table)
    if fitted.left_out:
        console.print(left_out_note(fitted.left_out), style="dim")


def size_cells(size: SizeSummary | None) -> list[str]:
    """Median, p95 and total result size, each in bytes and estimated tokens."""
    if size is None:
        return ["-", "-", "-"]
    return [byte_size(size.median), byte_size(size.p95), byte_size(size.total)]


def byte_size(size: float) -> str:
    """`2.4 kB (600 tok)`: bytes in powers of 1000, and the tokens they estimate."""
    value, unit = float(size), "B"
    for bigger in ("kB", "MB", "GB"):
        if value < 1000:
            break
        value, unit = value / 1000, bigger
    shown = f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
    return f"{shown} ({estimated_tokens(size):,} tok)"


def render_stats_human(stats: UsageStats, out: IO[str], *, top: int = TOP_TOOLS) -> None:
    console = make_console(out)
    print_usage(console, stats, title=_source(stats), top=top)
    if any(t.unanswered for t in stats.tools):
        console.print(
            "open: calls that never got a result; success counts answered calls only", style="dim"
        )
    print_error_messages(console, stats)
    if any(t.result_size is not None for t in stats.tools):
        console.print(
            f"result: UTF-8 bytes of each answered call's result text; tok: tokens estimated "
            f"as {TOKEN_METHOD}",
            style="dim",
        )
    if stats.never_called is not None:
        never = stats.never_called
        console.print(
            visible(f"Registry tools never called ({len(never)}): {', '.join(never) or '-'}")
        )
    for pair in stats.co_used_pairs[:10]:
        n = pair.transcripts
        console.print(
            visible(f"co-used in {n} transcript{'s' if n != 1 else ''}: {' + '.join(pair.tools)}")
        )
    if stats.unreadable:
        unreadable_note(console, stats.unreadable, stats.unreadable_lines)
    if stats.orphan_results:
        console.print(
            visible(
                f"{stats.orphan_results} results whose call is in no transcript "
                f"({stats.orphan_errors} errors), under no tool; `toolsel replay FILE` lists them"
            ),
            style="yellow",
        )
    for note in dict.fromkeys(stats.notes):
        console.print(visible(note), style="yellow")


def stats_page(
    stats: UsageStats, *, source: str, series: Sequence[tuple[str, UsageStats]] | None = None
) -> str:
    """The page; `series` (window start as ISO 8601, statistics of that window), when
    the statistics come from a usage store, draws the charts over time."""
    from toolsel.render.html import page

    data: dict[str, Any] = {
        "stats": stats_payload(stats),
        "source": source,
        "series": None
        if series is None
        else [{"t": start, "stats": stats_payload(window)} for start, window in series],
    }
    return page(
        kind="stats",
        title="toolsel stats",
        command="stats",
        data=data,
        scripts=("common.js", "vendor/chart.umd.min.js", "charts.js", "stats.js", "stats_page.js"),
    )


def series_page(stats: UsageStats, recorder: SeriesRecorder) -> str:
    """The page for statistics whose every call `recorder` was told of."""
    from dataclasses import replace

    series = recorder.finish()
    if recorder.untimed:
        calls = sum(t.calls for t in stats.tools)
        note = (
            "no call carried a timestamp readable as ISO 8601, so there are no charts over time"
            if not series
            else f"{recorder.untimed} of {calls} calls carried no timestamp readable as "
            "ISO 8601; the charts over time leave them out"
        )
        stats = replace(stats, notes=(*stats.notes, note))
    return stats_page(stats, source=_source(stats), series=series or None)


def _source(stats: UsageStats) -> str:
    count = stats.transcripts
    return f"Tool usage across {count} transcript{'s' if count != 1 else ''}"


#: `stats --format F`.
STATS_RENDERERS: dict[StatsFormat, Callable[..., None]] = {
    StatsFormat.HUMAN: render_stats_human,
    StatsFormat.JSON: lambda stats, out, top=0: out.write(dumps_json(stats_payload(stats))),
    StatsFormat.HTML: lambda stats, out, top=0: out.write(stats_page(stats, source=_source(stats))),
}


def unreadable_note(console: Console, unreadable: Sequence[UnreadableFile], lines: int) -> None:
    """The lines that could not be read, and where (the first three files)."""
    shown = [f"{u.path}: {u.lines} from line {u.first_line}" for u in unreadable[:3]]
    more = len(unreadable) - len(shown)
    files = ", ".join(shown) + (f", and {more} more files" if more > 0 else "")
    console.print(
        visible(
            f"{lines} unreadable lines not counted ({files}); `toolsel replay FILE` lists them"
        ),
        style="yellow",
    )
