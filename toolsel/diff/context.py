"""What every rule family is handed: both registries, the matching, and one way to build
a located, fingerprinted `Change`."""

from __future__ import annotations

from typing import Any

from toolsel.diff import RULES
from toolsel.diff.canonical import FINGERPRINT_DOMAIN, domain_hash
from toolsel.diff.match import Matching
from toolsel.diff.model import Change, ChangeClass, Side
from toolsel.registry.model import Registry, Tool
from toolsel.registry.pointer import join_pointer

#: Marks a side that has no value there (a key added or removed), in fingerprints.
ABSENT = {"$absent": True}


def fingerprint(
    rule: str, tool: str, pointer: str, before: Any, after: Any, subject: str = ""
) -> str:
    """Stable across reformatting and reordering: no file, line or list position in it.
    `subject` tells apart changes of one rule at one place (a `required` list's members)."""
    fields: list[Any] = [rule, tool, pointer, before, after]
    return domain_hash(FINGERPRINT_DOMAIN, [*fields, subject] if subject else fields)[:16]


class DiffContext:
    def __init__(self, old: Registry, new: Registry, matching: Matching) -> None:
        self.old = old
        self.new = new
        self.matching = matching

    def change(
        self,
        rule: str,
        change_class: ChangeClass,
        message: str,
        *,
        old_tool: Tool | None = None,
        new_tool: Tool | None = None,
        field: str = "name",
        tokens: tuple[str | int, ...] = (),
        before: Any = None,
        after: Any = None,
        hint: str | None = None,
        rule_for_fingerprint: str | None = None,
        subject: str = "",
    ) -> Change:
        """A change at `field`/`tokens` of a tool (either side may be missing)."""
        name = new_tool.name if new_tool is not None else old_tool.name if old_tool else ""
        pointer = join_pointer("/" + field, *tokens)
        old_side = self._side(self.old, old_tool, field, tokens, before)
        new_side = self._side(self.new, new_tool, field, tokens, after)
        renamed = old_tool is not None and new_tool is not None and old_tool.name != new_tool.name
        return Change(
            rule=rule,
            change_class=change_class,
            category=RULES[rule].category,
            tool=name,
            message=message,
            old=old_side,
            new=new_side,
            old_tool=old_tool.name if renamed and old_tool is not None else None,
            pointer=pointer,
            fingerprint=fingerprint(
                rule_for_fingerprint or rule,
                name,
                pointer,
                before if old_tool is not None else ABSENT,
                after if new_tool is not None else ABSENT,
                subject,
            ),
            hint=hint,
            anchor=self._anchor(old_tool) if new_tool is None and old_tool is not None else None,
        )

    def _anchor(self, tool: Tool) -> Side | None:
        """The list `tool` left, in NEW's version of its file (same path, or the path a
        git revision `REF:path` names), when NEW still has that file."""
        file = tool.source.file
        paths = [file, file.partition(":")[2]] if ":" in file else [file]
        for path in paths:
            if path and self.new.file(path) is not None:
                parent = tool.source.pointer.rpartition("/")[0]
                where = self.new.locate(path, parent)
                return Side(where.file, where.line, where.column, where.pointer)
        return None

    @staticmethod
    def _side(
        registry: Registry, tool: Tool | None, field: str, tokens: tuple[str | int, ...], value: Any
    ) -> Side | None:
        if tool is None:
            return None
        where = registry.locate_field(tool, field, *tokens)
        return Side(
            where.file, where.line, where.column, where.pointer, value, _not_on_disk(where.file)
        )


def _not_on_disk(file: str) -> bool:
    """A side read from git (`REF:path`) or a live server (`mcp:...`): no file to point at."""
    from pathlib import Path

    return ":" in file and not Path(file).exists()
