"""Consoles for human output (colour and width only on a TTY, plain text everywhere else),
and the two writers of machine output: indented JSON documents and JSON lines."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console


#: Width of human output written to a pipe or file (tables wrap to it; log lines do not),
#: unless COLUMNS says otherwise.
PIPED_WIDTH = 120


def piped_width() -> int:
    columns = os.environ.get("COLUMNS", "")
    return max(int(columns), 40) if columns.isdigit() else PIPED_WIDTH


def is_terminal(stream: IO[str]) -> bool:
    """Whether `stream` is a person's terminal (tests stand one in for it)."""
    return hasattr(stream, "isatty") and stream.isatty()


def make_console(file: IO[str] | None = None, *, stderr: bool = False) -> Console:
    from rich.console import Console

    stream = file or (sys.stderr if stderr else sys.stdout)
    is_tty = is_terminal(stream)
    no_color = "NO_COLOR" in os.environ or not is_tty
    kwargs: dict[str, Any] = {
        "file": stream,
        "no_color": no_color,
        "highlight": False,
        "soft_wrap": not is_tty,
        "emoji": False,
        # text from inputs is shown as written: "[bold]x[/]" in a tool name is not markup
        "markup": False,
    }
    if not is_tty:
        # piped output must not depend on the terminal: fixed width, no colour
        kwargs.update(force_terminal=False, color_system=None, width=piped_width())
    console = Console(**kwargs)
    # Rich answers a broken pipe (`| head`) with exit 1; the reader going away is not an
    # error: the command's error handling gets it, as it does for any other write
    console.on_broken_pipe = _broken_pipe  # type: ignore[method-assign]
    return console


def _broken_pipe() -> None:
    raise BrokenPipeError("the reader of stdout went away")


def dumps_json(data: Any) -> str:
    """Versioned machine output: two-space indent, sorted keys, UTF-8, newline-terminated;
    integers beyond 64 bits (schema bounds) as exact as the rest."""
    import orjson

    from toolsel.jsontext import dumps

    return dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode() + "\n"


def dumps_line(data: Any) -> str:
    """One JSON line (JSONL output): compact, sorted keys, newline-terminated."""
    import orjson

    from toolsel.jsontext import dumps

    return dumps(data, option=orjson.OPT_SORT_KEYS).decode() + "\n"


def attrs(item: Any, names: str) -> dict[str, Any]:
    """`item`'s attributes named in `names` (space-separated), in that order: a JSON entry
    whose keys are the attribute names."""
    return {name: getattr(item, name) for name in names.split()}


def writes(text: Callable[[Any], str]) -> Callable[[Any, IO[str]], None]:
    """A renderer that writes `text(result)`."""

    def render(result: Any, out: IO[str]) -> None:
        out.write(text(result))

    return render
