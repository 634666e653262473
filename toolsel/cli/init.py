"""`toolsel init [DIR]`: a starter configuration, registry and golden tests."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from toolsel.cli.common import handle_errors


@handle_errors
def init(
    directory: Annotated[
        Path,
        typer.Argument(
            metavar="DIR", show_default=False, help="Folder to set up (made if missing). Default: ."
        ),
    ] = Path(),
    pyproject: Annotated[
        bool,
        typer.Option(
            "--pyproject",
            help="Add [tool.toolsel] to the folder's pyproject.toml instead of writing toolsel.toml.",
        ),
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Say what would be written; write nothing.")
    ] = False,
) -> None:
    """Start a project: config, registry skeleton, golden tests.

    Writes toolsel.toml (or [tool.toolsel] in pyproject.toml), registries/tools.yaml and
    tests/toolsel.yaml; never overwrites a file.
    """
    from toolsel.render.init import render_init
    from toolsel.scaffold import init_project

    render_init(init_project(directory, pyproject=pyproject, dry_run=dry_run), sys.stdout)
