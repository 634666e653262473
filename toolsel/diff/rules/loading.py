"""TD601-TD603: when a tool is loaded, and how replay attributes its calls."""

from __future__ import annotations

from collections.abc import Iterator

from toolsel.diff.context import DiffContext
from toolsel.diff.model import Change, ChangeClass
from toolsel.registry.model import Tool

B, R, S = ChangeClass.BREAKING, ChangeClass.RISKY, ChangeClass.SAFE


def check(context: DiffContext) -> Iterator[Change]:
    for pair in context.matching.pairs:
        old, new = pair.old, pair.new
        if new.defer_loading and not old.defer_loading:
            message = f"{new.name!r} now loads deferred: hidden until a tool search finds it"
            yield _flag_change(context, "TD601", R, message, "defer_loading", old, new)
        elif old.defer_loading and not new.defer_loading:
            message = f"{new.name!r} now always loaded (context cost)"
            yield _flag_change(context, "TD602", S, message, "defer_loading", old, new)
        if old.always_include != new.always_include:
            state = "now" if new.always_include else "no longer"
            message = f"{new.name!r} is {state} always included (context cost)"
            yield _flag_change(context, "TD602", S, message, "always_include", old, new)
        if old.parent_task != new.parent_task:
            state = "now" if new.parent_task else "no longer"
            message = (
                f"{new.name!r} {state} launches a sub-agent (replay attributes calls differently)"
            )
            yield _flag_change(context, "TD603", R, message, "parent_task", old, new)


def _flag_change(
    context: DiffContext,
    rule: str,
    change_class: ChangeClass,
    message: str,
    field: str,
    old: Tool,
    new: Tool,
) -> Change:
    """A change of one of the tool's boolean fields, from its old value to its new one."""
    return context.change(
        rule, change_class, message, field=field, old_tool=old, new_tool=new,
        before=getattr(old, field), after=getattr(new, field),
    )  # fmt: skip
