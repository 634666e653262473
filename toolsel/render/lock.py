"""`toolsel lock --check` output: each field of each tool that differs from the lock, with
the classes `toolsel diff` gives it."""

from __future__ import annotations

from typing import IO

from toolsel.lock import LockCheck
from toolsel.render.escape import visible


def render_check(result: LockCheck, lock_name: str, out: IO[str]) -> None:
    lines = [f"{name}: not in {lock_name}: a new (or renamed) tool; review it, then run `toolsel lock`" for name in result.new_tools]  # fmt: skip
    lines += [
        f"{name}: in {lock_name} but no longer in the registry" for name in result.removed_tools
    ]
    for field in result.fields:
        where = f"{field.file}:{field.line}:{field.column}"
        lines.append(f"{where}: {field.change_class.value} {field.tool}: {field.group} `{field.shown}` changed")  # fmt: skip
        for change in field.changes:
            side = change.new or change.old
            at = f"{side.file}:{side.line}:{side.column}: " if side is not None else ""
            at = "" if at == f"{where}: " else at
            lines.append(f"    {at}{change.rule} {change.change_class.value} {change.message}")
    out.writelines(visible(line) + "\n" for line in lines)
    differ = len(result.new_tools) + len(result.removed_tools) + len(result.changed_tools)
    if differ:
        out.write(
            f"\n{differ} tool{'s differ' if differ != 1 else ' differs'} from {visible(lock_name)}; after review, run `toolsel lock`.\n"
        )
    else:
        out.write(f"Every tool matches {visible(lock_name)}.\n")
