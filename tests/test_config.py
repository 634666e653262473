"""Project configuration: where the default registry comes from."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Cli

Write = Callable[..., Path]


def test_default_registry_from_pyproject(cli: Cli, in_tmp: Path) -> None:
    (in_tmp / "tools").mkdir()
    (in_tmp / "tools" / "mine.yaml").write_text(
        "tools:\n- {name: my_only_tool, description: does my only thing}\n"
    )
    (in_tmp / "pyproject.toml").write_text('[tool.toolsel]\nregistry = "tools"\n')
    sub = in_tmp / "deep" / "er"
    sub.mkdir(parents=True)
    import os

    os.chdir(sub)
    data = json.loads(cli("rank", "only thing", "-f", "json").stdout)
    assert [r["name"] for r in data["results"]] == ["my_only_tool"]


def test_default_registry_is_local_registries_dir(cli: Cli, in_tmp: Path) -> None:
    (in_tmp / "registries").mkdir()
    (in_tmp / "registries" / "r.yaml").write_text(
        "tools:\n- {name: local_tool, description: local thing}\n"
    )
    data = json.loads(cli("rank", "local", "-f", "json").stdout)
    assert data["results"][0]["name"] == "local_tool"


def test_default_registry_falls_back_to_bundled_example(cli: Cli, in_tmp: Path) -> None:
    data = json.loads(cli("rank", "read a file", "-f", "json").stdout)
    assert next(r for r in data["results"] if not r["always_include"])["name"] == "read_file"


def test_unknown_key_in_tool_toolsel_is_a_config_error(cli: Cli, in_tmp: Path) -> None:
    (in_tmp / "pyproject.toml").write_text('[tool.toolsel]\nregistri = "x"\n')
    run = cli("rank", "x")
    assert run.exit_code == 2 and "did you mean 'registry'" in run.stderr


BAD_LINT_CONFIG = {
    "a list of mixed values": (
        "allowed-categories = [1, {a = 1}]",
        "must be a list of strings, got 1",
    ),
    "a string for a number": ('max-description-chars = "x"', "must be like 1024, got 'x'"),
    "a negative number": ("max-tools = -3", "must not be negative"),
    "a boolean for a number": ("max-tools = true", "must be like 30, got True"),
    "an unknown option": ("max-toolz = 3", "did you mean 'max-tools'"),
}


@pytest.mark.parametrize("case", list(BAD_LINT_CONFIG))
def test_bad_lint_options_are_one_line_errors(cli: Cli, in_tmp: Path, case: str) -> None:
    setting, message = BAD_LINT_CONFIG[case]
    (in_tmp / "pyproject.toml").write_text(f"[tool.toolsel.lint.options]\n{setting}\n")
    (in_tmp / "r.yaml").write_text("tools:\n- {name: a_tool, description: does a thing}\n")
    run = cli("lint", "r.yaml")
    assert run.exit_code == 2 and run.stdout == "" and run.stderr.count("\n") == 1
    assert "pyproject.toml: option" in run.stderr or "unknown lint option" in run.stderr
    assert message in run.stderr and "Traceback" not in run.stderr
