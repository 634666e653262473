"""Render `toolsel prompt`: the deferred-tool listing and the always-loaded tools' cost."""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, Any

from toolsel.listing import Listing
from toolsel.render.console import dumps_json, make_console, writes
from toolsel.render.escape import visible
from toolsel.render.formats import PromptFormat
from toolsel.render.layout import Column, print_table
from toolsel.schemas import Output, schema_name

PROMPT_SCHEMA = schema_name(Output.PROMPT)


def render_prompt_human(listing: Listing, out: IO[str]) -> None:
    console = make_console(out)
    console.print(visible(listing.block(), newlines=True))
    columns = [Column("tool"), Column("tokens (est.)", justify="right")]
    rows = [[visible(name), str(tokens)] for name, tokens in listing.loaded]
    rows.append(["total", str(listing.loaded_tokens)])
    styles = [""] * (len(rows) - 1) + ["bold"]
    print_table(console, columns, rows, title="Always loaded", row_styles=styles)


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


#: `prompt --format F`.
PROMPT_RENDERERS: dict[PromptFormat, Callable[[Listing, IO[str]], None]] = {
    PromptFormat.HUMAN: render_prompt_human,
    PromptFormat.JSON: writes(lambda listing: dumps_json(prompt_payload(listing))),
}
