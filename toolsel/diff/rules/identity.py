"""TD001-TD009: names are the wire identity (calls, approvals, transcripts name tools)."""

from __future__ import annotations

from collections.abc import Iterator

from toolsel.diff.context import DiffContext
from toolsel.diff.match import PairKind
from toolsel.diff.model import Change, ChangeClass

B, R, S = ChangeClass.BREAKING, ChangeClass.RISKY, ChangeClass.SAFE


def check(context: DiffContext) -> Iterator[Change]:
    yield from _removed(context)
    yield from _renamed(context)
    yield from _aliases(context)
    for tool in context.matching.added:
        yield context.change(
            "TD008", S, f"tool {tool.name!r} added", new_tool=tool, after=tool.name
        )
    yield from _reordered(context)


def _removed(context: DiffContext) -> Iterator[Change]:
    aliased = {alias: t for t in context.new.tools for alias in t.aliases}
    for tool in context.matching.removed:
        successor = tool.deprecated_by
        rebound = aliased.get(tool.name)
        if rebound is not None:
            message = (
                f"tool {tool.name!r} removed, and its name is now an alias of {rebound.name!r}; "
                "old calls silently reach a different tool"
            )
            yield context.change(
                "TD006", B, message, old_tool=tool, new_tool=rebound, field="aliases",
                before=tool.name, after=rebound.name,
            )  # fmt: skip
        elif tool.deprecated:
            note = f"; its successor is {successor!r}" if successor else ""
            message = (
                f"tool {tool.name!r} removed (it was deprecated){note}; old calls to it now fail"
            )
            yield context.change("TD002", R, message, old_tool=tool, before=tool.name)
        elif successor and successor in context.new:
            message = (
                f"tool {tool.name!r} renamed to {successor!r} without keeping {tool.name!r} in "
                "its aliases; old calls, approvals and transcripts name the old tool"
            )
            yield context.change(
                "TD004", B, message, old_tool=tool, before=tool.name,
                hint=f"add {tool.name!r} to {successor!r}'s aliases",
            )  # fmt: skip
        else:
            hinted = context.matching.hints.get(tool.name)
            hint = (
                f"looks renamed to {hinted!r} (same parameters, similar description); keep "
                f"{tool.name!r} in its aliases to make the rename safe"
                if hinted
                else None
            )
            message = f"tool {tool.name!r} removed; calls to it now fail as unknown"
            yield context.change("TD001", B, message, old_tool=tool, before=tool.name, hint=hint)


def _renamed(context: DiffContext) -> Iterator[Change]:
    for pair in context.matching.pairs:
        old, new = pair.old, pair.new
        if pair.kind is PairKind.ALIAS:
            message = f"tool {old.name!r} renamed to {new.name!r}, old name kept as an alias"
            yield context.change(
                "TD003", S, message, old_tool=old, new_tool=new, before=old.name, after=new.name
            )
        elif pair.kind is PairKind.CASE:
            message = (
                f"tool {old.name!r} renamed to {new.name!r} (case only); tool names are "
                "case-sensitive, old calls fail"
            )
            yield context.change(
                "TD007", B, message, old_tool=old, new_tool=new, before=old.name, after=new.name
            )


def _aliases(context: DiffContext) -> Iterator[Change]:
    for pair in context.matching.pairs:
        kept = set(pair.new.aliases) | {pair.new.name}
        for alias in pair.old.aliases:
            other = context.new.get(alias)
            if other is not None and other is not pair.new:
                message = (
                    f"alias {alias!r} of {pair.old.name!r} now names another tool; old calls "
                    "through it reach a different tool"
                )
                yield context.change(
                    "TD006", B, message, old_tool=pair.old, new_tool=other,
                    field="aliases", before=alias, after=other.name,
                )  # fmt: skip
            elif alias not in kept:
                message = f"alias {alias!r} of {pair.new.name!r} removed; calls by that name fail"
                yield context.change(
                    "TD005", B, message, old_tool=pair.old, new_tool=pair.new,
                    field="aliases", before=alias, after=None,
                )  # fmt: skip


def _reordered(context: DiffContext) -> Iterator[Change]:
    old_order = [p.old.name for p in context.matching.pairs]
    position = {p.new.name: i for i, p in enumerate(context.matching.pairs)}
    new_index = {t.name: i for i, t in enumerate(context.new.tools)}
    new_order = sorted(position, key=lambda name: new_index.get(name, 0))
    paired = {p.new.name: p.old.name for p in context.matching.pairs}
    if [paired[n] for n in new_order] == old_order:
        return
    moved = sum(1 for a, b in zip(old_order, (paired[n] for n in new_order), strict=True) if a != b)
    message = (
        f"{moved} tools listed in a different order; a cached prompt prefix is invalidated "
        "(one more uncached request)"
    )
    first = next(n for n, o in zip(new_order, old_order, strict=True) if paired[n] != o)
    pair = next(p for p in context.matching.pairs if p.new.name == first)
    yield context.change(
        "TD009", S, message, old_tool=pair.old, new_tool=pair.new,
        before=old_order.index(pair.old.name), after=new_order.index(first),
    )  # fmt: skip
