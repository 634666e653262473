"""Render dependency closures and whole graphs: Rich tree, JSON, Graphviz dot, Mermaid."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolsel.graph import Closure
from toolsel.render.console import dumps_json
from toolsel.render.formats import GraphFormat

if TYPE_CHECKING:
    from rich.console import Console

DEPS_SCHEMA = "toolsel.deps/v1"


def render_deps_json(closure: Closure) -> str:
    return dumps_json(
        {
            "schema": DEPS_SCHEMA,
            "roots": list(closure.roots),
            "order": list(closure.order),
            "edges": [{"tool": a, "requires": b} for a, b in closure.edges],
            "missing": [{"tool": a, "requires": b} for a, b in closure.missing],
            "conflicts": [list(pair) for pair in closure.conflicts],
            "cycles": [list(cycle) for cycle in closure.cycles],
        }
    )


def render_deps_human(closure: Closure, console: Console) -> None:
    from rich.text import Text
    from rich.tree import Tree

    children: dict[str, list[str]] = {}
    for a, b in closure.edges:
        children.setdefault(a, []).append(b)
    for root in closure.roots:
        if root not in closure.order:
            continue
        tree = Tree(Text(root, style="bold"))
        stack = [(tree, root, frozenset({root}))]
        while stack:
            branch, node, path = stack.pop()
            pending = []
            for child in children.get(node, []):
                if child in path:
                    branch.add(Text(f"{child} (cycle)", style="red"))
                else:
                    pending.append((branch.add(child), child, path | {child}))
            stack.extend(reversed(pending))
        console.print(tree)
    console.print(Text("Load order: ", style="bold") + Text(" -> ".join(closure.order)))
    for tool, missing in closure.missing:
        console.print(Text(f"! {tool} requires unknown tool {missing!r}", style="red"))
    for a, b in closure.conflicts:
        console.print(
            Text(f"! conflict: {a} and {b} are both in this closure but conflict", style="yellow")
        )
    for cycle in closure.cycles:
        console.print(Text("! cycle: " + " -> ".join(cycle), style="red"))


def _dot_id(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_graph(closure: Closure, fmt: GraphFormat, conflicts: list[tuple[str, str]]) -> str:
    if fmt is GraphFormat.DOT:
        lines = ["digraph requires {", "  rankdir=LR;"]
        lines += [f"  {_dot_id(n)};" for n in closure.order]
        lines += [f"  {_dot_id(a)} -> {_dot_id(b)};" for a, b in closure.edges]
        lines += [
            f'  {_dot_id(a)} -> {_dot_id(b)} [style=dashed, color=red, dir=none, label="conflicts"];'
            for a, b in conflicts
        ]
        return "\n".join([*lines, "}"]) + "\n"
    ids = {name: f"n{i}" for i, name in enumerate(closure.order)}
    lines = ["graph LR"]
    lines += [f'  {ids[n]}["{_mermaid_label(n)}"]' for n in closure.order]
    lines += [f"  {ids[a]} --> {ids[b]}" for a, b in closure.edges]
    lines += [f"  {ids[a]} -. conflicts .- {ids[b]}" for a, b in conflicts if a in ids and b in ids]
    return "\n".join(lines) + "\n"


def _mermaid_label(name: str) -> str:
    return name.replace('"', "#quot;")
