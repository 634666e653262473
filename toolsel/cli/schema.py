"""`toolsel schema`: the JSON Schema of the registry format, or of a machine output."""

from __future__ import annotations

import sys

from toolsel.cli.common import handle_errors


@handle_errors
def schema() -> None:
    """Print the JSON Schema of the registry format, for editors and check-jsonschema."""
    from importlib.resources import files

    sys.stdout.write(
        files("toolsel.schemas").joinpath("registry.schema.json").read_text(encoding="utf-8")
    )
