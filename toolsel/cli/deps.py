"""`toolsel deps TOOL...`: the transitive `requires` of tools, in load order."""

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
)
from toolsel.errors import ExitCode, UsageError
from toolsel.render.formats import DepsFormat, GraphFormat


@handle_errors
def deps(
    tools: Annotated[
        list[str] | None, typer.Argument(help="Tools whose requirements to resolve.")
    ] = None,
    registry: RegistryOption = None,
    namespace: NamespaceOption = False,
    all_tools: Annotated[bool, typer.Option("--all", help="The whole requires graph.")] = False,
    graph: Annotated[
        GraphFormat | None, typer.Option("--graph", help="Export as Graphviz dot or Mermaid.")
    ] = None,
    output_format: Annotated[
        DepsFormat, typer.Option("--format", "-f", help="Output format.")
    ] = DepsFormat.HUMAN,
    no_cache: NoCacheOption = False,
) -> None:
    """Show the transitive `requires` of tools in load order, with conflicts and cycles."""
    registry = registry_paths(registry, namespace=namespace, example=True)
    from toolsel.graph import closure, conflicting_pairs
    from toolsel.render.deps import DEPS_RENDERERS, GRAPH_RENDERERS
    from toolsel.suggest import did_you_mean

    loaded = load_registry(registry, no_cache=no_cache)
    if all_tools:
        roots = loaded.names
    elif tools:
        for name in tools:
            if name not in loaded:
                raise UsageError(f"unknown tool {name!r}{did_you_mean(name, loaded.names)}")
        roots = tools
    else:
        raise UsageError("name at least one tool, or pass --all")
    result = closure(loaded, roots)
    if graph is not None:
        GRAPH_RENDERERS[graph](result, sys.stdout, conflicting_pairs(loaded, result.order))
    else:
        DEPS_RENDERERS[output_format](result, sys.stdout)
    if result.cycles or result.missing:
        raise typer.Exit(int(ExitCode.FINDINGS))
