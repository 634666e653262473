"""Tables that fit the console without breaking a name: a name, number or path is one cell
on one line; only free text (an explanation, a summary, a note) wraps, and only between
words. When a table cannot fit, optional columns are left out (and said so); when it still
cannot, the caller stacks its rows (`stacked`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table


@dataclass(frozen=True, slots=True)
class Column:
    header: str
    #: free text, which may wrap between words; every other column keeps each cell whole
    wrap: bool = False
    #: the narrowest a wrapping column may get (it never gets narrower than its longest word)
    min_width: int = 0
    justify: Literal["left", "right"] = "left"
    #: left out when the table does not fit, highest first; 0: always kept
    optional: int = 0


def _longest_word(text: str) -> int:
    from rich.cells import cell_len

    return max((cell_len(word) for word in text.split()), default=0)


def column_width(column: Column, cells: Sequence[str]) -> int:
    """The narrowest the column can be without breaking a cell (or, if it wraps, a word)."""
    from rich.cells import cell_len

    if column.wrap:
        return max([column.min_width, _longest_word(column.header), *map(_longest_word, cells)])
    return max([cell_len(column.header), *map(cell_len, cells)])


def table_width(columns: Sequence[Column], rows: Sequence[Sequence[str]], *, boxed: bool) -> int:
    """The narrowest a table of these rows can be: each column's width, one space of padding
    either side of each cell, and the borders (a borderless table has no outer padding)."""
    widths = [column_width(c, [row[i] for row in rows]) for i, c in enumerate(columns)]
    edges = len(columns) + 1 if boxed else -2
    return sum(widths) + 2 * len(columns) + edges


@dataclass(frozen=True, slots=True)
class Fitted:
    """A table that fits, and the headers of the optional columns left out to make it fit."""

    table: Table
    left_out: tuple[str, ...]


def fitted_table(
    console: Console,
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    *,
    boxed: bool = True,
    row_styles: Sequence[str] | None = None,
    title: str | None = None,
    caption: str | None = None,
) -> Fitted | None:
    """The table with as many optional columns as fit `console`'s width, or None when even
    the required columns cannot fit without breaking a cell (then stack the rows)."""
    keep = list(range(len(columns)))
    by_need = sorted((c.optional, i) for i, c in enumerate(columns) if c.optional)
    while True:
        kept = [columns[i] for i in keep]
        kept_rows = [[row[i] for i in keep] for row in rows]
        if table_width(kept, kept_rows, boxed=boxed) <= console.width:
            left_out = tuple(c.header for i, c in enumerate(columns) if i not in keep)
            return Fitted(_table(kept, kept_rows, boxed, row_styles, title, caption), left_out)
        if not by_need:
            return None
        keep.remove(by_need.pop()[1])


def _table(
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    boxed: bool,
    row_styles: Sequence[str] | None,
    title: str | None,
    caption: str | None,
) -> Table:
    from rich.table import Table

    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    if not boxed:
        table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for i, column in enumerate(columns):
        width = column_width(column, [row[i] for row in rows])
        # a column that does not wrap is exactly as wide as its widest cell: never shrunk
        fit: dict[str, Any] = (
            {"min_width": width, "overflow": "fold"}
            if column.wrap
            else {"width": width, "no_wrap": True}
        )
        table.add_column(column.header, justify=column.justify, **fit)
    for i, row in enumerate(rows):
        table.add_row(*row, style=row_styles[i] if row_styles else None)
    return table


def stacked(
    console: Console,
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    *,
    row_styles: Sequence[str] | None = None,
) -> None:
    """Each row as a block: its first cell on a line of its own, then the others as
    `header value` pairs, indented; for a terminal too narrow for the table."""
    from rich.padding import Padding
    from rich.text import Text

    for i, row in enumerate(rows):
        style = row_styles[i] if row_styles else ""
        console.print(Text(row[0], style=f"bold {style}".strip()), overflow="fold")
        pairs = [f"{c.header} {cell}" for c, cell in zip(columns[1:], row[1:], strict=True) if cell]
        console.print(Padding(Text(", ".join(pairs), style=style), (0, 0, 0, 2), expand=False))


def print_table(
    console: Console,
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    *,
    title: str | None = None,
    boxed: bool = True,
    row_styles: Sequence[str] | None = None,
) -> None:
    """The table fitted to `console` (`fitted_table`), or, where even its required columns
    do not fit, its title and the rows stacked (`stacked`)."""
    fitted = fitted_table(console, columns, rows, boxed=boxed, row_styles=row_styles, title=title)
    if fitted is not None:
        console.print(fitted.table)
        return
    if title:
        console.print(title)
    stacked(console, columns, rows, row_styles=row_styles)


def left_out_note(left_out: Sequence[str]) -> str:
    """What a narrow terminal left out of a table, and how to see it."""
    noun = "column" if len(left_out) == 1 else "columns"
    return f"{noun} {', '.join(left_out)} left out at this width (--format json has them)"
