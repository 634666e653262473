"""`toolsel stats PATH...`: usage analytics across transcripts."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from toolsel.cli.common import (
    CheckRegistryOption,
    NamespaceOption,
    NoCacheOption,
    NoRegistryOption,
    check_registry,
    handle_errors,
)
from toolsel.render.formats import StatsFormat


@handle_errors
def stats(
    paths: Annotated[list[str], typer.Argument(help="Transcript files, directories or globs.")],
    registry: CheckRegistryOption = None,
    no_registry: NoRegistryOption = False,
    namespace: NamespaceOption = False,
    output_format: Annotated[
        StatsFormat, typer.Option("--format", "-f", help="Output format.")
    ] = StatsFormat.HUMAN,
    top: Annotated[
        int,
        typer.Option("--top", metavar="N", min=0, help="Rows of the human table (0: every tool)."),
    ] = 50,
    no_cache: NoCacheOption = False,
) -> None:
    """Usage analytics across transcripts: per-tool calls, error rates, latency, co-used pairs."""
    from toolsel.render.stats import STATS_RENDERERS
    from toolsel.replay.driver import replay_paths
    from toolsel.replay.stats import usage_stats

    loaded = check_registry(
        registry, no_registry=no_registry, namespace=namespace, no_cache=no_cache
    )
    STATS_RENDERERS[output_format](usage_stats(replay_paths(paths), loaded), sys.stdout, top=top)
