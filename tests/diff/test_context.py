"""Each change located on both sides (a git revision marked as such), anchored in NEW's file
when its tool left it, and fingerprinted by what changed, never by where it is written."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.diff.helpers import changes
from toolsel.diff.context import ABSENT, fingerprint
from toolsel.diff.engine import diff_registries
from toolsel.diff.model import Category, ChangeClass, Side
from toolsel.diff.sources import load_side
from toolsel.registry import load_registry


def test_a_fingerprint_is_16_hex_digits_of_every_field() -> None:
    base = fingerprint("TD301", "a", "/permission", "read", "write")
    assert len(base) == 16 and int(base, 16) >= 0
    variants = {
        fingerprint("TD302", "a", "/permission", "read", "write"),
        fingerprint("TD301", "b", "/permission", "read", "write"),
        fingerprint("TD301", "a", "/name", "read", "write"),
        fingerprint("TD301", "a", "/permission", "admin", "write"),
        fingerprint("TD301", "a", "/permission", "read", "admin"),
        fingerprint("TD301", "a", "/permission", "read", "write", "x"),
        fingerprint("TD301", "a", "/permission", "read", ABSENT),
    }
    assert len(variants) == 7 and base not in variants
    assert fingerprint("TD301", "a", "/permission", "read", "write", "") == base
    assert fingerprint("R", "t", "/p", {"b": 1, "a": 2}, None) == fingerprint(
        "R", "t", "/p", {"a": 2, "b": 1}, None
    )


def test_sides_values_and_the_fingerprint_of_a_change(tmp_path: Path) -> None:
    old = "- name: a\n  description: Reads a.\n  permission: read\n"
    new = "- name: b\n  description: Reads b.\n- name: a\n  description: Reads a.\n  permission: write\n"
    (raised,) = [c for c in changes(old, new, tmp_path) if c.rule == "TD301"]
    assert raised.old == Side(str(tmp_path / "old.yaml"), 4, 17, "/tools/0/permission", "read")
    assert raised.new == Side(str(tmp_path / "new.yaml"), 6, 17, "/tools/1/permission", "write")
    assert (raised.tool, raised.old_tool, raised.pointer, raised.anchor, raised.hint) == (
        "a", None, "/permission", None, None
    )  # fmt: skip
    assert raised.fingerprint == fingerprint("TD301", "a", "/permission", "read", "write")
    assert (raised.category, raised.change_class, raised.evidence) == (
        Category.SECURITY,
        ChangeClass.BREAKING,
        (),
    )


def test_a_renamed_tool_names_its_old_name(tmp_path: Path) -> None:
    old = "- name: a\n  description: Reads.\n"
    new = "- name: c\n  description: Reads.\n  aliases: [a]\n"
    (renamed,) = changes(old, new, tmp_path)
    assert (renamed.rule, renamed.tool, renamed.old_tool, renamed.pointer) == (
        "TD003",
        "c",
        "a",
        "/name",
    )
    assert renamed.old == Side(str(tmp_path / "old.yaml"), 2, 11, "/tools/0/name", "a")
    assert renamed.new == Side(str(tmp_path / "new.yaml"), 2, 11, "/tools/0/name", "c")
    assert renamed.fingerprint == fingerprint("TD003", "c", "/name", "a", "c")


def test_an_added_or_removed_tool_has_one_side_and_absent_on_the_other(tmp_path: Path) -> None:
    old = "- name: a\n  description: Reads a.\n"
    new = "- name: b\n  description: Writes b.\n  permission: write\n"
    by_rule = {c.rule: c for c in changes(old, new, tmp_path)}
    removed, added, privileged = by_rule["TD001"], by_rule["TD008"], by_rule["TD303"]
    assert (removed.tool, removed.old_tool, removed.new) == ("a", None, None)
    assert removed.old == Side(str(tmp_path / "old.yaml"), 2, 11, "/tools/0/name", "a")
    assert removed.fingerprint == fingerprint("TD001", "a", "/name", "a", ABSENT)
    assert removed.anchor is None  # NEW has no file old.yaml
    assert (added.tool, added.old, added.anchor) == ("b", None, None)
    assert added.new == Side(str(tmp_path / "new.yaml"), 2, 11, "/tools/0/name", "b")
    assert added.fingerprint == fingerprint("TD008", "b", "/name", ABSENT, "b")
    assert privileged.fingerprint == fingerprint("TD303", "b", "/permission", ABSENT, "write")
    assert privileged.new == Side(str(tmp_path / "new.yaml"), 4, 17, "/tools/0/permission", "write")


def test_a_removed_tool_is_anchored_at_the_list_it_left_in_new(tmp_path: Path) -> None:
    path = tmp_path / "reg.yaml"
    path.write_text(
        "tools:\n  - name: a\n    description: Reads a.\n  - name: b\n    description: Reads b.\n"
    )
    old = load_registry(path, use_cache=False)
    path.write_text("# a comment\ntools:\n  - name: b\n    description: Reads all of b.\n")
    new = load_registry(path, use_cache=False)
    removed, described = diff_registries(old, new)
    assert (removed.rule, described.rule) == ("TD001", "TD201")
    assert removed.old == Side(str(path), 2, 11, "/tools/0/name", "a")
    assert removed.anchor == Side(str(path), 3, 3, "/tools")
    assert described.anchor is None  # a tool still in NEW is reported at its own place


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main",
         *args],
        cwd=cwd, check=True, capture_output=True,
    )  # fmt: skip


def test_a_side_read_from_git_is_a_revision_and_anchors_in_the_file_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    git(tmp_path, "init", "-q")
    Path("reg.yaml").write_text(
        "tools:\n  - name: a\n    description: Reads a.\n  - name: b\n    description: Reads b.\n"
    )
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "old")
    Path("reg.yaml").write_text("tools:\n\n  - name: b\n    description: Reads b, fast.\n")
    Path("x:y.yaml").write_text("tools:\n  - name: b\n    description: Reads b, fast.\n")
    old = load_side(["main:reg.yaml"], no_cache=True)
    removed, described = diff_registries(old, load_side(["reg.yaml"], no_cache=True))
    assert removed.old == Side("main:reg.yaml", 2, 11, "/tools/0/name", "a", revision=True)
    assert removed.anchor == Side("reg.yaml", 3, 3, "/tools")
    assert (removed.reported_at, described.rule) == (removed.anchor, "TD201")
    assert described.old == Side(
        "main:reg.yaml", 5, 18, "/tools/1/description", "Reads b.", revision=True
    )
    assert described.new == Side("reg.yaml", 4, 18, "/tools/0/description", "Reads b, fast.")
    # a file on disk whose name has a colon is no revision; NEW without the file: no anchor
    removed, _ = diff_registries(old, load_side(["x:y.yaml"], no_cache=True))
    assert removed.anchor is None
    described, added = diff_registries(load_side(["x:y.yaml"], no_cache=True), old)
    assert (described.rule, added.rule) == ("TD201", "TD008")
    assert described.old == Side("x:y.yaml", 3, 18, "/tools/0/description", "Reads b, fast.")


def test_a_removed_tool_of_a_revision_whose_path_has_a_colon_is_anchored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    git(tmp_path, "init", "-q")
    Path("a:b.yaml").write_text(
        "tools:\n  - name: a\n    description: Reads a.\n  - name: b\n    description: Reads b.\n"
    )
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "old")
    Path("a:b.yaml").write_text("tools:\n  - name: b\n    description: Reads b.\n")
    old = load_side(["main:a:b.yaml"], no_cache=True)
    (removed,) = diff_registries(old, load_side(["a:b.yaml"], no_cache=True))
    assert removed.old == Side("main:a:b.yaml", 2, 11, "/tools/0/name", "a", revision=True)
    assert removed.anchor == Side("a:b.yaml", 2, 3, "/tools")
