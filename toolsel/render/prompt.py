"""Render `toolsel prompt`: the deferred-tool listing and the always-loaded tools' cost."""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, Any

from toolsel.listing import Listing
from toolsel.render.console import dumps_json, make_console
from toolsel.render.escape import visible
from toolsel.render.formats import PromptFormat
from toolsel.schemas import Output, schema_name

PROMPT_SCHEMA = schema_name(Output.PROMPT)


def render_prompt_human(listing: Listing, out: IO[str]) -> None:
    from rich.table import Table

    console = make_console(out)
    console.print(visible(listing.block(), newlines=True))
    table = Table(title="Always loaded", title_justify="left")
    table.add_column("tool")
    table.add_column("tokens (est.)", justify="right")
    for name, tokens in listing.loaded:
        table.add_row(visible(name), str(tokens))
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


def render_prompt_json(listing: Listing, out: IO[str]) -> None:
    out.write(dumps_json(prompt_payload(listing)))


#: `prompt --format F`.
PROMPT_RENDERERS: dict[PromptFormat, Callable[[Listing, IO[str]], None]] = {
    PromptFormat.HUMAN: render_prompt_human,
    PromptFormat.JSON: render_prompt_json,
}
