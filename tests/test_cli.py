"""The CLI surface: version, help, completion, `schema`, `rank`, `deps`, default registry."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli
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


def test_schema_command_prints_a_schema_the_examples_satisfy(cli: Cli) -> None:
    import yaml
    from jsonschema import Draft202012Validator

    schema = json.loads(cli("schema").stdout)
    Draft202012Validator.check_schema(schema)
    for path in sorted((ROOT / "registries").glob("*.yaml")):
        errors = list(Draft202012Validator(schema).iter_errors(yaml.safe_load(path.read_text())))
        assert not errors, (path, errors[0].message)


def test_schema_rejects_what_the_loader_rejects() -> None:
    from importlib.resources import files

    from jsonschema import Draft202012Validator

    schema = json.loads(files("toolsel.schemas").joinpath("registry.schema.json").read_text())
    bad = {"tools": [{"name": "a", "description": "d", "permisson": "read", "tags": "x"}]}
    assert len(list(Draft202012Validator(schema).iter_errors(bad))) >= 2


def test_schema_fields_match_the_loader_field_table() -> None:
    from importlib.resources import files

    from toolsel.registry.formats import FIELD_TYPES

    schema = json.loads(files("toolsel.schemas").joinpath("registry.schema.json").read_text())
    assert set(schema["$defs"]["tool"]["properties"]) == set(FIELD_TYPES)


# --- rank ------------------------------------------------------------------------------


def test_rank_on_the_bundled_registry(cli: Cli) -> None:
    run = cli("rank", "-r", str(ROOT / "registries"), "read the config file", "--format", "json")
    data = json.loads(run.stdout)
    assert data["schema"] == "toolsel.rank/v1" and data["mode"] == "search"
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


# --- deps ------------------------------------------------------------------------------


def test_deps_json_in_load_order(cli: Cli) -> None:
    run = cli("deps", "-r", str(ROOT / "registries"), "deploy_service", "-f", "json")
    data = json.loads(run.stdout)
    assert data["schema"] == "toolsel.deps/v1"
    assert data["order"] == ["run_tests", "check_health", "deploy_service"]
    assert run.exit_code == 0


def test_deps_tree_and_conflicts(cli: Cli, write: Write) -> None:
    path = str(
        write(
            "c.yaml",
            "tools:\n- {name: a, description: d, requires: [b, c]}\n- {name: b, description: d, conflicts: [c]}\n- {name: c, description: d}\n",
        )
    )
    run = cli("deps", "-r", path, "a")
    assert "Load order: b -> c -> a" in run.stdout and "conflict: b and c" in run.stdout


def test_deps_cycle_is_a_full_path_and_exit_one(cli: Cli, write: Write) -> None:
    path = str(
        write(
            "cy.yaml",
            "tools:\n- {name: a, description: d, requires: [b]}\n- {name: b, description: d, requires: [c]}\n- {name: c, description: d, requires: [a]}\n",
        )
    )
    run = cli("deps", "-r", path, "--all", "-f", "json")
    assert json.loads(run.stdout)["cycles"] == [["a", "b", "c", "a"]]
    assert run.exit_code == 1


@pytest.mark.parametrize(
    ("graph", "marker"), [("dot", "digraph requires {"), ("mermaid", "graph LR")]
)
def test_deps_graph_export(cli: Cli, graph: str, marker: str) -> None:
    run = cli("deps", "-r", str(ROOT / "registries"), "--all", "--graph", graph)
    assert run.stdout.startswith(marker) and "deploy_service" in run.stdout
    assert "conflicts" in run.stdout  # deploy_service and rollback_deployment


def test_deps_unknown_tool_suggests(cli: Cli) -> None:
    run = cli("deps", "-r", str(ROOT / "registries"), "deploy_servce")
    assert run.exit_code == 2 and "did you mean 'deploy_service'" in run.stderr


def test_deps_needs_a_tool_or_all(cli: Cli) -> None:
    assert cli("deps", "-r", str(ROOT / "registries")).exit_code == 2


# --- default registry ------------------------------------------------------------------


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
