"""`toolsel init`: a starter project that lints clean and passes its tests, and never
overwrites a file."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests.conftest import Cli

STARTER = ("toolsel.toml", "registries/tools.yaml", "tests/toolsel.yaml")


def test_init_writes_a_project_that_lints_clean_and_passes_its_tests(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = cli("init", str(tmp_path / "agent"))
    assert run.exit_code == 0, run.stderr
    project = tmp_path / "agent"
    assert sorted(str(p.relative_to(project)) for p in project.rglob("*") if p.is_file()) == sorted(
        STARTER
    )
    for name in STARTER:
        assert f"Wrote {project / name}" in run.stdout
    assert "toolsel lint" in run.stdout and "toolsel test tests/toolsel.yaml" in run.stdout
    assert "toolsel rank 'refund order A-1042'" in run.stdout

    monkeypatch.chdir(project)
    lint = cli("lint", "--strict")
    assert lint.exit_code == 0 and "No problems found in 1 file." in lint.stdout
    test = cli("test", "tests/toolsel.yaml")
    assert test.exit_code == 0 and "3 passed, 0 failed" in test.stdout
    rank = cli("rank", "refund order A-1042", "-f", "json")
    assert rank.exit_code == 0 and '"refund_order"' in rank.stdout


def test_the_starter_config_is_the_project_config(tmp_path: Path) -> None:
    from toolsel.scaffold import init_project
    from toolsel.sources.project import find_config

    init_project(tmp_path)
    config = find_config(tmp_path)
    assert config.path == tmp_path / "toolsel.toml"
    assert config.registry == (tmp_path / "registries",)
    assert config.lint == {"targets": ["portable"], "fail-on": "error"}


def test_init_refuses_to_overwrite_any_file_and_writes_nothing(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for existing in STARTER:
        folder = tmp_path / existing.replace("/", "_")
        (folder / existing).parent.mkdir(parents=True)
        (folder / existing).write_text("mine\n")
        monkeypatch.chdir(folder)
        run = cli("init")
        assert run.exit_code == 2
        assert run.stderr == (
            f"toolsel: error: {existing} already exists; toolsel init never overwrites a file "
            "(move it away, or init another folder)\n"
        )
        assert run.stdout == ""
        assert [p.name for p in folder.rglob("*") if p.is_file()] == [Path(existing).name]
        assert (folder / existing).read_text() == "mine\n"


def test_init_refuses_a_dangling_symlink_in_the_way(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "registries").mkdir()
    (tmp_path / "registries" / "tools.yaml").symlink_to(tmp_path / "nowhere.yaml")
    run = cli("init", str(tmp_path))
    assert run.exit_code == 2 and "tools.yaml already exists" in run.stderr
    assert not (tmp_path / "nowhere.yaml").exists() and not (tmp_path / "toolsel.toml").exists()


def test_init_refuses_a_file_as_the_folder(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    run = cli("init", str(tmp_path / "file"))
    assert run.exit_code == 2
    assert run.stderr.startswith("toolsel: error: ") and "is not a folder" in run.stderr


def test_dry_run_writes_nothing(cli: Cli, tmp_path: Path) -> None:
    run = cli("init", "--dry-run", str(tmp_path / "agent"))
    assert run.exit_code == 0
    assert f"Would write {tmp_path / 'agent' / 'toolsel.toml'} (configuration)" in run.stdout
    assert not (tmp_path / "agent").exists()


PYPROJECT = """\
# my project
[project]
name = "agent"
version = "0.1.0"

[tool.ruff]
line-length = 100"""


def test_pyproject_gets_the_table_appended_and_keeps_the_rest(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    run = cli("init", "--pyproject", str(tmp_path))
    assert run.exit_code == 0, run.stderr
    assert f"Added [tool.toolsel] to {tmp_path / 'pyproject.toml'}" in run.stdout
    assert not (tmp_path / "toolsel.toml").exists()
    text = (tmp_path / "pyproject.toml").read_text()
    assert text.startswith(PYPROJECT + "\n\n[tool.toolsel]\n")
    data = tomllib.loads(text)
    assert data["tool"]["ruff"] == {"line-length": 100}
    assert data["tool"]["toolsel"]["registry"] == "registries"
    monkeypatch.chdir(tmp_path)
    assert cli("lint", "--strict").exit_code == 0
    assert cli("test", "tests/toolsel.yaml").exit_code == 0


@pytest.mark.parametrize(
    ("pyproject", "message"),
    [
        (None, "pyproject.toml not found; --pyproject adds [tool.toolsel] to an existing"),
        ("[tool.toolsel]\nregistry = 'x'\n", "already has a [tool.toolsel] table"),
        ("[tool.toolsel.lint]\nignore = []\n", "already has a [tool.toolsel] table"),
        ("[project\n", "cannot read it as TOML"),
    ],
    ids=["missing", "has the table", "has a subtable", "not TOML"],
)
def test_pyproject_refusals(cli: Cli, tmp_path: Path, pyproject: str | None, message: str) -> None:
    if pyproject is not None:
        (tmp_path / "pyproject.toml").write_text(pyproject)
    run = cli("init", "--pyproject", str(tmp_path))
    assert run.exit_code == 2 and message in run.stderr
    assert len(run.stderr.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == (["pyproject.toml"] if pyproject else [])
    if pyproject is not None:
        assert (tmp_path / "pyproject.toml").read_text() == pyproject


def test_pyproject_beside_a_toolsel_toml_is_refused(cli: Cli, tmp_path: Path) -> None:
    """toolsel.toml is read first: a table added to pyproject.toml would do nothing."""
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "toolsel.toml").write_text("")
    run = cli("init", "--pyproject", str(tmp_path))
    assert run.exit_code == 2 and "toolsel.toml already exists and is read before" in run.stderr
    assert (tmp_path / "pyproject.toml").read_text() == PYPROJECT


def test_init_in_the_current_folder_says_no_cd(cli: Cli, in_tmp: Path) -> None:
    run = cli("init")
    assert run.exit_code == 0 and "Wrote toolsel.toml (configuration)" in run.stdout
    assert "cd " not in run.stdout
