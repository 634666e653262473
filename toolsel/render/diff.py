"""`toolsel diff` output: human (coloured on a terminal), json (versioned),
markdown (a pull-request comment), sarif 2.1.0 and GitHub annotations."""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, Any

from toolsel import __version__
from toolsel.diff.model import Change, ChangeClass, DiffResult
from toolsel.render.console import attrs, dumps_json, make_console, writes
from toolsel.render.escape import visible
from toolsel.render.formats import DiffFormat
from toolsel.schemas import Output, schema_name

DIFF_SCHEMA = schema_name(Output.DIFF)
_STYLE = {ChangeClass.BREAKING: "bold red", ChangeClass.RISKY: "yellow", ChangeClass.SAFE: "green"}


def _where(change: Change) -> str:
    side = change.new or change.old
    return f"{side.file}:{side.line}:{side.column}" if side else ""


def summary_line(result: DiffResult) -> str:
    counts = result.counts()
    parts = [f"{counts[c.value]} {c.value}" for c in ChangeClass]
    ignored = f", {len(result.ignored)} ignored" if result.ignored else ""
    verdict = f"fails --fail-on {result.fail_on.value}" if result.failed else "passes"
    return (
        f"{', '.join(parts)}{ignored} ({result.old_tools} -> {result.new_tools} tools); {verdict}."
    )


def render_human(result: DiffResult, out: IO[str]) -> None:
    from rich.text import Text

    console = make_console(out)
    for change in result.changes:
        line = Text()
        line.append(f"{visible(_where(change))}: ", style="dim")
        line.append(change.rule, style="bold")
        line.append(" ")
        line.append(change.change_class.value, style=_STYLE[change.change_class])
        line.append(f" [{change.category.value}] {visible(change.message)}")
        console.print(line)
        if change.hint:
            console.print(Text(f"    hint: {visible(change.hint)}", style="dim"))
        for item in change.evidence:
            console.print(Text(f"    {visible(item.file)}:{item.line}: {visible(item.message)}"))
    for w in result.warnings:
        console.print(
            Text(f"{visible(w.file)}:{w.line}: warning: {visible(w.message)}", style="yellow")
        )
    for note in result.evidence_notes:
        console.print(Text(visible(note), style="dim"))
    if result.changes or result.warnings:
        console.print()
    console.print(Text(summary_line(result), style="bold red" if result.failed else "bold green"))


def json_text(result: DiffResult) -> str:
    document: dict[str, Any] = {
        "schema": DIFF_SCHEMA,
        "tool": {"name": "toolsel", "version": __version__},
        "old": result.old,
        "new": result.new,
        "changes": [c.to_dict() for c in result.changes],
        "ignored": [c.to_dict() for c in result.ignored],
        "warnings": [attrs(w, "file line message") for w in result.warnings],
        "summary": result.summary(),
    }
    return dumps_json(document)


def _cell(text: str) -> str:
    return visible(text).replace("|", "\\|").replace("\n", " ").replace("`", "'")


def markdown_text(result: DiffResult) -> str:
    counts = result.counts()
    lines = [f"### toolsel diff: `{_cell(result.old)}` → `{_cell(result.new)}`", ""]
    lines += ["| breaking | risky | safe | ignored |", "|---:|---:|---:|---:|"]
    lines += [f"| {counts['breaking']} | {counts['risky']} | {counts['safe']} | {len(result.ignored)} |", ""]  # fmt: skip
    for change_class in ChangeClass:
        rows = [c for c in result.changes if c.change_class is change_class]
        if not rows:
            continue
        title = f"{change_class.value.capitalize()} ({len(rows)})"
        if change_class is ChangeClass.SAFE:
            lines += [f"<details><summary>{title}</summary>", ""]
        else:
            lines += [f"#### {title}", ""]
        lines += ["| class | rule | tool | change | fingerprint |", "|---|---|---|---|---|"]
        for c in rows:
            message = c.message + "".join(f"<br>{e.file}:{e.line}: {e.message}" for e in c.evidence)
            lines.append(
                f"| {c.change_class.value} | {c.rule} | `{_cell(c.tool)}` | {_cell(message)} | `{c.fingerprint}` |"
            )
        lines.append("")
        if change_class is ChangeClass.SAFE:
            lines += ["</details>", ""]
    if not result.changes:
        lines += ["No changes.", ""]
    lines.append(
        "To accept a change, add its fingerprint with a `reason` to `.toolsel-diff-ignore.yaml`."
    )
    return "\n".join(lines) + "\n"


def sarif_text(result: DiffResult) -> str:
    from toolsel.diff import RULES
    from toolsel.render.lint import HOMEPAGE, sarif_location, sarif_log

    level = {ChangeClass.BREAKING: "error", ChangeClass.RISKY: "warning", ChangeClass.SAFE: "note"}
    used = sorted({c.rule for c in result.changes})
    rules: list[dict[str, object]] = [
        {
            "id": rule_id,
            "name": RULES[rule_id].name,
            "shortDescription": {"text": RULES[rule_id].summary},
            "helpUri": f"{HOMEPAGE}/blob/main/docs/commands.md#toolsel-diff",
            "properties": {"category": RULES[rule_id].category.value},
        }
        for rule_id in used
    ]
    results = []
    for c in result.changes:
        side = c.reported_at or c.old
        line, column = (side.line, side.column) if side and side is not c.old else (1, 1)
        results.append(
            {
                "ruleId": c.rule,
                "ruleIndex": used.index(c.rule),
                "level": level[c.change_class],
                "message": {"text": f"{c.message} [tool: {c.tool}]"},
                "locations": [sarif_location(side.file if side else "", line, column, c.pointer)],
                "partialFingerprints": {"toolsel-diff/v1": c.fingerprint},
                "properties": {"class": c.change_class.value, "category": c.category.value},
            }
        )
    return sarif_log(rules, results)


def github_text(result: DiffResult) -> str:
    from toolsel.render.lint import escape_data, escape_property

    level = {
        ChangeClass.BREAKING: "error",
        ChangeClass.RISKY: "warning",
        ChangeClass.SAFE: "notice",
    }
    lines = []
    for c in result.changes:
        side = c.reported_at  # a file of the pull request, or none (a workflow annotation)
        title = f"title={escape_property(c.rule + ' ' + c.change_class.value)}"
        if side is None:
            props = title
        else:
            file = side.file.replace("\\", "/").removeprefix("./")
            props = f"file={escape_property(file)},line={side.line},{title}"
        message = c.message if c.new is not None else f"{c.message} [tool: {c.tool}]"
        lines.append(f"::{level[c.change_class]} {props}::{escape_data(message)}")
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"


DIFF_RENDERERS: dict[DiffFormat, Callable[[DiffResult, IO[str]], None]] = {
    DiffFormat.HUMAN: render_human,
    DiffFormat.JSON: writes(json_text),
    DiffFormat.MARKDOWN: writes(markdown_text),
    DiffFormat.SARIF: writes(sarif_text),
    DiffFormat.GITHUB: writes(github_text),
}
