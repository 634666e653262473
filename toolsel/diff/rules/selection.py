"""TD201-TD206: what the model reads to choose a tool (TD202, measured, is in `evidence`)."""

from __future__ import annotations

from collections.abc import Iterator

from toolsel.diff.canonical import canonical_text
from toolsel.diff.context import DiffContext
from toolsel.diff.model import Change, ChangeClass
from toolsel.registry.model import Tool

B, R, S = ChangeClass.BREAKING, ChangeClass.RISKY, ChangeClass.SAFE


def check(context: DiffContext) -> Iterator[Change]:
    for pair in context.matching.pairs:
        old, new = pair.old, pair.new
        if old.description != new.description:
            message = f"description of {new.name!r} changed; which prompts select it may shift"
            yield context.change(
                "TD201", R, message, old_tool=old, new_tool=new, field="description",
                before=old.description, after=new.description,
            )  # fmt: skip
        for field, change_class in (("search_hint", R), ("tags", R), ("display_name", S)):
            before, after = getattr(old, field), getattr(new, field)
            if before != after:
                why = "ranking input" if change_class is R else "display only"
                yield context.change(
                    "TD203", change_class, f"{field} of {new.name!r} changed ({why})",
                    old_tool=old, new_tool=new, field=field,
                    before=list(before) if isinstance(before, tuple) else before,
                    after=list(after) if isinstance(after, tuple) else after,
                )  # fmt: skip
        if old.category != new.category:
            message = f"category of {new.name!r} changed from {old.category!r} to {new.category!r}"
            yield context.change(
                "TD204", R, message, old_tool=old, new_tool=new, field="category",
                before=old.category, after=new.category,
            )  # fmt: skip
        yield from _poisoning(context, old, new)
    for tool in context.matching.added:
        yield from _poisoning(context, None, tool)


def markers(tool: Tool) -> set[str]:
    """Hidden characters and prompt-injection markers in what the model reads of a tool."""
    from toolsel.lint.rules.security import HIDDEN, INJECTION

    text = tool.description + "\n" + canonical_text(tool.parameters)
    found = {f"U+{ord(m.group()):04X}" for m in HIDDEN.finditer(tool.description)}
    found |= {f"U+{ord(m.group()):04X}" for m in HIDDEN.finditer(text) if not text.isascii()}
    found |= {m.group().strip().lower() for m in INJECTION.finditer(text)}
    return found


def _poisoning(context: DiffContext, old: Tool | None, new: Tool) -> Iterator[Change]:
    gained = markers(new) - (markers(old) if old is not None else set())
    if gained:
        shown = ", ".join(repr(m) for m in sorted(gained)[:5])
        message = f"{new.name!r} gained tool-poisoning markers: {shown} (a rug pull?)"
        yield context.change(
            "TD206", B, message, old_tool=old, new_tool=new, field="description",
            before=old.description if old else None, after=new.description,
        )  # fmt: skip
