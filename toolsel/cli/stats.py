"""`toolsel stats PATH...`: usage analytics across transcripts."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from toolsel.cli.common import NoCacheOption, RegistryOption, handle_errors, load_registry
from toolsel.render.formats import StatsFormat


@handle_errors
def stats(
    paths: Annotated[list[str], typer.Argument(help="Transcript files, directories or globs.")],
    registry: RegistryOption = None,
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

    loaded = load_registry(registry, no_cache=no_cache) if registry else None
    STATS_RENDERERS[output_format](usage_stats(replay_paths(paths), loaded), sys.stdout, top=top)
