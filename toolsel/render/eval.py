"""Render `toolsel eval`: the quality table, the worst queries, and `toolsel.eval` JSON."""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, Any

from toolsel.evaluate import Calibration, EvalReport, MethodReport
from toolsel.render.console import dumps_json, make_console
from toolsel.render.escape import visible
from toolsel.render.formats import EvalFormat
from toolsel.render.layout import Column, print_table
from toolsel.schemas import Output, schema_name

EVAL_SCHEMA = schema_name(Output.EVAL)


def _pct(value: float) -> str:
    return f"{100 * value:.1f}"


def render_eval_human(report: EvalReport, out: IO[str], *, worst: int = 5) -> None:
    from rich.text import Text

    console = make_console(out)
    title = f"Selection quality: {visible(report.source)}"
    headers = ["method", "cases", *(f"R@{k}" for k in report.ks), "MRR@10", "NDCG@10"]
    columns = [Column(h, justify="left" if h == "method" else "right") for h in headers]
    rows = [
        [m.label, str(m.cases), *map(_pct, [*(m.recall[k] for k in report.ks), m.mrr10, m.ndcg10])]
        for m in report.methods
    ]
    print_table(console, columns, rows, title=title)
    for m in report.methods:
        if sum(m.missed.values()):
            console.print(
                f"{m.label}: expected tools outside the top 10: "
                f"{m.missed.get('conflict', 0)} excluded by a conflict, "
                f"{m.missed.get('permission', 0)} blocked by permission, "
                f"{m.missed.get('not_retrieved', 0)} not retrieved"
            )
        if m.no_evidence:
            console.print(_no_evidence_line(m))
        if m.none_cases:
            console.print(Text(_no_tool_line(m)))
    for c in report.calibrations:
        console.print(Text(_calibration_line(c, report.ks)))
    if len(report.methods) == 1 and worst:
        method = report.methods[0]
        console.print(f"Worst queries ({method.label}):")
        for o in method.worst(worst):
            ranks = ", ".join(
                f"{name} #{rank}"
                if rank
                else f"{name} no evidence"
                if name in o.no_evidence
                else f"{name} not in top"
                for name, rank in o.ranks.items()
            )
            line = f"  {o.case.id}: NDCG@10 {_pct(o.ndcg10)}  {o.case.query[:70]!r}  ({ranks})"
            console.print(Text(visible(line)))
    for name in report.unknown_tools[:10]:
        console.print(
            Text(visible(f"expected tool {name!r} is not in the registry"), style="yellow")
        )
    for bad in report.bad_lines:
        console.print(Text(visible(f"{bad.located(report.source)} (case skipped)"), style="yellow"))


def _no_evidence_line(m: MethodReport) -> str:
    queries = m.no_evidence_queries
    return (
        f"{m.label}: no evidence for {m.no_evidence} of {m.expected} expected tools "
        f"({_pct(m.no_evidence / m.expected)}%), in {queries} {'query' if queries == 1 else 'queries'}: "
        "no prompt word reached them (a vocabulary gap, not a ranking error)"
    )


def _no_tool_line(m: MethodReport) -> str:
    at = f" at --min-strength {m.min_strength:g}" if m.min_strength else ""
    return (
        f"{m.label}: no tool fits {m.none_cases} prompts; a tool was offered anyway for "
        f"{m.offered_anyway} ({_pct(m.offered_anyway / m.none_cases)}%){at}"
    )


def _calibration_line(c: Calibration, ks: tuple[int, ...]) -> str:
    if c.chosen is None:
        why = "no prompt says `expect: none`" if not c.before.none_cases else (
            "no tool is offered for them" if not c.before.offered_anyway
            else "no cut-off halves the wrong offers"
        )  # fmt: skip
        return f"{c.method}: --calibrate chose nothing: {why}"
    k = 5 if 5 in ks else ks[-1]
    return (
        f"{c.method}: --calibrate chose --min-strength {c.chosen:g}: wrong offers "
        f"{_pct(c.before.offered_anyway / c.before.none_cases)}% -> "
        f"{_pct(c.after.offered_anyway / c.after.none_cases)}% of {c.before.none_cases} "
        f"prompts no tool fits; R@{k} {_pct(c.before.recall[k])} -> {_pct(c.after.recall[k])}, "
        f"NDCG@10 {_pct(c.before.ndcg10)} -> {_pct(c.after.ndcg10)}"
    )


def _no_tool(m: MethodReport) -> dict[str, Any]:
    return {
        "cases": m.none_cases,
        "offered": m.offered_anyway,
        "rate": round(m.offered_anyway / m.none_cases, 6) if m.none_cases else None,
        "min_strength": m.min_strength,
    }


def _rounded(by_k: dict[int, float]) -> dict[str, float]:
    return {str(k): round(v, 6) for k, v in by_k.items()}


def _calibrated(m: MethodReport) -> dict[str, Any]:
    """A method's numbers before or after `--calibrate`'s cut."""
    return {**_no_tool(m), "ndcg@10": round(m.ndcg10, 6), "recall": _rounded(m.recall)}


def eval_payload(report: EvalReport) -> dict[str, Any]:
    return {
        "schema": EVAL_SCHEMA,
        "cases_file": report.source,
        "k": list(report.ks),
        "methods": [
            {
                "method": m.method,
                "examples": m.examples,
                "cases": m.cases,
                "recall": _rounded(m.recall),
                "complete": _rounded(m.complete),
                "mrr@10": round(m.mrr10, 6),
                "ndcg@10": round(m.ndcg10, 6),
                "missed": dict(m.missed),
                "no_evidence": {
                    "tools": m.no_evidence,
                    "expected": m.expected,
                    "queries": m.no_evidence_queries,
                },
                "no_tool_fits": _no_tool(m),
                "queries": [
                    {
                        "id": o.case.id,
                        "query": o.case.query,
                        "ranks": o.ranks,
                        "ndcg@10": round(o.ndcg10, 6),
                        "no_evidence": list(o.no_evidence),
                    }
                    for o in m.outcomes
                ],
            }
            for m in report.methods
        ],
        "unreadable_lines": [
            {"line": b.line, "column": b.column, "error": b.message} for b in report.bad_lines
        ],
        "unknown_tools": list(report.unknown_tools),
        "calibration": [
            {
                "method": c.method,
                "min_strength": c.chosen,
                "before": _calibrated(c.before),
                "after": _calibrated(c.after),
            }
            for c in report.calibrations
        ],
    }


#: `eval --format F`.
EVAL_RENDERERS: dict[EvalFormat, Callable[..., None]] = {
    EvalFormat.HUMAN: render_eval_human,
    EvalFormat.JSON: lambda report, out, worst=5: out.write(dumps_json(eval_payload(report))),
}
