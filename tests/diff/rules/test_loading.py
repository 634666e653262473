"""TD601-TD603: when a tool is loaded, and how replay attributes its calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.diff.helpers import changes

A = "- name: a\n  description: Reads a.\n"


def one(old: str, new: str, tmp: Path) -> tuple[str, str, str, str, object, object]:
    (change,) = changes(A + old, A + new, tmp)
    assert change.tool == "a" and change.old is not None and change.new is not None
    return (change.rule, change.change_class.value, change.pointer, change.message,
            change.old.value, change.new.value)  # fmt: skip


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("", "  defer_loading: true\n",
         ("TD601", "risky", "/defer_loading", "'a' now loads deferred: hidden until a tool search finds it",
          False, True)),
        ("  defer_loading: true\n", "  defer_loading: false\n",
         ("TD602", "safe", "/defer_loading", "'a' now always loaded (context cost)", True, False)),
        ("", "  always_include: true\n",
         ("TD602", "safe", "/always_include", "'a' is now always included (context cost)", False, True)),
        ("  always_include: true\n", "",
         ("TD602", "safe", "/always_include", "'a' is no longer always included (context cost)",
          True, False)),
        ("", "  parent_task: true\n",
         ("TD603", "risky", "/parent_task",
          "'a' now launches a sub-agent (replay attributes calls differently)", False, True)),
        ("  parent_task: true\n", "",
         ("TD603", "risky", "/parent_task",
          "'a' no longer launches a sub-agent (replay attributes calls differently)", True, False)),
    ],
)  # fmt: skip
def test_each_loading_change(
    tmp_path: Path, old: str, new: str, expected: tuple[object, ...]
) -> None:
    assert one(old, new, tmp_path) == expected


def test_unchanged_loading_is_no_change(tmp_path: Path) -> None:
    same = A + "  defer_loading: true\n  always_include: true\n  parent_task: true\n"
    assert changes(same, same, tmp_path) == ()
    assert changes(A + "  defer_loading: false\n", A, tmp_path) == ()
