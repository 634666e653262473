"""Whole-file writes: never half a file, never an unexpected overwrite."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from toolsel.atomic import create_file, replace_file
from toolsel.errors import UsageError


def leftovers(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir() if path.name.endswith(".tmp"))


def test_create_file_writes_a_new_file_with_its_own_line_endings(tmp_path: Path) -> None:
    target = tmp_path / "tools.yaml"
    create_file(target, "a: 1\r\nb: 2\r\n")
    assert target.read_bytes() == b"a: 1\r\nb: 2\r\n"
    assert leftovers(tmp_path) == []


def test_create_file_refuses_an_existing_file_and_keeps_it(tmp_path: Path) -> None:
    target = tmp_path / "tools.yaml"
    target.write_text("mine\n")
    with pytest.raises(UsageError, match="already exists; refusing to overwrite it"):
        create_file(target, "theirs\n")
    assert target.read_text() == "mine\n"
    assert leftovers(tmp_path) == []


def test_replace_file_keeps_the_permission_bits(tmp_path: Path) -> None:
    target = tmp_path / "tools.yaml"
    target.write_text("old\n")
    target.chmod(0o640)
    replace_file(target, "new\n")
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_replace_file_writes_a_symlinks_target_and_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "real.yaml"
    real.write_text("old\n")
    link = tmp_path / "link.yaml"
    link.symlink_to(real)
    replace_file(link, "new\n")
    assert link.is_symlink()
    assert real.read_text() == "new\n"


def test_replace_file_writes_a_missing_file(tmp_path: Path) -> None:
    target = tmp_path / "fresh.yaml"
    replace_file(target, "x\n")
    assert target.read_text() == "x\n"


def test_an_unwritable_folder_is_one_usage_error_naming_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "tools.yaml"
    with pytest.raises(UsageError, match=r"tools\.yaml: cannot write"):
        replace_file(missing, "x\n")
    with pytest.raises(UsageError, match=r"tools\.yaml: cannot write"):
        create_file(missing, "x\n")
