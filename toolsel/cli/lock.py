"""`toolsel lock`: write `toolsel.lock`, or check the registry against it (`--check`)."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Annotated

import typer

from toolsel.cli.common import (
    NamespaceOption,
    NoCacheOption,
    RegistryOption,
    handle_errors,
    load_registry,
    output,
)
from toolsel.errors import ExitCode


@handle_errors
def lock(
    registry: RegistryOption = None,
    namespace: NamespaceOption = False,
    lock_file: Annotated[
        Path, typer.Option("--lock-file", help="The lock file to write or check.")
    ] = Path("toolsel.lock"),
    check: Annotated[
        bool,
        typer.Option("--check", help="Exit 1 when a tool differs from the lock, and show how."),
    ] = False,
    no_cache: NoCacheOption = False,
) -> None:
    """Pin every field of each tool that a model, client or ranking reads, in toolsel.lock."""
    from dataclasses import replace

    from toolsel.inputs import display_path
    from toolsel.lock import check_lock, lock_document, read_lock
    from toolsel.render.console import dumps_json

    fresh: contextlib.AbstractContextManager[object] = contextlib.nullcontext()
    if check:  # a check against a cached list would miss what a server changed since
        from toolsel.live import current, live_settings

        fresh = live_settings(replace(current(), refresh=True))
    with fresh:
        loaded = load_registry(registry, no_cache=no_cache, namespace=namespace)
    if not check:
        with output(lock_file, inputs=[f.path for f in loaded.files]) as out:
            out.write(dumps_json(lock_document(loaded, lock_file)))
        tools = len(loaded.names)
        typer.echo(f"Locked {tools} tool{'s' if tools != 1 else ''} in {display_path(lock_file)}.")
        return
    from toolsel.render.lock import render_check

    result = check_lock(read_lock(lock_file), loaded)
    render_check(result, display_path(lock_file), sys.stdout)
    if result.failed:
        raise typer.Exit(int(ExitCode.FINDINGS))
