"""`toolsel rank` through the CLI (see tests/ranking/ for the library)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli

Write = Callable[..., Path]


def test_rank_on_the_bundled_registry(cli: Cli) -> None:
    run = cli("rank", "-r", str(ROOT / "registries"), "read the config file", "--format", "json")
    data = json.loads(run.stdout)
    assert data["schema"] == "toolsel.rank/v2" and data["mode"] == "search"
    matched = [r for r in data["results"] if not r["always_include"]]
    assert matched[0]["name"] == "read_file"
    assert all(0 <= r["score"] <= 1 for r in data["results"])
    assert {"name": "search_files", "replaced_by": "search_documents"} in data["deprecated"]


def test_rank_human_table(cli: Cli) -> None:
    run = cli("rank", "-r", str(ROOT / "registries"), "deploy the billing service to production")
    assert run.exit_code == 0 and "deploy_service" in run.stdout and "\x1b[" not in run.stdout


def test_rank_is_deterministic(cli: Cli) -> None:
    args = ("rank", "-r", str(ROOT / "registries"), "delete a record", "-f", "json")
    assert cli(*args).stdout == cli(*args).stdout


@pytest.mark.parametrize(
    ("args", "message"), [(("   ",), "prompt is empty"), (("x", "--top", "0"), "--top")]
)
def test_rank_bad_input(cli: Cli, args: tuple[str, ...], message: str) -> None:
    run = cli("rank", "-r", str(ROOT / "registries"), *args)
    assert run.exit_code == 2 and message in run.stderr


def test_rank_on_a_broken_registry_is_one_line(cli: Cli, write: Write) -> None:
    run = cli("rank", "-r", str(write("b.yaml", "tools:\n  - name: [x\n")), "anything")
    assert run.exit_code == 2
    assert run.stderr.count("\n") == 1 and "b.yaml:3:1: TS001" in run.stderr
    assert "starts at line 2, column 11" in run.stderr


def test_rank_on_a_registry_without_tools(cli: Cli, write: Write) -> None:
    run = cli("rank", "-r", str(write("e.yaml", "tools: []\n")), "anything")
    assert run.exit_code == 2 and "no tools" in run.stderr
