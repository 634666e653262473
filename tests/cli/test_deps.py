"""`toolsel deps`: closures, trees, cycles and graph exports."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli

Write = Callable[..., Path]


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
