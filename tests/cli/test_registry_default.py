"""Never check the wrong thing silently (issue 20): with no -r and no project registry, the
commands that check a user's files stop, and the exploring ones say they use the example."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli


@pytest.fixture
def empty_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no registries/, no toolsel.toml, no pyproject.toml
    return tmp_path


@pytest.mark.parametrize(
    "args",
    [
        ["lint"],
        ["test", str(ROOT / "tests" / "selection" / "registries.yaml")],
        ["eval", "--cases", str(ROOT / "tests" / "selection" / "conversational.eval.jsonl")],
    ],
)
def test_checking_commands_never_fall_back_to_the_example(
    cli: Cli, empty_project: Path, args: list[str]
) -> None:
    run = cli(*args)
    assert run.exit_code == 2, run.stdout
    assert "no registry given; pass PATH or set `[tool.toolsel] registry`" in run.stderr


def test_exploring_commands_say_they_use_the_example(cli: Cli, empty_project: Path) -> None:
    for args in (["rank", "read a file"], ["prompt"], ["deps", "git_commit"]):
        run = cli(*args)
        assert run.exit_code == 0, (args, run.stderr)
        assert "using the bundled example registry" in run.stderr


def test_a_project_registry_is_used_without_a_note(cli: Cli, empty_project: Path) -> None:
    (empty_project / "registries").mkdir()
    (empty_project / "registries" / "tools.yaml").write_text(
        "tools:\n  - name: read_file\n    description: Reads one file from the workspace.\n",
        encoding="utf-8",
    )
    run = cli("rank", "read a file", "-f", "json")
    assert run.exit_code == 0 and run.stderr == ""
    assert json.loads(run.stdout)["results"][0]["name"] == "read_file"
    assert cli("lint", "-q").exit_code == 0


def test_rank_footers_say_only_what_changed_the_answer(cli: Cli) -> None:
    """Deprecated, blocked and excluded tools are listed only when they would have been
    shown; before, every prompt listed every deprecated tool of the registry."""
    registry = str(ROOT / "registries")
    plain = cli("rank", "read a file", "-r", registry, "-n", "3").stdout
    assert "dropped" not in plain and "excluded" not in plain
    rolled = cli("rank", "roll back the bad release", "-r", registry, "-n", "3").stdout
    assert "excluded deploy_service: conflicts with rollback_deployment" in rolled
