"""The requires graph: load order, cycles as full paths, conflicts, and very long chains."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from toolsel import load_registry
from toolsel.graph import closure, components, find_cycles, load_order, strongly_connected

Write = Callable[..., Path]


def test_closure_lists_prerequisites_first(write: Write) -> None:
    registry = load_registry(
        write(
            "r.yaml",
            """\
        tools:
          - {name: deploy, description: d, requires: [test, health]}
          - {name: test, description: d, requires: [build]}
          - {name: build, description: d}
          - {name: health, description: d}
          - {name: unrelated, description: d}
        """,
        )
    )
    result = closure(registry, ["deploy"])
    assert result.order == ("build", "test", "health", "deploy")
    assert ("deploy", "test") in result.edges and not result.cycles and not result.conflicts


def test_closure_reports_conflicts_and_missing(write: Write) -> None:
    registry = load_registry(
        write(
            "r.yaml",
            """\
        tools:
          - {name: a, description: d, requires: [b, c, ghost]}
          - {name: b, description: d, conflicts: [c]}
          - {name: c, description: d}
        """,
        )
    )
    result = closure(registry, ["a"])
    assert result.conflicts == (("b", "c"),)
    assert result.missing == (("a", "ghost"),)


def test_cycles_are_full_paths_including_self_requires() -> None:
    graph = {"a": ["b"], "b": ["c"], "c": ["a"], "s": ["s"], "x": ["y"], "y": []}
    assert find_cycles(graph) == [("s", "s"), ("a", "b", "c", "a")]


def test_every_cycle_through_a_shared_node_is_reported() -> None:
    graph = {"a": ["b", "c"], "b": ["a"], "c": ["a"]}
    assert find_cycles(graph) == [("a", "b", "a"), ("a", "c", "a")]


def test_ten_thousand_long_chain_needs_no_recursion() -> None:
    n = 10_000
    graph = {f"t{i}": [f"t{i + 1}"] for i in range(n)} | {f"t{n}": []}
    order = load_order(graph, ["t0"])
    assert order[0] == f"t{n}" and order[-1] == "t0" and len(order) == n + 1
    assert find_cycles(graph) == []
    graph[f"t{n}"] = ["t0"]  # close the ring: one cycle of 10,001 tools
    (cycle,) = find_cycles(graph)
    assert len(cycle) == n + 2 and cycle[0] == cycle[-1]


graphs = st.dictionaries(
    st.sampled_from("abcdefgh"), st.lists(st.sampled_from("abcdefgh"), max_size=3), min_size=1
)


@settings(max_examples=200)
@given(graphs)
def test_load_order_puts_requirements_first_unless_on_a_cycle(graph: dict[str, list[str]]) -> None:
    order = load_order(graph, list(graph))
    position = {name: i for i, name in enumerate(order)}
    assert sorted(order) == sorted(set(order)) and set(order) == set(graph)
    cyclic = {n for c in find_cycles(graph) for n in c}
    for node, children in graph.items():
        for child in children:
            if child in graph and not ({node, child} <= cyclic):
                assert position[child] < position[node]


@settings(max_examples=200)
@given(graphs)
def test_cycles_are_real_and_cover_every_cyclic_component(graph: dict[str, list[str]]) -> None:
    cycles = find_cycles(graph)
    for cycle in cycles:
        assert cycle[0] == cycle[-1]
        for a, b in itertools.pairwise(cycle):
            assert b in graph[a]
    in_cycles = {n for c in cycles for n in c}
    for component in strongly_connected(graph):
        is_cyclic = len(component) > 1 or component[0] in graph.get(component[0], [])
        assert is_cyclic == (set(component) <= in_cycles)
    assert find_cycles(graph) == cycles  # deterministic


def test_components_walk_only_what_the_roots_reach_and_ask_each_node_once() -> None:
    edges = {1: [2], 2: [1, 3, 1], 3: [], 4: [1]}
    asked: list[int] = []

    def successors(node: int) -> list[int]:
        asked.append(node)
        return edges[node]

    assert list(components([1, 2], successors)) == [[3], [2, 1]]  # reverse topological
    assert sorted(asked) == [1, 2, 3]  # 4 is not reachable from the roots
