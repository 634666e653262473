"""`toolsel schema`: the JSON Schema of the registry format, or of a machine output."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from toolsel.cli.common import handle_errors
from toolsel.schemas import Output


@handle_errors
def schema(
    output: Annotated[
        Output | None,
        typer.Option(
            "--output",
            help="Print the schema of this machine output instead (e.g. rank, replay, lint).",
        ),
    ] = None,
) -> None:
    """Print the JSON Schema of the registry format, for editors and check-jsonschema."""
    from toolsel.schemas import schema_text

    sys.stdout.write(schema_text(output.value if output is not None else "registry"))
