"""The Typer application every command module registers itself on, and `--version`."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from toolsel import __version__


class OneLineErrors(TyperGroup):
    """Usage errors as one line on stderr, like every other error (`toolsel: error: ...`),
    instead of click's usage block; exit code 2."""

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        import sys

        from toolsel.cli.live import add_live_options

        for command in self.commands.values():
            add_live_options(command)
            _plain_metavars(command)

        from typer import _click
        from typer.exceptions import Abort

        try:
            code = super().main(*args, standalone_mode=False, **kwargs)  # type: ignore[misc]
        except _click.exceptions.ClickException as error:
            from toolsel.cli.common import warn

            if type(error).__name__ == "NoArgsIsHelpError":  # `toolsel` alone: the help
                sys.stdout.write(error.format_message() + "\n")
                if not standalone_mode:
                    return error.exit_code
                sys.exit(error.exit_code)

            context = getattr(error, "ctx", None)
            where = context.command_path if context is not None else "toolsel"
            hint = f" (see '{where} -h')" if isinstance(error, _click.exceptions.UsageError) else ""
            warn(f"error: {error.format_message()}{hint}")
            code = error.exit_code
        except Abort:
            from toolsel.cli.common import warn

            warn("interrupted")
            code = 130
        if not standalone_mode:
            return code
        sys.exit(code if isinstance(code, int) else 0)


#: Metavars by parameter type, as Unix tools write them (not `<path>` or `<list[Path]>`).
_METAVARS = {
    **dict.fromkeys(("int", "integer", "integer range", "int range"), "N"),
    **dict.fromkeys(("float", "float range"), "X"),
    **dict.fromkeys(("str", "text"), "TEXT"),
    "path": "PATH",
}


#: A choice list longer than this goes into the help text, so no help line is wider than
#: an 80-column terminal.
_CHOICES_WIDTH = 40


def _plain_metavars(command: Any) -> None:
    """Give every value option and argument an upper-case metavar (PATH, N, X, TEXT; an
    argument is named, PROMPT, PATH...) unless it has its own; choices keep their list
    when it fits a line, else the help text lists them. Number ranges stay out of help."""
    for param in getattr(command, "params", ()):
        if getattr(getattr(param, "type", None), "name", "").endswith(" range"):
            param.type = _quiet_range(param.type)
        if getattr(param, "metavar", None) or getattr(param, "is_flag", False):
            continue
        choices = getattr(param.type, "choices", None)
        if choices and len("|".join(map(str, choices))) > _CHOICES_WIDTH:
            param.metavar = param.name.upper().replace("INPUT_", "")
            param.help = f"{param.help or ''} One of: {', '.join(map(str, choices))}.".strip()
            continue
        if param.param_type_name == "argument":
            many = param.nargs == -1
            name = param.name.upper()
            param.metavar = (name[:-1] if many and name.endswith("S") else name) + (
                "..." if many else ""
            )
            continue
        kind = getattr(param.type, "name", "")
        if kind in _METAVARS:
            param.metavar = _METAVARS[kind]


def _quiet_range(kind: Any) -> Any:
    """A number range that help shows as `[default: 0]`, not `[default: 0; x>=0]` (the
    help text says what the number means), and that still names its range when a value is
    out of it."""
    from typer import _click

    real = kind._describe_range

    class QuietRange(type(kind)):  # type: ignore[misc]
        def _describe_range(self) -> str:
            return ""

        def convert(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                return super().convert(value, param, ctx)
            except _click.exceptions.BadParameter:
                try:
                    self._number_class(value)
                except (TypeError, ValueError):  # not a number of its kind
                    kind = "int" if self._number_class is int else "float"
                    self.fail(f"{value!r} is not a valid {kind}.", param, ctx)
                self.fail(f"{value} is not in the range {real()}.", param, ctx)

    quiet = QuietRange(
        min=kind.min, max=kind.max, min_open=kind.min_open, max_open=kind.max_open,
        clamp=kind.clamp,
    )  # fmt: skip
    quiet.name = kind.name
    return quiet


app = typer.Typer(
    cls=OneLineErrors,
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
    as one escaped line; its warnings go there always."""
    import logging

    from toolsel.cli.common import warn

    class NoteHandler(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            kind = "warning" if record.levelno >= logging.WARNING else "note"
            warn(f"{kind}: {record.getMessage()}")

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
