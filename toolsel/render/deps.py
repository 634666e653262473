"""Render `toolsel deps`: dependency closures and whole graphs as a Rich tree, JSON,
Graphviz dot or Mermaid."""

from __future__ import annotations

from collections.abc import Callable
from typing import IO

from toolsel.graph import Closure
from toolsel.render.console import dumps_json, make_console
from toolsel.render.formats import DepsFormat, GraphFormat

DEPS_SCHEMA = "toolsel.deps/v1"


def render_deps_json(closure: Closure, out: IO[str]) -> None:
    out.write(
        dumps_json(
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
    )


def render_deps_human(closure: Closure, out: IO[str]) -> None:
    from rich.text import Text
    from rich.tree import Tree

    console = make_console(out)
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


def render_dot(closure: Closure, out: IO[str], conflicts: list[tuple[str, str]]) -> None:
    lines = ["digraph requires {", "  rankdir=LR;"]
    lines += [f"  {_dot_id(n)};" for n in closure.order]
    lines += [f"  {_dot_id(a)} -> {_dot_id(b)};" for a, b in closure.edges]
    lines += [
        f'  {_dot_id(a)} -> {_dot_id(b)} [style=dashed, color=red, dir=none, label="conflicts"];'
        for a, b in conflicts
    ]
    out.write("\n".join([*lines, "}"]) + "\n")


def render_mermaid(closure: Closure, out: IO[str], conflicts: list[tuple[str, str]]) -> None:
    ids = {name: f"n{i}" for i, name in enumerate(closure.order)}
    lines = ["graph LR"]
    lines += [f'  {ids[n]}["{_mermaid_label(n)}"]' for n in closure.order]
    lines += [f"  {ids[a]} --> {ids[b]}" for a, b in closure.edges]
    lines += [f"  {ids[a]} -. conflicts .- {ids[b]}" for a, b in conflicts if a in ids and b in ids]
    out.write("\n".join(lines) + "\n")


def _mermaid_label(name: str) -> str:
    return name.replace('"', "#quot;")


#: `deps --format F`.
DEPS_RENDERERS: dict[DepsFormat, Callable[[Closure, IO[str]], None]] = {
    DepsFormat.HUMAN: render_deps_human,
    DepsFormat.JSON: render_deps_json,
}
#: `deps --graph G`: the graph, with its conflicts as dashed edges.
GRAPH_RENDERERS: dict[GraphFormat, Callable[[Closure, IO[str], list[tuple[str, str]]], None]] = {
    GraphFormat.DOT: render_dot,
    GraphFormat.MERMAID: render_mermaid,
}
