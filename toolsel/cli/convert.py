"""`toolsel convert PATH... --to FORMAT`: a whole registry in another shape."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolsel.cli.common import NoCacheOption, check_output, handle_errors, output, warn
from toolsel.errors import ExitCode, UsageError
from toolsel.render.formats import ConvertFormat


@handle_errors
def convert(
    paths: Annotated[
        list[Path],
        typer.Argument(help="Registry files or directories, in any shape toolsel reads."),
    ],
    to: Annotated[
        ConvertFormat | None,
        typer.Option(
            "--to", help="Shape to write (required): YAML for toolsel, JSON for the rest."
        ),
    ] = None,
    output_file: Annotated[
        Path | None,
        typer.Option("--output-file", "-o", help="Write here instead of stdout."),
    ] = None,
    strict: Annotated[
        bool,
        typer.Option("--strict", help="Exit 1 when the target cannot hold something (a note)."),
    ] = False,
    no_cache: NoCacheOption = False,
) -> None:
    """Convert a whole registry to another shape.

    toolsel, OpenAI, Anthropic, Gemini and MCP; what the target cannot hold is a note.
    """
    from toolsel.cli.common import load_registry
    from toolsel.convert import convert_registry
    from toolsel.render.convert import note_lines, write_document
    from toolsel.sources import registry_files

    if to is None:
        choices = ", ".join(f.value for f in ConvertFormat)
        raise UsageError(f"--to is required: one of {choices}")
    inputs = list(registry_files([str(p) for p in paths]))
    check_output(output_file, inputs)
    conversion = convert_registry(load_registry(paths, no_cache=no_cache), to.value)
    with output(output_file, inputs=inputs) as out:
        write_document(conversion, out)
    for line in note_lines(conversion.notes):
        warn(line)
    if strict and conversion.notes:
        raise typer.Exit(int(ExitCode.FINDINGS))
