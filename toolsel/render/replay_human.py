"""Render `toolsel replay` for people: the totals, the files with findings (worst first, or
every file with `--per-file`), and the per-tool table, each line folded to the console's
width."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING

from toolsel.render.console import make_console
from toolsel.render.escape import visible
from toolsel.render.layout import Column, fitted_table
from toolsel.replay.report import FileReport, ReplayResult

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.text import Text


def render_replay_human(result: ReplayResult, out: IO[str], *, per_file: bool = False) -> None:
    """The totals first; then the files with findings, worst first (every file, with its
    counts and sub-agents, with `per_file`); then the per-tool table. Every line fits the
    console's width (COLUMNS, also when piped): a long name folds, nothing widens."""
    from toolsel.render.stats import print_usage
    from toolsel.replay.totals import usage_stats

    console = make_console(out)
    _print_totals(console, result)
    if per_file:
        _print_files(console, result.files)
        for f in result.files:
            _print_findings(console, f)
        _print_subagents(console, result.files)
    else:
        _print_worst_files(console, result.files)
    stats = usage_stats(result)
    if stats.tools:
        print_usage(
            console, stats, title="Per tool", transcripts=False, show_all="`toolsel stats --top 0`"
        )


#: Files with findings that `replay` lists without --per-file, and finding lines per file.
WORST_FILES = 20
FINDINGS_PER_FILE = 10


def _say(console: Console, text: RenderableType, style: str = "") -> None:
    """Text folded to the console's width even when piped (where the console would
    soft-wrap it: never fold it), between words, with no trailing spaces; any other
    renderable as Rich lays it out at that width."""
    from rich.text import Text

    if not isinstance(text, str | Text):
        console.print(text, soft_wrap=False)
        return
    _fold(console, Text(text, style=style) if isinstance(text, str) else text, 0)


def _fold(console: Console, text: Text, indent: int = 2) -> None:
    """`text` folded to the console's width, each of its lines indented."""
    from rich.text import Text

    for line in text.wrap(console, max(console.width - indent, 20), overflow="fold"):
        line.rstrip()
        console.print(Text(" " * indent) + line if indent else line, soft_wrap=True)


def _print_totals(console: Console, result: ReplayResult) -> None:
    """What the run held, in one line (and what was counted in a way worth saying in
    another): files, calls, errors, unanswered, duplicates and other findings."""
    total = result.total
    other = [(total(attr), noun) for attr, noun in OTHER_FINDINGS]
    findings = sum(n for n, _ in other)
    line = (
        f"{_count(len(result.files), 'file')}, {_count(total('calls'), 'call')}, "
        f"{_count(total('error_results'), 'error')}, {total('unanswered'):,} unanswered, "
        f"{_count(total('duplicate_calls'), 'duplicate')}, "
        f"{_count(findings, 'other finding')}"
    )
    if findings:
        line += f" ({', '.join(_count(n, noun) for n, noun in other if n)})"
    _say(console, line, "bold")
    counted = [
        (total("copied_calls"), "copied call", " (resumed sessions: `toolsel stats` counts them once)"),
        (total("subagents"), "sub-agent link", ""),
        (total("calls_without_id") + total("results_without_id"), "call or result", " without an id (paired by position)"),
        (total("skipped_records"), "record", " of a type toolsel does not know, with no tool content: skipped"),
    ]  # fmt: skip
    said = [_count(n, noun) + more for n, noun, more in counted if n]
    if said:
        _say(console, "; ".join(said), "dim")


#: The findings the totals line counts as "other" (unanswered and duplicate calls have
#: their own place in it): the report's list, and what one of them is called.
OTHER_FINDINGS = (
    ("orphans", "orphan result"),
    ("duplicate_results", "duplicate result"),
    ("unreadable", "unreadable line"),
    ("violations", "violation"),
    ("unread_tools", "unread tool record"),
)


def _count(n: int, noun: str) -> str:
    """`n noun`, `n nouns` (`n`, with thousands separated)."""
    if n == 1:
        return f"1 {noun}"
    plural = "calls or results" if noun == "call or result" else noun + "s"
    return f"{n:,} {plural}"


def _severity(f: FileReport) -> tuple[int, int, int]:
    """How bad a file's findings are: those that fail `replay` by default, then all of
    them with its notes, then its error results."""
    severe = (
        len(f.orphans)
        + len(f.unreadable)
        + len(f.violations)
        + len(f.unread_tools)
        + sum(d.kind == "conflicting" for d in f.duplicate_calls)
    )
    every = severe + len(f.unanswered) + len(f.duplicate_calls) + len(f.duplicate_results)
    return severe, every + len(f.notes), f.error_results


def _print_worst_files(console: Console, files: Sequence[FileReport]) -> None:
    """The files with findings (or notes), worst first, each under its name with its
    findings line by line (the first FINDINGS_PER_FILE)."""
    ranked = sorted(
        (tuple(-n for n in severity), index)
        for index, f in enumerate(files)
        if (severity := _severity(f))[1]
    )
    if not ranked:
        return
    shown = ranked[:WORST_FILES]
    title = "Files with findings, worst first"
    if len(ranked) > len(shown):
        title += f" ({len(shown)} of {len(ranked)}; --per-file lists every file)"
    _say(console, title, "bold")
    for _, index in shown:
        _print_file_findings(console, files[index])


