"""Render `toolsel test`: PASS/FAIL lines, `toolsel.test` JSON, and JUnit XML for CI."""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, Any

from toolsel.golden import GoldenReport
from toolsel.render.console import attrs, dumps_json, make_console, writes
from toolsel.render.escape import visible, xml_attr, xml_text
from toolsel.render.formats import TestFormat
from toolsel.schemas import Output, schema_name

TEST_SCHEMA = schema_name(Output.TEST)


def render_test_human(report: GoldenReport, out: IO[str]) -> None:
    from rich.text import Text

    console = make_console(out)
    for r in report.results:
        if r.passed:
            console.print(Text("PASS ", style="green") + Text(visible(r.case.name)))
            continue
        said = f"{r.case.name} ({report.file}:{r.case.line}): {r.message()}"
        console.print(Text("FAIL ", style="bold red") + Text(visible(said)))
        offered = f"     offered: {', '.join(r.offered) or '(nothing)'}"
        console.print(Text(visible(offered), style="dim"))
    passed, failed = len(report.results) - report.failed, report.failed
    console.print(
        Text(f"{passed} passed, {failed} failed", style="bold red" if failed else "bold green")
    )


def golden_payload(report: GoldenReport) -> dict[str, Any]:
    return {
        "schema": TEST_SCHEMA,
        "file": report.file,
        "passed": len(report.results) - report.failed,
        "failed": report.failed,
        "cases": [
            {
                **attrs(r.case, "name line"),
                "passed": r.passed,
                **{
                    name: list(getattr(r, name))
                    for name in ("offered", "missing", "forbidden", "unknown")
                },
            }
            for r in report.results
        ],
    }


def render_test_junit(report: GoldenReport, out: IO[str]) -> None:
    total, failed = len(report.results), report.failed
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuites name="toolsel" tests="{total}" failures="{failed}" errors="0">',
        f'  <testsuite name={xml_attr(report.file)} tests="{total}" failures="{failed}" errors="0">',
    ]
    for r in report.results:
        lines.append(
            f'    <testcase name={xml_attr(r.case.name)} classname={xml_attr(report.file)} line="{r.case.line}">'
        )
        if not r.passed:
            lines.append(
                f"      <failure message={xml_attr(r.message())}>{xml_text('offered: ' + ', '.join(r.offered))}</failure>"
            )
        lines.append("    </testcase>")
    lines += ["  </testsuite>", "</testsuites>"]
    out.write("\n".join(lines) + "\n")


#: `test --format F`.
TEST_RENDERERS: dict[TestFormat, Callable[[GoldenReport, IO[str]], None]] = {
    TestFormat.HUMAN: render_test_human,
    TestFormat.JSON: writes(lambda report: dumps_json(golden_payload(report))),
    TestFormat.JUNIT: render_test_junit,
}
