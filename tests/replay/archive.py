"""Generated many-file archives for tests: `benchmarks/gen_archive.py`, loaded by path."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

from tests.conftest import ROOT


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "gen_archive", ROOT / "benchmarks" / "gen_archive.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GENERATOR = _generator()


def write_archive(out: Path, sessions: int, **options: Any) -> list[Path]:
    """An archive of `sessions` Claude Code sessions (resumed ones and sub-agent files
    included) under `out`; each file's mtime is its last timestamp."""
    files: list[Path] = GENERATOR.write_archive(out, sessions, **options)
    return files
