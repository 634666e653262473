"""TD601-TD603: when a tool is loaded, and how replay attributes its calls."""

from __future__ import annotations

from collections.abc import Iterator

from toolsel.diff.context import DiffContext
from toolsel.diff.model import Change, ChangeClass

B, R, S = ChangeClass.BREAKING, ChangeClass.RISKY, ChangeClass.SAFE


def check(context: DiffContext) -> Iterator[Change]:
    for pair in context.matching.pairs:
        old, new = pair.old, pair.new
        if new.defer_loading and not old.defer_loading:
            message = f"{new.name!r} now loads deferred: hidden until a tool search finds it"
            yield context.change(
                "TD601",
                R,
                message,
                field="defer_loading",
                before=False,
                after=True,
                old_tool=old,
                new_tool=new,
            )
        elif old.defer_loading and not new.defer_loading:
            message = f"{new.name!r} now always loaded (context cost)"
            yield context.change(
                "TD602",
                S,
                message,
                field="defer_loading",
                before=True,
                after=False,
                old_tool=old,
                new_tool=new,
            )
        if old.always_include != new.always_include:
            state = "now" if new.always_include else "no longer"
            message = f"{new.name!r} is {state} always included (context cost)"
            yield context.change(
                "TD602",
                S,
                message,
                field="always_include",
                before=old.always_include,
                after=new.always_include,
                old_tool=old,
                new_tool=new,
            )
        if old.parent_task != new.parent_task:
            state = "now" if new.parent_task else "no longer"
            message = (
                f"{new.name!r} {state} launches a sub-agent (replay attributes calls differently)"
            )
            yield context.change(
                "TD603",
                R,
                message,
                field="parent_task",
                before=old.parent_task,
                after=new.parent_task,
                old_tool=old,
                new_tool=new,
            )
