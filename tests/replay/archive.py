"""Generated many-file archives for tests: `benchmarks/gen_archive.py`, loaded by path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import benchmark

GENERATOR = benchmark("gen_archive")


def write_archive(out: Path, sessions: int, **options: Any) -> list[Path]:
    """An archive of `sessions` Claude Code sessions (resumed ones and sub-agent files
    included) under `out`; each file's mtime is its last timestamp."""
    files: list[Path] = GENERATOR.write_archive(out, sessions, **options)
    return files
