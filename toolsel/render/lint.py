"""Lint output formats: human, json, sarif, github, junit, gitlab (and auto)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import IO, TYPE_CHECKING

from toolsel import __version__
from toolsel.lint.model import Finding, LintResult, Rule, Severity
from toolsel.render.console import dumps_json, make_console, writes
from toolsel.render.escape import visible, xml_attr, xml_text
from toolsel.render.formats import LintFormat
from toolsel.schemas import Output, schema_name

if TYPE_CHECKING:
    from toolsel.lint.fix import FixPlan
    from toolsel.lint.statistics import RuleCount

LINT_SCHEMA = schema_name(Output.LINT)
HOMEPAGE = "https://github.com/toolsel/toolsel"
SARIF_SCHEMA = (
    "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json"
)
_SEVERITY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def render_human(result: LintResult, out: IO[str]) -> None:
    from rich.text import Text

    console = make_console(out)
    findings = result.findings
    current = None
    for finding in findings:
        if finding.file != current:
            if current is not None:
                console.print()
            console.print(Text(visible(finding.file), style="bold underline"))
            current = finding.file
        line = Text()
        line.append(f"{visible(finding.file)}:{finding.line}:{finding.column}: ", style="dim")
        line.append(finding.rule, style="bold")
        line.append(" ")
        line.append(finding.severity.value, style=_SEVERITY_STYLE[finding.severity])
        line.append(f" {visible(finding.message)}")
        if finding.tool:
            line.append(f" [tool: {visible(finding.tool)}]", style="dim")
        console.print(line)
    if findings:
        console.print()
    for folded in folded_lines(result):
        console.print(Text(folded, style=_SEVERITY_STYLE[Severity.INFO]))
    if result.folded:
        console.print(Text("(list them with --min-severity info)", style="dim"))
        console.print()
    console.print(Text(summary_line(result), style="bold red" if result.failed else "bold green"))


def folded_lines(result: LintResult) -> list[str]:
    """`info: TS108 \u00d737 name-without-verb: Name contains a verb`, one line per folded rule, the
    most frequent first."""
    counts = Counter(f.rule for f in result.folded)
    rules = {rule.id: rule for rule in result.rules}
    return [
        f"info: {rule_id} \u00d7{n}"
        + (f" {r.name}: {r.summary}" if (r := rules.get(rule_id)) else "")
        for rule_id, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]


def summary_line(result: LintResult) -> str:
    counts = result.summary()
    files = counts["files"]
    where = f"{files} {'file' if files == 1 else 'files'}"
    hidden = ""
    if result.hidden:  # `; 21 info not shown` for findings below the minimum severity
        hidden = f"; {_counts(Counter(f.severity.value for f in result.hidden))} not shown"
    if result.findings or result.folded:
        return f"{_counts(counts)} in {where}{hidden}."
    if result.hidden:
        return f"No problems at the minimum severity in {where}{hidden}."
    return f"No problems found in {where}."


def _counts(counts: Mapping[str, int]) -> str:
    """`2 errors, 1 warning, 3 info`: each severity with findings."""
    return ", ".join(
        f"{n} {s.value}{'s' if n != 1 and s is not Severity.INFO else ''}"
        for s in Severity
        if (n := counts.get(s.value, 0))
    )


def json_text(result: LintResult, statistics: Sequence[RuleCount] | None = None) -> str:
    document: dict[str, object] = {
        "schema": LINT_SCHEMA,
        "tool": {"name": "toolsel", "version": __version__},
        "findings": [f.to_dict() for f in result.findings],
        "summary": {
            **result.summary(),
            "hidden": len(result.hidden),
            "failed": result.failed,
            "fail_on": result.fail_on.value,
        },
    }
    if statistics is not None:
        document["statistics"] = [row.to_dict() for row in statistics]
    return dumps_json(document)


def render_statistics(rows: Sequence[RuleCount], result: LintResult, out: IO[str]) -> None:
    """`--statistics`: a count per rule (and severity) instead of the findings, then the
    summary line; columns sized to their longest value, so a name is never broken."""
    if rows:
        table = [("count", "rule", "name", "severity", "fixable")]
        table += [
            (str(r.count), r.rule, r.name, r.severity.value, str(r.fixable) if r.fixable else "-")
            for r in rows
        ]
        widths = [max(len(row[i]) for row in table) for i in range(5)]
        for count, rule, name, severity, fixable in table:
            out.write(
                f"{count:>{widths[0]}}  {rule:<{widths[1]}}  {name:<{widths[2]}}  "
                f"{severity:<{widths[3]}}  {fixable:>{widths[4]}}".rstrip()
                + "\n"
            )
        out.write("\n")
    out.write(summary_line(result) + "\n")


def render_fix_plan(plan: FixPlan, out: IO[str], *, quiet: bool, applied: bool) -> None:
    """What `--fix` changed (or `--diff` would change): a unified diff per file, or with
    `quiet` one line per file, then the count."""
    import difflib

    verb = "Fixed" if applied else "Would fix"
    for item in plan.files:
        if quiet:
            rules = Counter(f.rule for f in item.fixed)
            counts = ", ".join(f"{rule} {n}" for rule, n in sorted(rules.items()))
            out.write(
                visible(f"{verb} {item.file}: {_findings(len(item.fixed))} ({counts})") + "\n"
            )
            continue
        diff = difflib.unified_diff(
            item.before.splitlines(keepends=True),
            item.after.splitlines(keepends=True),
            fromfile=item.file,
            tofile=item.file,
        )
        for line in diff:
            out.write(visible(line.rstrip("\r\n"), newlines=True) + "\n")
    count, files = len(plan.fixed), len(plan.files)
    if not count:
        out.write("Nothing to fix.\n")
    else:
        out.write(f"{verb} {_findings(count)} in {files} {'file' if files == 1 else 'files'}.\n")


def render_unfixed(plan: FixPlan, out: IO[str]) -> None:
    """Each finding of a fixable rule that `--fix` leaves, and why."""
    for left in plan.unfixed:
        f = left.finding
        out.write(
            visible(f"{f.file}:{f.line}:{f.column}: {f.rule} not fixed: {left.reason}") + "\n"
        )
    if plan.unfixed:
        out.write("\n")


def _findings(n: int) -> str:
    return f"{n} finding{'s' if n != 1 else ''}"


def _sarif_level(severity: Severity) -> str:
    return {"error": "error", "warning": "warning", "info": "note"}[severity.value]


def sarif_rule(rule: Rule) -> dict[str, object]:
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.doc},
        "help": {"text": rule.doc},
        "helpUri": f"{HOMEPAGE}/blob/main/docs/rules.md#{rule.id.lower()}",
        "defaultConfiguration": {
            "level": _sarif_level(rule.severity) if rule.severity else "none",
            "enabled": rule.severity is not None,
        },
        "properties": {"profile": rule.profile or "portable"},
    }


def sarif_text(result: LintResult) -> str:
    rules = sorted(result.rules, key=lambda r: r.id)
    index = {rule.id: i for i, rule in enumerate(rules)}
    results = []
    for finding in result.findings:
        item: dict[str, object] = {
            "ruleId": finding.rule,
            "level": _sarif_level(finding.severity),
            "message": {
                "text": finding.message + (f" [tool: {finding.tool}]" if finding.tool else "")
            },
            "locations": [
                sarif_location(finding.file, finding.line, finding.column, finding.pointer)
            ],
            "partialFingerprints": {"toolsel/v1": finding.fingerprint},
        }
        if finding.rule in index:
            item["ruleIndex"] = index[finding.rule]
        results.append(item)
    return sarif_log([sarif_rule(rule) for rule in rules], results)


def sarif_log(rules: list[dict[str, object]], results: list[dict[str, object]]) -> str:
    """A SARIF 2.1.0 log of one toolsel run (lint's findings, diff's changes)."""
    return dumps_json(
        {
            "$schema": SARIF_SCHEMA,
            "version": "2.1.0",
            "runs": [
                {
                    "tool": {
                        "driver": {
                            "name": "toolsel",
                            "version": __version__,
                            "informationUri": HOMEPAGE,
                            "rules": rules,
                        }
                    },
                    "results": results,
                    "columnKind": "unicodeCodePoints",
                }
            ],
        }
    )


def sarif_location(file: str, line: int, column: int, pointer: str) -> dict[str, object]:
    """Where a result is: the file (a relative URI), line and column, and the JSON pointer."""
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": _uri(file) if file else "", "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": line, "startColumn": column},
        },
        "logicalLocations": [{"fullyQualifiedName": pointer or "/", "kind": "member"}],
    }


def _uri(path: str) -> str:
    """A relative URI reference: percent-encoded UTF-8, and a file name's byte that is not
    UTF-8 (shown as \\xNN) as that very byte, %NN."""
    import re
    from urllib.parse import quote

    parts = re.split(r"\\x([0-9a-f]{2})", path)  # text, byte, text, byte, ...
    normalized = "".join(
        f"%{part.upper()}" if i % 2 else quote(part.replace("\\", "/"))
        for i, part in enumerate(parts)
    )
    while normalized.startswith("./"):
        normalized = normalized[2:]
    return normalized


def escape_data(text: str) -> str:
    # controls made visible first: a GitHub log shows ANSI sequences as colours
    return (
        visible(text, newlines=True).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    )


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_text(result: LintResult) -> str:
    lines: list[str] = []
    current = None
    for finding in result.findings:
        file = finding.file.replace("\\", "/").removeprefix("./")
        if file != current:
            if current is not None:
                lines.append("::endgroup::")
            lines.append(f"::group::{escape_data(file)}")
            current = file
        level = {"error": "error", "warning": "warning", "info": "notice"}[finding.severity.value]
        props = (
            f"file={escape_property(file)},line={finding.line},col={finding.column},"
            f"title={escape_property(finding.rule)}"
        )
        text = f"{file}:{finding.line}:{finding.column}: {finding.rule} {finding.message}"
        lines.append(f"::{level} {props}::{escape_data(text)}")
    if current is not None:
        lines.append("::endgroup::")
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"


def junit_text(result: LintResult) -> str:
    by_file: dict[str, list[Finding]] = {file: [] for file in result.files}
    for finding in result.findings:
        by_file.setdefault(finding.file, []).append(finding)
    failures = len(result.findings)
    out = ['<?xml version="1.0" encoding="UTF-8"?>']
    total = max(failures, 1)
    out.append(f'<testsuites name="toolsel" tests="{total}" failures="{failures}" errors="0">')
    if not failures:
        out += [
            '  <testsuite name="toolsel" tests="1" failures="0" errors="0" package="toolsel">',
            '    <testcase name="No errors found" classname="toolsel"/>',
            "  </testsuite>",
        ]
    for file, findings in by_file.items():
        if not findings:
            continue
        out.append(
            f'  <testsuite name={xml_attr(file)} tests="{len(findings)}" failures="{len(findings)}" '
            'errors="0" package="toolsel">'
        )
        for f in findings:
            body = f"line {f.line}, col {f.column}, {f.severity.value}: {f.message}"
            out += [
                f"    <testcase name={xml_attr('toolsel.' + f.rule)} classname={xml_attr(file)} "
                f'line="{f.line}" column="{f.column}">',
                f"      <failure message={xml_attr(f.message)} type={xml_attr(f.rule)}>"
                f"{xml_text(body)}</failure>",
                "    </testcase>",
            ]
        out.append("  </testsuite>")
    out.append("</testsuites>")
    return "\n".join(out) + "\n"


def gitlab_text(result: LintResult) -> str:
    severity = {"error": "major", "warning": "minor", "info": "info"}
    return dumps_json(
        [
            {
                "description": f"{f.rule}: {f.message}",
                "check_name": f.rule,
                "fingerprint": f.fingerprint,
                "severity": severity[f.severity.value],
                "location": {
                    "path": f.file.replace("\\", "/").removeprefix("./"),
                    "lines": {"begin": f.line},
                },
            }
            for f in result.findings
        ]
    )


#: `lint --format F` (`auto` resolves to human or github first).
LINT_RENDERERS: dict[LintFormat, Callable[..., None]] = {
    LintFormat.HUMAN: render_human,
    LintFormat.JSON: writes(json_text),
    LintFormat.SARIF: writes(sarif_text),
    LintFormat.GITHUB: writes(github_text),
    LintFormat.JUNIT: writes(junit_text),
    LintFormat.GITLAB: writes(gitlab_text),
}


def render_rule_list(rules: list[Rule], out: IO[str]) -> None:
    """One rule a row; a narrow terminal loses the profile column (the summary of a
    profile's rule starts with `[profile]`), then gets one block per rule."""
    from toolsel.render.layout import Column, print_table

    console = make_console(out)
    columns = [
        Column("id"),
        Column("name"),
        Column("default"),
        Column("profile", optional=1),
        Column("summary", wrap=True, min_width=24),
    ]
    rows = [[r.id, r.name, r.default_level, r.profile or "", r.summary] for r in rules]
    print_table(console, columns, rows, boxed=False)


def rule_explanation(rule: Rule) -> str:
    profile = f"profile: {rule.profile}\n" if rule.profile else ""
    if rule.providers:
        profile += f"about: {', '.join(rule.providers)} (runs when a target sends tools there)\n"
    return (
        f"{rule.id} {rule.name} (default: {rule.default_level})\n{profile}\n{rule.summary}.\n\n"
        f"{rule.doc}\n\nFails:\n\n{_indent(rule.bad)}\n\nPasses:\n\n{_indent(rule.good)}\n"
    )


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.rstrip("\n").splitlines())
