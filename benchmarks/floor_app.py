"""The start-up floor for rank_bench.py: a bare Typer app that imports Rich and prints a table."""

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer()


@app.command()
def main(query: str) -> None:
    table = Table(title=query)
    table.add_column("tool")
    table.add_row("example")
    Console().print(table)


if __name__ == "__main__":
    app()