def _print_file_findings(console: Console, f: FileReport) -> None:
    from rich.text import Text

    _say(console, Text(visible(_short(f.path)), style="bold") + Text(f"  {f.format}"))
    _say(console, f"  {_count(f.calls, 'call')}, {_count(f.error_results, 'error')}", "dim")
    findings = sorted(_findings(f))
    for line, text, style in findings[:FINDINGS_PER_FILE]:
        _fold(console, Text(f"line {line}: ", style="dim") + Text(visible(text), style=style))
    if len(findings) > FINDINGS_PER_FILE:
        more = len(findings) - FINDINGS_PER_FILE
        _say(console, f"  and {more} more (--per-file lists them all)", "dim")
    for note in f.notes:
        _fold(console, Text(f"note: {visible(note)}", style="yellow"))


def _print_files(console: Console, files: Sequence[FileReport]) -> None:
    """A row of counts per file; one block per file on a terminal too narrow for them, so
    that nothing is cut."""
    from rich.text import Text

    title = "Tool calls (open = unanswered at the end)"
    columns = [
        Column("file"),
        Column("format"),
        *(Column(c, justify="right") for c in SUMMARY_COLUMNS),
    ]
    rows = [[visible(_short(f.path)), f.format, *(str(n) for n in _counts(f))] for f in files]
    fitted = fitted_table(console, columns, rows, title=title)
    if fitted is not None:
        console.print(fitted.table)
        return
    _say(console, Text(title))
    for f in files:
        _say(console, Text(visible(_short(f.path)), style="bold") + Text(f"  {f.format}"))
        counts = [f"{n} {name}" for name, n in zip(STACKED_NAMES, _counts(f), strict=True)]
        _say(console, Text("  " + ", ".join(counts[:5])))
        _say(console, Text("  " + ", ".join(counts[5:])))


def _print_findings(console: Console, f: FileReport) -> None:
    """A file's findings, line by line, its notes, and what was counted in a way worth
    saying."""
    from rich.text import Text

    findings = _findings(f)
    if findings or f.copied_calls or f.notes or _counted(f):
        path = visible(f.path)
        _say(console, Text(path, style="bold underline"))
        for line, text, style in sorted(findings):
            _say(
                console, Text(f"  {path}:{line}: ", style="dim") + Text(visible(text), style=style)
            )
    for note in f.notes:
        _say(console, Text(f"  note: {visible(note)}", style="yellow"))
    for counted in _counted(f):
        _say(console, Text(f"  {counted}", style="dim"))
    if f.copied_calls:
        _say(
            console,
            Text(
                f"  {f.copied_calls} calls repeat an earlier file's id and tool: copies from a"
                " resumed session (counted once by `toolsel stats`)",
                style="dim",
            ),
        )


def _print_subagents(console: Console, files: Sequence[FileReport]) -> None:
    from rich.text import Text
    from rich.tree import Tree

    trees = [f for f in files if f.subagents]
    if trees:
        root = Tree(Text("Sub-agents", style="bold"))
        for f in trees:
            branch = root.add(Text(visible(f.path)))
            for link in f.subagents:
                label = f"{link.tool} {link.parent_id}: {link.calls} calls ({link.rule})"
                branch.add(Text(visible(label)))
        _say(console, root)


SUMMARY_COLUMNS = ("calls", "results", "paired", "open", "orphan", "dup call", "dup res", "errors", "unread")  # fmt: skip
STACKED_NAMES = ("calls", "results", "paired", "open", "orphans", "duplicate calls", "duplicate results", "errors", "unreadable")  # fmt: skip


def _counts(f: FileReport) -> tuple[int, ...]:
    found = (f.unanswered, f.orphans, f.duplicate_calls, f.duplicate_results)
    return (f.calls, f.results, f.paired, *map(len, found), f.error_results, len(f.unreadable))


def _counted(f: FileReport) -> list[str]:
    """What was counted in a way worth saying: calls and results without ids, and records
    skipped as metadata."""
    from toolsel.replay.report import plural

    lines = []
    calls, results = f.calls_without_id, f.results_without_id
    if calls or results:
        counted = [plural(n, noun) for n, noun in ((calls, "call"), (results, "result")) if n]
        verb = "carries" if calls + results == 1 else "carry"
        lines.append(f"{' and '.join(counted)} {verb} no id: named noid:<line>:<n>, paired by position")  # fmt: skip
    if f.skipped_records:
        records = plural(f.skipped_records, "record")
        lines.append(f"{records} of a type toolsel does not know, with no tool content: skipped")
    return lines


def _short(path: str) -> str:
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return relative if not relative.startswith("..") else path


def _findings(f: FileReport) -> list[tuple[int, str, str]]:
    rows: list[tuple[int, str, str]] = []
    rows += [(u.line, f"unreadable line: {u.error}", "red") for u in f.unreadable]
    rows += [
        (
            u.line,
            f"unanswered call {u.id} ({u.tool}){' at the end: interrupted' if u.interrupted else ''}",
            "yellow",
        )
        for u in f.unanswered
    ]
    rows += [(o.line, f"orphan result {o.id}: no call has this id", "red") for o in f.orphans]
    rows += [
        (
            d.lines[-1],
            f"{d.kind} duplicate call {d.id} (lines {', '.join(map(str, d.lines))})",
            "red" if d.kind == "conflicting" else "yellow",
        )
        for d in f.duplicate_calls
    ]
    rows += [
        (d.lines[-1], f"duplicate result {d.id} (lines {', '.join(map(str, d.lines))})", "yellow")
        for d in f.duplicate_results
    ]
    rows += [(v.line, f"{v.rule}: {v.message}", "red") for v in f.violations]
    rows += [
        (u.line, f"tool-call-like content that toolsel does not read ({u.where})", "red")
        for u in f.unread_tools
    ]
    return rows
