"""TD501-TD503: `requires` and `conflicts`. Each case's whole report."""

from __future__ import annotations

from pathlib import Path

from tests.diff.helpers import changes, rows
from tests.diff.helpers import load as load_registry
from toolsel.diff.rules.graph import cycles


def tool(name: str, *extra: str) -> str:
    return f"- name: {name}\n  description: Reads {name}.\n" + "".join(f"  {e}\n" for e in extra)


OTHERS = tool("b") + tool("c") + tool("d")


def test_requires_added_is_risky_and_removed_safe(tmp_path: Path) -> None:
    old = tool("a", "requires: [b, c]") + OTHERS
    new = tool("a", "requires: [c, d]") + OTHERS
    found = changes(old, new, tmp_path)
    assert [(c.rule, c.change_class.value, c.tool, c.pointer, c.message) for c in found] == [
        ("TD501", "risky", "a", "/requires", "'a' now requires d"),
        ("TD501", "safe", "a", "/requires", "'a' no longer requires b"),
    ]
    assert [(c.old.value, c.new.value) for c in found] == [(["b", "c"], ["c", "d"])] * 2  # type: ignore[union-attr]
    assert rows(tool("a") + OTHERS, tool("a", "requires: [b, d]") + OTHERS, tmp_path) == [
        ("TD501", "risky", "a", "/requires", "'a' now requires b, d")
    ]
    assert rows(tool("a", "requires: [b, d]") + OTHERS, tool("a") + OTHERS, tmp_path) == [
        ("TD501", "safe", "a", "/requires", "'a' no longer requires b, d")
    ]


def test_conflicts_added_is_risky_and_removed_safe(tmp_path: Path) -> None:
    old = tool("a", "conflicts: [b]") + OTHERS
    new = tool("a", "conflicts: [c, d]") + OTHERS
    assert rows(old, new, tmp_path) == [
        ("TD503", "risky", "a", "/conflicts", "'a' now conflicts with c, d"),
        ("TD503", "safe", "a", "/conflicts", "'a' no longer conflicts with b"),
    ]


def test_the_same_names_in_another_order_are_no_change(tmp_path: Path) -> None:
    old = tool("a", "requires: [b, c]", "conflicts: [d, b]") + OTHERS
    new = tool("a", "requires: [c, b]", "conflicts: [b, d]") + OTHERS
    assert rows(old, new, tmp_path) == []


def test_a_requires_cycle_introduced_is_breaking(tmp_path: Path) -> None:
    old = tool("c", "requires: [a]") + tool("a") + tool("b")
    new = tool("c", "requires: [a]") + tool("a", "requires: [b]") + tool("b", "requires: [c]")
    found = changes(old, new, tmp_path)
    assert [(c.rule, c.change_class.value, c.tool, c.pointer, c.message) for c in found] == [
        ("TD502", "breaking", "a", "/requires", "requires cycle introduced: a -> b -> c -> a"),
        ("TD501", "risky", "a", "/requires", "'a' now requires b"),
        ("TD501", "risky", "b", "/requires", "'b' now requires c"),
    ]
    assert (found[0].old, found[0].new.value) == (None, ["a", "b", "c"])  # type: ignore[union-attr]
    assert (found[0].new.pointer, found[0].new.line) == ("/tools/1/requires", 7)  # type: ignore[union-attr]


def test_a_tool_that_requires_itself_is_a_cycle(tmp_path: Path) -> None:
    assert rows(tool("a") + tool("b"), tool("a") + tool("b", "requires: [b]"), tmp_path) == [
        ("TD502", "breaking", "b", "/requires", "requires cycle introduced: b -> b"),
        ("TD501", "risky", "b", "/requires", "'b' now requires b"),
    ]


def test_a_cycle_old_already_had_is_not_reported(tmp_path: Path) -> None:
    old = tool("a", "requires: [b]") + tool("b", "requires: [a]") + tool("c", "requires: [c]")
    new = (
        tool("b", "requires: [a]")
        + tool("a", "requires: [b]", "conflicts: [d]")
        + tool("c", "requires: [c]")
        + tool("d")
    )
    assert [r[0] for r in rows(old, new, tmp_path)] == ["TD503", "TD009", "TD008"]


def test_cycles_are_each_component_once_sorted(tmp_path: Path) -> None:
    registry = load_registry(
        tool("z", "requires: [y]") + tool("y", "requires: [z, x]") + tool("x")
        + tool("s", "requires: [s]") + tool("p", "requires: [q]") + tool("q"),
        tmp_path, "r.yaml",
    )  # fmt: skip
    assert sorted(cycles(registry)) == [["s"], ["y", "z"]]  # type: ignore[arg-type]


def test_a_new_cycle_is_reported_after_one_old_already_had(tmp_path: Path) -> None:
    old = tool("a", "requires: [a]") + tool("b")
    new = tool("a", "requires: [a]") + tool("b", "requires: [b]")
    assert rows(old, new, tmp_path) == [
        ("TD502", "breaking", "b", "/requires", "requires cycle introduced: b -> b"),
        ("TD501", "risky", "b", "/requires", "'b' now requires b"),
    ]
