"""The `requires`/`conflicts` graph: closures in load order, cycles, conflicts.

Every algorithm here is iterative, so a 10,000-long `requires` chain never meets Python's
recursion limit.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from toolsel.registry.model import Registry

#: Strongly connected components up to this size get one cycle reported per edge;
#: larger ones fall back to one cycle per depth-first back edge (linear time).
EXHAUSTIVE_SCC_LIMIT = 200
N = TypeVar("N", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Closure:
    """The transitive `requires` of some tools, prerequisites first."""

    roots: tuple[str, ...]
    order: tuple[str, ...]
    edges: tuple[tuple[str, str], ...]  # (tool, required tool), within the closure
    missing: tuple[tuple[str, str], ...]  # (tool, unknown required name)
    conflicts: tuple[tuple[str, str], ...]  # pairs inside the closure that conflict
    cycles: tuple[tuple[str, ...], ...]


def requires_graph(registry: Registry) -> dict[str, list[str]]:
    graph: dict[str, list[str]] = {}
    for tool in registry.tools:
        graph.setdefault(tool.name, list(dict.fromkeys(tool.requires)))
    return graph


def conflict_graph(registry: Registry) -> dict[str, set[str]]:
    """Symmetric conflicts: if either side declares it, the pair conflicts."""
    graph: dict[str, set[str]] = {}
    for tool in registry.tools:
        for other in tool.conflicts:
            graph.setdefault(tool.name, set()).add(other)
            graph.setdefault(other, set()).add(tool.name)
    return graph


def closure(registry: Registry, roots: Sequence[str]) -> Closure:
    graph = requires_graph(registry)
    order = load_order(graph, roots)
    members = set(order)
    edges = tuple((a, b) for a in order for b in graph.get(a, ()) if b in members)
    missing = tuple((a, b) for a in order for b in graph.get(a, ()) if b not in graph)
    sub = {name: [b for b in graph.get(name, ()) if b in members] for name in order}
    return Closure(
        roots=tuple(roots),
        order=tuple(order),
        edges=edges,
        missing=missing,
        conflicts=tuple(conflicting_pairs(registry, order)),
        cycles=tuple(find_cycles(sub)),
    )


def load_order(graph: Mapping[str, Sequence[str]], roots: Iterable[str]) -> list[str]:
    """Depth-first post-order from `roots`: each tool after everything it requires.

    Unknown names are skipped; a cycle is cut where it closes (see `find_cycles`).
    """
    order: list[str] = []
    done: set[str] = set()
    for root in roots:
        if root in done or root not in graph:
            continue
        on_path = {root}
        stack: list[tuple[str, int]] = [(root, 0)]
        while stack:
            node, index = stack[-1]
            children = graph.get(node, ())
            if index < len(children):
                stack[-1] = (node, index + 1)
                child = children[index]
                if child in graph and child not in done and child not in on_path:
                    on_path.add(child)
                    stack.append((child, 0))
                continue
            stack.pop()
            on_path.discard(node)
            done.add(node)
            order.append(node)
    return order


def conflicting_pairs(registry: Registry, names: Iterable[str]) -> list[tuple[str, str]]:
    return conflicts_within(conflict_graph(registry), names)


def conflicts_within(
    conflicts: Mapping[str, set[str]], names: Iterable[str]
) -> list[tuple[str, str]]:
    """Conflicting pairs among `names`, each once, in the order the names are given."""
    position = {name: index for index, name in enumerate(dict.fromkeys(names))}
    pairs: list[tuple[str, str]] = []
    for name, index in position.items():
        for other in sorted(conflicts.get(name, ())):
            if position.get(other, -1) > index:
                pairs.append((name, other))
    return pairs


def find_cycles(graph: Mapping[str, Sequence[str]]) -> list[tuple[str, ...]]:
    """Cycles as full paths that end where they start, e.g. ('a', 'b', 'a').

    Every edge that lies on a cycle appears in at least one reported cycle; self-requires
    are cycles of one edge. Each cycle is reported once, rotated to start at its
    smallest name, and the list is sorted.
    """
    seen: set[tuple[str, ...]] = set()
    for component in strongly_connected(graph):
        members = set(component)
        if len(component) <= EXHAUSTIVE_SCC_LIMIT:  # one node: its self-requires, if any
            for source in component:
                for target in graph.get(source, ()):
                    if target in members:
                        path = _shortest_path(graph, target, source, members)
                        if path:
                            seen.add(_canonical([source, *path]))
        else:
            for cycle in _back_edge_cycles(graph, component[0], members):
                seen.add(_canonical(cycle))
    return sorted(seen, key=lambda c: (len(c), c))


def _canonical(cycle: list[str]) -> tuple[str, ...]:
    """Rotate a cycle (given without its repeated end) to start at its smallest node."""
    if cycle[0] == cycle[-1] and len(cycle) > 1:
        cycle = cycle[:-1]
    start = min(range(len(cycle)), key=cycle.__getitem__)
    rotated = cycle[start:] + cycle[:start]
    return (*rotated, rotated[0])


def _shortest_path(
    graph: Mapping[str, Sequence[str]], start: str, goal: str, members: set[str]
) -> list[str] | None:
    """Breadth-first path start..goal inside `members`, without repeating the goal."""
    previous: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            path: list[str] = []
            current: str | None = node
            while current is not None:
                path.append(current)
                current = previous[current]
            return path[::-1]
        for child in graph.get(node, ()):
            if child in members and child not in previous:
                previous[child] = node
                queue.append(child)
    return None


def _back_edge_cycles(
    graph: Mapping[str, Sequence[str]], root: str, members: set[str]
) -> list[list[str]]:
    cycles: list[list[str]] = []
    path: list[str] = [root]
    position = {root: 0}
    done: set[str] = set()
    stack = [iter(graph.get(root, ()))]  # each node of `path`: its children not yet seen
    while stack:
        for child in stack[-1]:
            if child not in members:
                continue
            if child in position:
                cycles.append(path[position[child] :])
            elif child not in done:
                position[child] = len(path)
                path.append(child)
                stack.append(iter(graph.get(child, ())))
                break
        else:
            stack.pop()
            done.add(path[-1])
            del position[path.pop()]
    return cycles


def strongly_connected(graph: Mapping[str, Sequence[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iteratively. Components come out in reverse topological order."""
    return list(components(graph, lambda node: [c for c in graph.get(node, ()) if c in graph]))


def components(roots: Iterable[N], successors: Callable[[N], Iterable[N]]) -> Iterator[list[N]]:
    """The strongly connected components reachable from `roots` (Tarjan's algorithm,
    iterative and lazy), each as soon as it is complete: in reverse topological order.
    `successors` is asked once per node, when the walk first reaches it."""
    index: dict[N, int] = {}
    low: dict[N, int] = {}
    on_stack: set[N] = set()
    stack: list[N] = []

    def enter(node: N) -> tuple[N, Iterator[N]]:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        return node, iter(successors(node))

    for root in roots:
        if root in index:
            continue
        work = [enter(root)]
        while work:
            node, pending = work[-1]
            for child in pending:
                if child not in index:
                    work.append(enter(child))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component: list[N] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    yield component
