"""Diff two registries written inline: `found(old, new)` -> {"TD001 breaking a", ...}."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.conftest import tools_document
from toolsel.diff.engine import diff_registries
from toolsel.diff.model import Change
from toolsel.registry import load_registry


def load(text: str, tmp: Path, name: str) -> object:
    path = tmp / name
    path.write_text(tools_document(textwrap.dedent(text)), encoding="utf-8")
    return load_registry(path, use_cache=False)


def changes(old: str, new: str, tmp: Path) -> tuple[Change, ...]:
    return diff_registries(load(old, tmp, "old.yaml"), load(new, tmp, "new.yaml"))  # type: ignore[arg-type]


def found(old: str, new: str, tmp: Path) -> set[str]:
    return {f"{c.rule} {c.change_class.value} {c.tool}" for c in changes(old, new, tmp)}


def rows(old: str, new: str, tmp: Path) -> list[tuple[str, str, str, str, str]]:
    """Every change as (rule, class, tool, pointer, message), in the report's order."""
    return [
        (c.rule, c.change_class.value, c.tool, c.pointer, c.message) for c in changes(old, new, tmp)
    ]
