"""Render `eval`, `test` and `prompt` results."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape, quoteattr

from toolsel.evaluate import EvalReport
from toolsel.golden import GoldenReport
from toolsel.listing import Listing
from toolsel.render.console import dumps_json

if TYPE_CHECKING:
    from rich.console import Console

EVAL_SCHEMA = "toolsel.eval/v1"
TEST_SCHEMA = "toolsel.test/v1"
PROMPT_SCHEMA = "toolsel.prompt/v1"


def _pct(value: float) -> str:
    return f"{100 * value:.1f}"


def render_eval_human(report: EvalReport, console: Console, *, worst: int = 5) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"Selection quality: {report.source}", title_justify="left")
    columns = ["method", "cases", *(f"R@{k}" for k in report.ks), "MRR@10", "NDCG@10"]
    for column in columns:
        table.add_column(column, justify="left" if column == "method" else "right")
    for m in report.methods:
        table.add_row(
            m.method,
            str(m.cases),
            *(_pct(m.recall[k]) for k in report.ks),
            _pct(m.mrr10),
            _pct(m.ndcg10),
        )
    console.print(table)
    if len(report.methods) == 1 and worst:
        method = report.methods[0]
        console.print(f"Worst queries ({method.method}):")
        for o in method.worst(worst):
            ranks = ", ".join(
                f"{name} #{rank}" if rank else f"{name} not in top"
                for name, rank in o.ranks.items()
            )
            console.print(
                Text(f"  {o.case.id}: NDCG@10 {_pct(o.ndcg10)}  {o.case.query[:70]!r}  ({ranks})")
            )
    for name in report.unknown_tools[:10]:
        console.print(Text(f"expected tool {name!r} is not in the registry", style="yellow"))
    for bad in report.bad_lines:
        console.print(Text(f"line {bad.line} skipped: {bad.error}", style="yellow"))


def eval_payload(report: EvalReport) -> dict[str, Any]:
    return {
        "schema": EVAL_SCHEMA,
        "cases_file": report.source,
        "k": list(report.ks),
        "methods": [
            {
                "method": m.method,
                "cases": m.cases,
                "recall": {str(k): round(v, 6) for k, v in m.recall.items()},
                "complete": {str(k): round(v, 6) for k, v in m.complete.items()},
                "mrr@10": round(m.mrr10, 6),
                "ndcg@10": round(m.ndcg10, 6),
                "queries": [
                    {
                        "id": o.case.id,
                        "query": o.case.query,
                        "ranks": o.ranks,
                        "ndcg@10": round(o.ndcg10, 6),
                    }
                    for o in m.outcomes
                ],
            }
            for m in report.methods
        ],
        "unreadable_lines": [{"line": b.line, "error": b.error} for b in report.bad_lines],
        "unknown_tools": list(report.unknown_tools),
    }


def render_test_human(report: GoldenReport, console: Console) -> None:
    from rich.text import Text

    for result in report.results:
        if result.passed:
            console.print(Text("PASS ", style="green") + Text(result.case.name))
        else:
            console.print(
                Text("FAIL ", style="bold red")
                + Text(f"{result.case.name} ({report.file}:{result.case.line}): {result.message()}")
            )
            console.print(
                Text(f"     offered: {', '.join(result.offered) or '(nothing)'}", style="dim")
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


def render_test_junit(report: GoldenReport) -> str:
    out = ['<?xml version="1.0" encoding="UTF-8"?>']
    total, failed = len(report.results), report.failed
    out.append(f'<testsuites name="toolsel" tests="{total}" failures="{failed}" errors="0">')
    out.append(
        f'  <testsuite name={quoteattr(report.file)} tests="{total}" failures="{failed}" errors="0">'
    )
    for r in report.results:
        out.append(
            f'    <testcase name={quoteattr(r.case.name)} classname={quoteattr(report.file)} line="{r.case.line}">'
        )
        if not r.passed:
            out.append(
                f"      <failure message={quoteattr(r.message())}>{escape('offered: ' + ', '.join(r.offered))}</failure>"
            )
        out.append("    </testcase>")
    out += ["  </testsuite>", "</testsuites>"]
    return "\n".join(out) + "\n"


def render_prompt_human(listing: Listing, console: Console) -> None:
    from rich.table import Table

    console.print(listing.block(), markup=False)
    table = Table(title="Always loaded", title_justify="left")
    table.add_column("tool")
    table.add_column("tokens (est.)", justify="right")
    for name, tokens in listing.loaded:
        table.add_row(name, str(tokens))
    table.add_row("total", str(listing.loaded_tokens), style="bold")
    console.print(table)


def prompt_payload(listing: Listing) -> dict[str, Any]:
    return {
        "schema": PROMPT_SCHEMA,
        "deferred": list(listing.deferred),
        "block": listing.block(),
        "loaded": [{"name": n, "tokens": t} for n, t in listing.loaded],
        "loaded_tokens": listing.loaded_tokens,
        "budget": listing.budget,
        "over_budget": listing.over_budget,
    }


def dumps(payload: dict[str, Any]) -> str:
    return dumps_json(payload)
