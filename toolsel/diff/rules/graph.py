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
            for names, change_class, state in ((added, R, "now"), (removed, S, "no longer")):
                if names:
                    yield context.change(
                        rule, change_class, f"{new.name!r} {state} {label} {', '.join(names)}",
                        old_tool=old, new_tool=new, field=field,
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
    """Each `requires` cycle once: a strongly connected component of more than one tool, or
    a tool that requires itself (`toolsel.graph`'s Tarjan, as `deps` and lint use)."""
    from toolsel.graph import requires_graph, strongly_connected

    graph = requires_graph(registry)
    return [
        sorted(component)
        for component in strongly_connected(graph)
        if len(component) > 1 or component[0] in graph.get(component[0], [])
    ]
