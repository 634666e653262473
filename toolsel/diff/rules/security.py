"""TD301-TD303: permission is security, and asymmetric: raising it invalidates approvals,
lowering it may let a write tool be auto-approved."""

from __future__ import annotations

from collections.abc import Iterator

from toolsel.diff.context import DiffContext
from toolsel.diff.model import Change, ChangeClass
from toolsel.registry.model import Permission


def check(context: DiffContext) -> Iterator[Change]:
    for pair in context.matching.pairs:
        old, new = pair.old, pair.new
        if old.permission.level < new.permission.level:
            message = (
                f"permission of {new.name!r} raised from {old.permission} to {new.permission}; "
                "approvals given for it no longer hold"
            )
            yield context.change(
                "TD301", ChangeClass.BREAKING, message, old_tool=old, new_tool=new,
                field="permission", before=old.permission.value, after=new.permission.value,
            )  # fmt: skip
        elif old.permission.level > new.permission.level:
            message = (
                f"permission of {new.name!r} lowered from {old.permission} to {new.permission}; "
                "a gate may now let it run unapproved"
            )
            yield context.change(
                "TD302", ChangeClass.RISKY, message, old_tool=old, new_tool=new,
                field="permission", before=old.permission.value, after=new.permission.value,
            )  # fmt: skip
    for tool in context.matching.added:
        if tool.permission.level >= Permission.WRITE.level:
            message = f"added tool {tool.name!r} needs permission {tool.permission}; review it"
            yield context.change(
                "TD303", ChangeClass.RISKY, message, new_tool=tool, field="permission",
                after=tool.permission.value,
            )  # fmt: skip
