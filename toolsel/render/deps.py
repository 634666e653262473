"""Render `toolsel deps`: dependency closures and whole graphs as a Rich tree, JSON,
Graphviz dot or Mermaid."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import IO

from toolsel.graph import Closure
from toolsel.render.console import dumps_json, make_console
from toolsel.render.escape import visible
from toolsel.render.formats import DepsFormat, GraphFormat
from toolsel.schemas import Output, schema_name

DEPS_SCHEMA = schema_name(Output.DEPS)


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


def tree_lines(closure: Closure) -> Iterator[tuple[str, str, str]]:
    """The closure as tree lines `(guide, tool, mark)`, as `cargo tree` prints them: a tool
    whose requirements were already shown is marked "(*)" and not expanded again, and a
    requirement that closes a cycle is marked "(cycle)". Each tool is expanded once, so the
    output grows with the edges, never with the number of paths."""
    children: dict[str, list[str]] = {}
    for a, b in closure.edges:
        children.setdefault(a, []).append(b)
    members = set(closure.order)
    expanded: set[str] = set()
    on_path: set[str] = set()
    for root in closure.roots:
        if root not in members:
            continue
        # (node, guide for this line, guide for its children) or (None, node) on the way out
        stack: list[tuple[str | None, str, str]] = [(root, "", "")]
        while stack:
            node, guide, below = stack.pop()
            if node is None:
                on_path.discard(guide)
                continue
            kids = children.get(node, [])
            if node in on_path:
                yield guide, node, "(cycle)"
                continue
            if node in expanded and kids:
                yield guide, node, "(*)"
                continue
            yield guide, node, ""
            expanded.add(node)
            if not kids:
                continue
            on_path.add(node)
            stack.append((None, node, ""))
            for i in range(len(kids) - 1, -1, -1):
                branch, under = ("└── ", "    ") if i == len(kids) - 1 else ("├── ", "│   ")
                stack.append((kids[i], below + branch, below + under))


def render_deps_human(closure: Closure, out: IO[str]) -> None:
    from rich.text import Text

    console = make_console(out)
    for guide, tool, mark in tree_lines(closure):
        line = Text(guide) + Text(visible(tool), style="bold" if not guide else "")
        if mark:
            line += Text(f" {mark}", style="red" if mark == "(cycle)" else "dim")
        console.print(line, overflow="ignore", crop=False, no_wrap=True)
    console.print(Text("Load order: ", style="bold") + Text(visible(" -> ".join(closure.order))))
    for tool, missing in closure.missing:
        console.print(Text(visible(f"! {tool} requires unknown tool {missing!r}"), style="red"))
    for a, b in closure.conflicts:
        note = f"! conflict: {a} and {b} are both in this closure but conflict"
        console.print(Text(visible(note), style="yellow"))
    for cycle in closure.cycles:
        console.print(Text(visible("! cycle: " + " -> ".join(cycle)), style="red"))


def _dot_id(name: str) -> str:
    return '"' + visible(name).replace("\\", "\\\\").replace('"', '\\"') + '"'


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
    return visible(name).replace('"', "#quot;")


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
