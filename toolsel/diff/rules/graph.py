"""TD501-TD503: `requires` and `conflicts` between tools."""

from __future__ import annotations

from collections.abc import Iterator

from toolsel.diff.context import DiffContext
from toolsel.diff.model import Change, ChangeClass
from toolsel.registry.model import Registry

B, R, S = ChangeClass.BREAKING, ChangeClass.RISKY, ChangeClass.SAFE


def check(context: DiffContext) -> Iterator[Change]:
    for pair in context.matching.pairs:
        old, new = pair.old, pair.new
        for field, label in (("requires", "requires"), ("conflicts", "conflicts with")):
            before, after = getattr(old, field), getattr(new, field)
            if before == after:
                continue
            rule = "TD501" if field == "requires" else "TD503"
            added = [n for n in after if n not in before]
            removed = [n for n in before if n not in after]
            if added:
                message = f"{new.name!r} now {label} {', '.join(added)}"
                yield context.change(
                    rule, R, message, old_tool=old, new_tool=new, field=field,
                    before=list(before), after=list(after),
                )  # fmt: skip
            if removed:
                message = f"{new.name!r} no longer {label} {', '.join(removed)}"
                yield context.change(
                    rule, S, message, old_tool=old, new_tool=new, field=field,
                    before=list(before), after=list(after),
                )  # fmt: skip
    old_cycles = {frozenset(c) for c in cycles(context.old)}
    for cycle in cycles(context.new):
        if frozenset(cycle) in old_cycles:
            continue
        tool = context.new.get(cycle[0])
        message = f"requires cycle introduced: {' -> '.join([*cycle, cycle[0]])}"
        yield context.change(
            "TD502", B, message, new_tool=tool, field="requires", after=list(cycle)
        )


def cycles(registry: Registry) -> list[list[str]]:
    """Each `requires` cycle once (Tarjan's strongly connected components, iteratively)."""
    graph = {t.name: [r for r in t.requires if r in registry] for t in registry.tools}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            edges = graph.get(node, [])
            if i < len(edges):
                work.append((node, i + 1))
                nxt = edges[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, []):
                    found.append(sorted(component))
    return found
