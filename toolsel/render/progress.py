"""Progress bars on stderr, shown only when stderr is a terminal (never in pipes or CI logs)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator


def wants_progress() -> bool:
    return sys.stderr.isatty()


@contextlib.contextmanager
def progress_bar(
    description: str, total: int, *, unit: str = "items"
) -> Iterator[Callable[[int], None]]:
    """Yield `advance(n)`; draw a transient Rich bar only when stderr is a terminal."""
    if not wants_progress():
        yield lambda n: None
        return
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        MofNCompleteColumn,
        Progress,
        TimeRemainingColumn,
    )

    from toolsel.render.console import make_console

    count = DownloadColumn() if unit == "bytes" else MofNCompleteColumn()
    columns = (description, BarColumn(), count, TimeRemainingColumn())
    # drawn on each advance (callers advance every few thousand lines or every 32 texts),
    # not by a timer thread, so what is shown is what was done
    with Progress(
        *columns, console=make_console(stderr=True), transient=True, auto_refresh=False
    ) as bar:
        task = bar.add_task(description, total=total)

        def advance(n: int) -> None:
            bar.advance(task, n)
            bar.refresh()

        yield advance


def embedding_progress(total: int) -> contextlib.AbstractContextManager[Callable[[int], None]]:
    """The bar shown while tool descriptions are embedded (`toolsel[embed]`)."""
    return progress_bar(f"embedding {total} tools", total)


def embedding_progress_prompts(
    total: int,
) -> contextlib.AbstractContextManager[Callable[[int], None]]:
    """The bar shown while many prompts are embedded (`eval`, `--batch`, `test`)."""
    return progress_bar(f"embedding {total} prompts", total)
