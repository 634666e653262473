"""Which files a registry path names (kept free of the YAML parser, for the fast query path)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from toolsel.errors import RegistryError

REGISTRY_SUFFIXES = (".yaml", ".yml", ".json")
DEFAULT_MAX_FILE_BYTES = 100 * 1024 * 1024

PathLike = str | os.PathLike[str]


class FileList(list[Path]):
    """Registry files already expanded by `registry_files` (expanding again is a no-op, so
    a directory's bad entry is reported by the loader, not re-read as a path)."""


def registry_files(paths: PathLike | Iterable[PathLike] | None = None) -> list[Path]:
    """The registry files `paths` names; without paths, the project's registry (see
    `toolsel.config.default_registry_paths`)."""
    if isinstance(paths, FileList):
        return paths
    if paths is None:
        from toolsel.config import default_registry_paths

        paths = default_registry_paths()
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return expand_paths(paths)


def expand_paths(paths: Iterable[PathLike]) -> list[Path]:
    """Files (or pipes) named directly, plus every *.yaml/*.yml/*.json entry of named
    directories (sorted; hidden entries skipped). An entry that cannot be read (a dangling
    symlink, a directory named x.yaml, no permission) is kept, so the loader reports it
    with its reason instead of it being skipped silently."""
    from toolsel.inputs import InputProblem, check_path

    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        try:
            kind = check_path(path)
        except InputProblem as problem:
            if problem.missing:  # a plain typo: nothing to load, nothing to lint
                raise RegistryError(f"{path}: {problem}") from None
            files.append(path)  # a symlink loop, no permission: the loader says which
            continue
        if not kind.is_dir:
            files.append(path)
            continue
        found = sorted(
            p
            for p in path.iterdir()
            if p.suffix.lower() in REGISTRY_SUFFIXES and not p.name.startswith(".")
        )
        if not found:
            raise RegistryError(
                f"{path}: no registry files (*.yaml, *.yml, *.json) in this directory",
                hint="point --registry at a file or at a directory of registry files",
            )
        files.extend(found)
    if not files:
        raise RegistryError("no registry given", hint="pass -r/--registry PATH")
    return FileList(files)


def max_file_bytes() -> int:
    value = os.environ.get("TOOLSEL_MAX_FILE_BYTES", "")
    return int(value) if value.isdigit() else DEFAULT_MAX_FILE_BYTES


def read_registry_bytes(path: Path) -> bytes:
    """A registry file's bytes, bounded by `max_file_bytes` (checked before reading a regular
    file, while reading a pipe); raises `toolsel.inputs.InputProblem`."""
    from toolsel.inputs import read_bounded

    return read_bounded(path, max_file_bytes())
