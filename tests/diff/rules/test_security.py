"""TD301-TD303: permission raised (breaking), lowered (risky), or a privileged tool added."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.diff.helpers import changes, rows


def tool(name: str, permission: str | None = None) -> str:
    extra = f"  permission: {permission}\n" if permission else ""
    return f"- name: {name}\n  description: Works on {name}.\n" + extra


@pytest.mark.parametrize(
    ("before", "after"),
    [("read", "write"), ("write", "admin"), ("admin", "dangerous"), ("read", "dangerous")],
)
def test_raised_and_lowered(tmp_path: Path, before: str, after: str) -> None:
    raised = changes(tool("a", before), tool("a", after), tmp_path)
    assert [(c.rule, c.change_class.value, c.tool, c.pointer, c.message) for c in raised] == [
        ("TD301", "breaking", "a", "/permission",
         f"permission of 'a' raised from {before} to {after}; approvals given for it no longer hold"),
    ]  # fmt: skip
    assert (raised[0].old.value, raised[0].new.value) == (before, after)  # type: ignore[union-attr]
    lowered = changes(tool("a", after), tool("a", before), tmp_path)
    assert [(c.rule, c.change_class.value, c.tool, c.pointer, c.message) for c in lowered] == [
        ("TD302", "risky", "a", "/permission",
         f"permission of 'a' lowered from {after} to {before}; a gate may now let it run unapproved"),
    ]  # fmt: skip
    assert (lowered[0].old.value, lowered[0].new.value) == (after, before)  # type: ignore[union-attr]


def test_an_unchanged_permission_is_no_change(tmp_path: Path) -> None:
    assert rows(tool("a", "write"), tool("a", "write"), tmp_path) == []
    assert rows(tool("a"), tool("a", "read"), tmp_path) == []


def test_an_added_tool_that_needs_write_or_more_is_risky(tmp_path: Path) -> None:
    new = (
        tool("a")
        + tool("r", "read")
        + tool("w", "write")
        + tool("x", "admin")
        + tool("z", "dangerous")
    )
    found = changes(tool("a"), new, tmp_path)
    assert [(c.rule, c.change_class.value, c.tool, c.pointer, c.message) for c in found] == [
        ("TD303", "risky", "w", "/permission", "added tool 'w' needs permission write; review it"),
        ("TD303", "risky", "x", "/permission", "added tool 'x' needs permission admin; review it"),
        ("TD303", "risky", "z", "/permission", "added tool 'z' needs permission dangerous; review it"),
        ("TD008", "safe", "r", "/name", "tool 'r' added"),
        ("TD008", "safe", "w", "/name", "tool 'w' added"),
        ("TD008", "safe", "x", "/name", "tool 'x' added"),
        ("TD008", "safe", "z", "/name", "tool 'z' added"),
    ]  # fmt: skip
    assert (found[0].old, found[0].new.value) == (None, "write")  # type: ignore[union-attr]
