"""One module per rule family; each has `check(context)`, a generator of `Change`s.
`FAMILIES` is the order they run in (and so the order of the report within a class)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from toolsel.diff.context import DiffContext
from toolsel.diff.model import Change
from toolsel.diff.rules import graph, identity, lifecycle, loading, parameters, security, selection

FAMILIES: tuple[Callable[[DiffContext], Iterator[Change]], ...] = (
    identity.check,
    parameters.check,
    selection.check,
    security.check,
    lifecycle.check,
    graph.check,
    loading.check,
)
