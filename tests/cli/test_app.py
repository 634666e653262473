"""The application: version, help, no arguments."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Cli
from toolsel import __version__

Write = Callable[..., Path]


def test_version(cli: Cli) -> None:
    run = cli("--version")
    assert run.exit_code == 0 and run.stdout.startswith(f"toolsel {__version__}\nembeddings: ")


def test_help_lists_every_command_with_a_purpose(cli: Cli) -> None:
    run = cli("--help")
    for command in ("rank", "deps", "lint", "schema"):
        assert f"  {command} " in run.stdout
    assert "--install-completion" in run.stdout and "--show-completion" in run.stdout


def test_no_arguments_shows_help(cli: Cli) -> None:
    run = cli()
    assert "Usage" in run.stdout + run.stderr
