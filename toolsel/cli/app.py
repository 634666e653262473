"""The Typer application every command module registers itself on, and `--version`."""

from __future__ import annotations

from typing import Annotated

import typer

from toolsel import __version__

app = typer.Typer(
    name="toolsel",
    help="Inspect, lint and test LLM tool registries.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from toolsel.embed.model import INSTALL_HINT, MODEL, missing

        reason = missing()
        embeddings = (
            f"available ({MODEL.name})" if reason is None else f"not installed ({INSTALL_HINT})"
        )
        typer.echo(f"toolsel {__version__}\nembeddings: {embeddings}")
        raise typer.Exit()


@app.callback()
def main_callback(
    version: Annotated[
        bool,
        typer.Option(
            "--version", "-V", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Inspect, lint and test LLM tool registries."""
