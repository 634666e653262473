"""Render `toolsel stats --ledger`: the per-server, per-tool table of definition cost and
usage, the plan's always-loaded set, and its measured reachability and tokens saved; the
`toolsel.ledger` JSON document."""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from toolsel.ledger import Ledger
from toolsel.render.console import attrs, dumps_json, make_console, writes
from toolsel.render.escape import visible
from toolsel.render.formats import StatsFormat
from toolsel.render.layout import Column, print_table
from toolsel.render.stats import byte_size, size_payload
from toolsel.schemas import Output, schema_name

if TYPE_CHECKING:
    from rich.console import Console

LEDGER_SCHEMA = schema_name(Output.LEDGER)


def ledger_payload(ledger: Ledger) -> dict[str, Any]:
    from toolsel.listing import DEFINITION_TOKEN_METHOD
    from toolsel.replay.sizes import TOKEN_METHOD

    return {
        "schema": LEDGER_SCHEMA,
        "definition_token_method": DEFINITION_TOKEN_METHOD,
        "token_method": TOKEN_METHOD,
        "tools": [
            {
                **attrs(r, "server tool definition_tokens calls errors prompted_calls found_calls"),
                "result_bytes": size_payload(r.result_size),
                "plan": "loaded" if r.loaded else "deferred",
            }
            for r in ledger.rows
        ],
        "plan": {
            **attrs(ledger, _PLAN_FIELDS),
            "reachable_share": round(ledger.reachable_share, 4),
            "saved_share": round(ledger.saved_share, 4),
        },
    }


_PLAN_FIELDS = "calls reachable_calls target top_k tokens_before tokens_after budget over_budget failed unregistered_calls"  # fmt: skip


#: The ledger table's columns; the optional ones give way first on a narrow console.
LEDGER_COLUMNS = (
    Column("server"),
    Column("tool"),
    Column("def tok", justify="right"),
    Column("calls", justify="right"),
    Column("errors", justify="right", optional=2),
    Column("result p50", justify="right", optional=3),
    Column("result total", justify="right", optional=3),
    Column("found", justify="right", optional=1),
    Column("plan"),
)


def render_ledger_human(ledger: Ledger, out: IO[str]) -> None:
    """The ledger's table, then the plan in one line, a key to the columns, and warnings."""
    console = make_console(out)
    rows = [
        [
            visible(r.server),
            visible(r.tool),
            f"{r.definition_tokens:,}",
            f"{r.calls:,}",
            f"{r.errors:,}",
            byte_size(r.result_size.median) if r.result_size else "-",
            byte_size(r.result_size.total) if r.result_size else "-",
            f"{r.found_calls}/{r.prompted_calls}" if r.prompted_calls else "-",
            "loaded" if r.loaded else "deferred",
        ]
        for r in ledger.rows
    ]
    print_table(console, LEDGER_COLUMNS, rows, title="Cost and usage ledger")
    _print_plan(console, ledger)


def _print_plan(console: Console, ledger: Ledger) -> None:
    """The plan's line, the key to the columns, and what is off: calls of unregistered
    tools, over budget, under target."""
    loaded = sum(r.loaded for r in ledger.rows)
    console.print(
        f"plan: {loaded} of {len(ledger.rows)} tools always loaded, the rest behind tool "
        f"search; {ledger.reachable_calls:,} of {ledger.calls:,} calls reachable "
        f"({100 * ledger.reachable_share:.1f}%, target {100 * ledger.target:g}%, rank top "
        f"{ledger.top_k}); always-loaded tokens {ledger.tokens_before:,} -> "
        f"{ledger.tokens_after:,} ({100 * ledger.saved_share:.1f}% saved)"
    )
    console.print(
        "def tok: definition tokens (chars/4 of its JSON); found: successful calls whose "
        "request ranks the tool in the top k, of those with a request",
        style="dim",
    )
    if ledger.unregistered_calls:
        console.print(
            f"{ledger.unregistered_calls:,} calls of tools the registry does not define are "
            "not in the plan",
            style="yellow",
        )
    if ledger.over_budget:
        console.print(
            f"over budget: {ledger.tokens_after:,} always-loaded tokens > {ledger.budget:,}",
            style="red",
        )
    if ledger.reachable_share < ledger.target:
        console.print(
            f"under target: {100 * ledger.reachable_share:.1f}% of calls reachable", style="red"
        )


#: `stats --ledger --format F` (HTML: not drawn yet, the JSON document is the contract).
LEDGER_RENDERERS: dict[StatsFormat, Callable[[Ledger, IO[str]], None]] = {
    StatsFormat.HUMAN: render_ledger_human,
    StatsFormat.JSON: writes(lambda ledger: dumps_json(ledger_payload(ledger))),
}
