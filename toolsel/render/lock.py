"""`toolsel lock --check` output: each tool that differs from the lock, with its classes."""

from __future__ import annotations

from typing import IO

from toolsel.lock import LockCheck
from toolsel.render.escape import visible


def render_check(result: LockCheck, lock_name: str, out: IO[str]) -> None:
    for name in result.new_tools:
        out.write(
            visible(
                f"{name}: not in {lock_name}: a new (or renamed) tool; review it, then run `toolsel lock`"
            )
            + "\n"
        )
    for name in result.removed_tools:
        out.write(visible(f"{name}: in {lock_name} but no longer in the registry") + "\n")
    for change in result.changes:
        side = change.new or change.old
        where = f"{side.file}:{side.line}:{side.column}: " if side else ""
        out.write(
            visible(f"{where}{change.rule} {change.change_class.value} {change.message}") + "\n"
        )
    for name in result.changed_tools:
        if not any(c.tool == name for c in result.changes):
            out.write(visible(f"{name}: differs from {lock_name}") + "\n")
    differ = len(result.new_tools) + len(result.removed_tools) + len(result.changed_tools)
    if differ:
        out.write(
            f"\n{differ} tool{'s differ' if differ != 1 else ' differs'} from {visible(lock_name)}; after review, run `toolsel lock`.\n"
        )
    else:
        out.write(f"Every tool matches {visible(lock_name)}.\n")
