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


def _chain_registry(write: Write, name: str, count: int, requires) -> str:
    lines = ["tools:"]
    for i in range(count):
        needs = ", ".join(f"t{j}" for j in requires(i))
        lines.append(f"- {{name: t{i}, description: d, requires: [{needs}]}}")
    return str(write(name, "\n".join(lines) + "\n"))


def test_deps_tree_shows_a_shared_subtree_once(cli: Cli, write: Write) -> None:
    # t_i requires t_i+1 and t_i+2: 2^60 paths, 60 tools
    path = _chain_registry(write, "dag.yaml", 60, lambda i: [j for j in (i + 1, i + 2) if j < 60])
    run = cli("deps", "-r", path, "t0")
    lines = run.stdout.splitlines()
    tree = lines[: lines.index(next(line for line in lines if line.startswith("Load order")))]
    assert len(tree) < 2 * 60 + 2  # each tool expanded once, repeats marked
    assert tree[0] == "t0" and tree[1] == "├── t1" and tree[-1] == "└── t2 (*)"
    assert sum(line.endswith(" (*)") for line in tree) == 57  # t2..t58 as second child
    assert run.exit_code == 0


def test_deps_all_on_a_long_cycle_is_linear(cli: Cli, write: Write) -> None:
    path = _chain_registry(write, "cycle.yaml", 300, lambda i: [(i + 1) % 300])
    run = cli("deps", "-r", path, "--all")
    lines = run.stdout.splitlines()
    assert lines[300].endswith("└── t0 (cycle)")  # the first root expands the whole ring once
    assert sum(line.endswith(" (*)") for line in lines) == 299  # every other root is a repeat
    assert "! cycle: t0 -> t1 -> t2" in run.stdout and run.exit_code == 1
