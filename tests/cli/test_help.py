"""`--help` for people (issue 20): whole command lines, plain metavars, plain defaults, and
nothing wider than an 80-column terminal."""

from __future__ import annotations

import re

import pytest

from tests.conftest import Cli
from toolsel.cli import COMMANDS


def test_the_command_list_has_whole_lines(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    text = cli("--help").stdout
    for name, _, short in COMMANDS:
        assert f"  {name}" in text and short in text, name
        assert not short.endswith("..."), name
    assert "..." not in text.split("Commands:")[1]


@pytest.mark.parametrize("name", [name for name, _, _ in COMMANDS])
def test_each_command_help_is_plain_and_fits_80_columns(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    text = cli(name, "--help").stdout
    assert "<int range>" not in text and "<float range>" not in text, name
    assert not re.search(r"; x[<>]=?", text), name  # [default: 0], not [default: 0; x>=0]
    assert max(len(line) for line in text.splitlines()) <= 80, name


def test_a_value_out_of_range_still_says_the_range(cli: Cli) -> None:
    run = cli("learn", "--cases", "x", "--min-count", "0")
    assert run.exit_code == 2 and "0 is not in the range x>=1" in run.stderr


def test_lint_fail_on_shows_its_default(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    text = " ".join(cli("lint", "--help").stdout.split())
    assert "--fail-on SEVERITY Lowest severity that fails: error, warning, info, never." in text
    assert "never. [default: error]" in text
