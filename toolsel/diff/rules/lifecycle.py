"""TD401-TD406: deprecation and versions."""

from __future__ import annotations

from collections.abc import Iterator

from toolsel.diff.context import DiffContext
from toolsel.diff.model import Change, ChangeClass
from toolsel.registry.model import Tool

B, R, S = ChangeClass.BREAKING, ChangeClass.RISKY, ChangeClass.SAFE


def check(context: DiffContext) -> Iterator[Change]:
    for pair in context.matching.pairs:
        old, new = pair.old, pair.new
        if new.deprecated and not old.deprecated:
            yield from _deprecated(context, old, new)
        elif old.deprecated and not new.deprecated:
            message = f"{new.name!r} is no longer deprecated"
            yield context.change(
                "TD404", R, message, old_tool=old, new_tool=new, field="deprecated",
                before=True, after=False,
            )  # fmt: skip
        elif new.deprecated and old.deprecated_by != new.deprecated_by:
            yield from _deprecated(context, old, new)
        yield from _version(context, old, new)


def _deprecated(context: DiffContext, old: Tool, new: Tool) -> Iterator[Change]:
    successor = new.deprecated_by
    target = None if successor is None else context.new.get(successor)
    if successor is None:
        rule, change_class = "TD402", R
        message = f"{new.name!r} deprecated without a replacement (`deprecated_by`)"
    elif target is None or target.deprecated or target is new:
        why = (
            "does not exist"
            if target is None
            else "is itself deprecated"
            if target is not new
            else "is the tool itself"
        )
        rule, change_class = "TD403", B
        message = f"{new.name!r} deprecated in favour of {successor!r}, which {why}"
    else:
        rule, change_class = "TD401", S
        message = f"{new.name!r} deprecated; its successor is {successor!r}"
    yield context.change(
        rule, change_class, message, before=old.deprecated_by, after=successor,
        old_tool=old, new_tool=new, field="deprecated_by",
    )  # fmt: skip


def _version_key(text: str) -> tuple[int, ...] | None:
    parts = text.strip().lstrip("vV").split("-")[0].split("+")[0].split(".")
    return tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else None


def _version(context: DiffContext, old: Tool, new: Tool) -> Iterator[Change]:
    if old.version is None or new.version is None:
        return
    before, after = _version_key(old.version), _version_key(new.version)
    if before is not None and after is not None and after < before:
        message = f"version of {new.name!r} decreased from {old.version} to {new.version}"
        change_class = B
    elif old.version == new.version and _definition(old) != _definition(new):
        message = f"{new.name!r} changed but its version is still {new.version}"
        change_class = R
    else:
        return
    yield context.change(
        "TD406", change_class, message, old_tool=old, new_tool=new, field="version",
        before=old.version, after=new.version,
    )  # fmt: skip


def _definition(tool: Tool) -> tuple[object, ...]:
    return (tool.description, tool.parameters, tool.output_schema, tool.permission)
