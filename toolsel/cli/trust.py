"""`toolsel trust`: record that a config file's present contents may start the servers it
names (as `direnv allow` and `mise trust` do); --revoke forgets it, --list shows them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolsel.cli.common import handle_errors
from toolsel.errors import UsageError


@handle_errors
def trust(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Config files to trust (default: the project's config, and the client "
            "configs its `registry` names)."
        ),
    ] = None,
    revoke: Annotated[
        bool, typer.Option("--revoke", help="Forget the trust of these files instead.")
    ] = False,
    list_: Annotated[
        bool, typer.Option("--list", help="List the trusted files, and which changed since.")
    ] = False,
) -> None:
    """Trust a config file's present contents to start the MCP servers it names."""
    from toolsel.render.trust import render_listing, render_records
    from toolsel.sources import trust as store

    if list_:
        if paths or revoke:
            raise UsageError("--list takes no FILE and no --revoke")
        render_listing(store.trusted_files())
        return
    chosen = list(paths or _project_files())
    records = store.revoke(chosen) if revoke else store.trust(chosen)
    render_records(records, revoked=revoke)


def _project_files() -> list[Path]:
    """The project's config, and the client configs its `registry` names."""
    from toolsel.sources.project import find_config

    config = find_config()
    if config.path is None:
        raise UsageError(
            "no project config here to trust (toolsel.toml, or pyproject.toml with "
            "[tool.toolsel], up to the repository's root)",
            hint="name the file: toolsel trust .mcp.json",
        )
    from toolsel.live.sources import is_client_config

    named = [p for p in config.registry if p.is_file() and is_client_config(p)]
    return [config.path, *named]
