"""Render `toolsel test`: PASS/FAIL lines, `toolsel.test` JSON, and JUnit XML for CI."""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, Any

from toolsel.golden import GoldenReport
from toolsel.render.console import dumps_json, make_console
from toolsel.render.escape import visible, xml_attr, xml_text
from toolsel.render.formats import TestFormat
from toolsel.schemas import Output, schema_name

TEST_SCHEMA = schema_name(Output.TEST)


def render_test_human(report: GoldenReport, out: IO[str]) -> None:
    from rich.text import Text

    console = make_console(out)
    for result in report.results:
        if result.passed:
            console.print(Text("PASS ", style="green") + Text(visible(result.case.name)))
        else:
            console.print(
                Text("FAIL ", style="bold red")
                + Text(
                    visible(
                        f"{result.case.name} ({report.file}:{result.case.line}): {result.message()}"
                    )
                )
            )
            console.print(
                Text(
                    visible(f"     offered: {', '.join(result.offered) or '(nothing)'}"),
                    style="dim",
                )
            )
    total, failed = len(report.results), report.failed
    console.print(
        Text(
            f"{total - failed} passed, {failed} failed",
            style="bold red" if failed else "bold green",
        )
    )


def golden_payload(report: GoldenReport) -> dict[str, Any]:
    return {
        "schema": TEST_SCHEMA,
        "file": report.file,
        "passed": len(report.results) - report.failed,
        "failed": report.failed,
        "cases": [
            {
                "name": r.case.name,
                "line": r.case.line,
                "passed": r.passed,
                "offered": list(r.offered),
                "missing": list(r.missing),
                "forbidden": list(r.forbidden),
                "unknown": list(r.unknown),
            }
            for r in report.results
        ],
    }


def render_test_json(report: GoldenReport, out: IO[str]) -> None:
    out.write(dumps_json(golden_payload(report)))


def render_test_junit(report: GoldenReport, out: IO[str]) -> None:
    lines = ['<?xml version="1.0" encoding="UTF-8"?>']
    total, failed = len(report.results), report.failed
    lines.append(f'<testsuites name="toolsel" tests="{total}" failures="{failed}" errors="0">')
    lines.append(
        f'  <testsuite name={xml_attr(report.file)} tests="{total}" failures="{failed}" errors="0">'
    )
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
    TestFormat.JSON: render_test_json,
    TestFormat.JUNIT: render_test_junit,
}
