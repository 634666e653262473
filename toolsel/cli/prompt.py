"""`toolsel prompt`: the deferred-tool listing and the always-loaded tools' cost."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from toolsel.cli.common import (
    NamespaceOption,
    NoCacheOption,
    RegistryOption,
    handle_errors,
    load_registry,
    registry_paths,
    warn,
)
from toolsel.errors import ExitCode
from toolsel.render.formats import PromptFormat


@handle_errors
def prompt(
    registry: RegistryOption = None,
    namespace: NamespaceOption = False,
    budget: Annotated[
        int | None,
        typer.Option(
            "--budget",
            min=0,
            help="Warn (exit 1) when always-loaded definitions exceed N tokens.",
        ),
    ] = None,
    output_format: Annotated[
        PromptFormat, typer.Option("--format", "-f", help="Output format.")
    ] = PromptFormat.HUMAN,
    no_cache: NoCacheOption = False,
) -> None:
    """Print the deferred-tool listing an agent would see, and the always-loaded tools' cost."""
    registry = registry_paths(registry, namespace=namespace, example=True)
    from toolsel.listing import build_listing
    from toolsel.render.prompt import PROMPT_RENDERERS

    listing = build_listing(load_registry(registry, no_cache=no_cache), budget=budget)
    PROMPT_RENDERERS[output_format](listing, sys.stdout)
    if listing.over_budget:
        warn(
            f"warning: always-loaded definitions take about {listing.loaded_tokens} tokens, over the budget of {budget}"
        )
        raise typer.Exit(int(ExitCode.FINDINGS))
