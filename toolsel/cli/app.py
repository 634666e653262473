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


def _verbose(value: bool) -> None:
    """`-v`: the "toolsel" logger's notes go to stderr (whatever stderr is at the time), each
    as one escaped line."""
    import logging

    from toolsel.cli.common import warn

    class NoteHandler(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            warn(f"note: {record.getMessage()}")

    logger = logging.getLogger("toolsel")
    if not any(type(h).__name__ == "NoteHandler" for h in logger.handlers):
        logger.addHandler(NoteHandler())
        logger.propagate = False
    logger.setLevel(logging.INFO if value else logging.WARNING)


@app.callback()
def main_callback(
    version: Annotated[
        bool,
        typer.Option(
            "--version", "-V", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            callback=_verbose,
            help="Print notes on stderr: cache entries discarded and rebuilt, and the like.",
        ),
    ] = False,
) -> None:
    """Inspect, lint and test LLM tool registries."""
