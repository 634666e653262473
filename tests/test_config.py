"""Project configuration: where the default registry comes from."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

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
