"""Tables laid out to fit: names whole, optional columns left out first, then stacking."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console

from toolsel.render.layout import Column, fitted_table, stacked, table_width

COLUMNS = [
    Column("tool"),
    Column("calls", justify="right"),
    Column("files", justify="right", optional=2),
    Column("latency", justify="right", optional=1),
    Column("note", wrap=True, min_width=10),
]


def _console(width: int) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=width, color_system=None, markup=False), out


def test_optional_columns_go_highest_first_then_the_table_gives_up() -> None:
    rows = [["read_file", "3", "1", "1.00 s", "a short note"]]
    console, _ = _console(80)
    full = fitted_table(console, COLUMNS, rows)
    assert full is not None and full.left_out == ()
    need = table_width(COLUMNS, rows, boxed=True)
    console, _ = _console(need - 1)
    fitted = fitted_table(console, COLUMNS, rows)
    assert fitted is not None and fitted.left_out == ("files",)
    console, _ = _console(20)
    assert fitted_table(console, COLUMNS, rows) is None


def test_the_computed_width_is_what_rich_draws() -> None:
    rows = [["mcp__github__create_issue", "12", "3", "-", "one two three four"]]
    need = table_width(COLUMNS, rows, boxed=True)
    console, out = _console(need)
    fitted = fitted_table(console, COLUMNS, rows)
    assert fitted is not None and fitted.left_out == ()
    console.print(fitted.table)
    lines = out.getvalue().splitlines()
    assert max(cell_len(line) for line in lines) == need
    assert any("mcp__github__create_issue" in line for line in lines)


names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=70)
notes = st.lists(st.text(alphabet="abcdefgh", min_size=1, max_size=20), max_size=8).map(" ".join)


@given(
    rows=st.lists(
        st.tuples(names, st.integers(0, 10**6), notes).map(
            lambda t: [t[0], str(t[1]), "7", "0.25 s", t[2]]
        ),
        min_size=1,
        max_size=6,
    ),
    width=st.integers(40, 160),
    boxed=st.booleans(),
)
def test_a_fitted_table_never_breaks_a_name_or_passes_the_width(
    rows: list[list[str]], width: int, boxed: bool
) -> None:
    console, out = _console(width)
    fitted = fitted_table(console, COLUMNS, rows, boxed=boxed)
    if fitted is None:
        assert (
            table_width(COLUMNS[:2] + COLUMNS[4:], [r[:2] + r[4:] for r in rows], boxed=boxed)
            > width
        )
        stacked(console, COLUMNS, rows)
    else:
        console.print(fitted.table)
    lines = out.getvalue().splitlines()
    assert all(cell_len(line) <= width for line in lines)
    for row in rows:
        if cell_len(row[0]) <= width:
            assert any(row[0] in line for line in lines), row[0]
