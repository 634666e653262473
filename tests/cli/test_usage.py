"""A new user's mistakes: one line each, exit 2, and help that reads as Unix help does."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT, Cli

REG = str(ROOT / "registries")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("eval",), "Missing option '--cases'. (see 'toolsel eval -h')"),
        (("rank", "--top", "x", "y"), "Invalid value for '--top' / '-n': 'x' is not a valid int."),
        (("rnak", "x"), "No such command 'rnak'. Did you mean 'rank'?"),
        (("prompt", "--budget", "-1"), "--budget': -1 is not in the range x>=0"),
        (("eval", "--cases", "c.jsonl", "--worst", "-2"), "--worst': -2 is not in the range x>=0"),
        (("prompt", "--budget", "many"), "--budget': 'many' is not a valid int."),
        (("replay", "x", "-j", "1.5"), "'-j': '1.5' is not a valid int."),
        (("replay", "x", "-j", "9" * 30), f"'-j': {'9' * 30} is not in the range 1<=x<=256."),
        (("export", "x", "-o", "ev", "-j", "0"), "'-j': 0 is not in the range 1<=x<=256."),
        (
            ("export", "x", "-o", "ev", "-j", "\x1b[31m"),
            r"'-j': '\x1b[31m' is not a valid int.",
        ),  # the escape shown, not sent
        (("rank", "x", "--batch", "q.jsonl"), "give a prompt or --batch FILE, not both"),
        (
            ("rank", "x", "-r", REG, "--category", "fles"),
            "--category 'fles': no tool has it (did you mean 'files'?)",
        ),
        (
            ("rank", "x", "-r", REG, "--tag", "deploi"),
            "--tag 'deploi': no tool has it (did you mean 'deploy'?)",
        ),
    ],
)
def test_usage_errors_are_one_line(cli: Cli, args: tuple[str, ...], message: str) -> None:
    run = cli(*args)
    assert run.exit_code == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and run.stderr.startswith("toolsel: error: ")
    assert message in run.stderr


@pytest.mark.parametrize(
    "command", ["rank", "deps", "lint", "eval", "test", "prompt", "replay", "stats", "schema"]
)
def test_help_shows_plain_metavars(cli: Cli, command: str) -> None:
    text = cli(command, "--help").stdout
    assert not re.search(r"<(path|int|str|float|list\[[^>]*\])>", text), text
    assert "list[" not in text and "Path]" not in text


def test_help_says_what_replay_and_stats_check_against(cli: Cli) -> None:
    for command in ("replay", "stats"):
        text = " ".join(cli(command, "--help").stdout.split())
        assert (
            "Default: the project's ([tool.toolsel] registry, or ./registries/ when it exists); none otherwise."
            in text
        )
        assert "bundled" not in text
