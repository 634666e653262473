"""Which files a registry path names (kept free of the YAML parser, for the fast query path)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from toolsel.errors import RegistryError

REGISTRY_SUFFIXES = (".yaml", ".yml", ".json")

PathLike = str | os.PathLike[str]


def registry_files(paths: PathLike | Iterable[PathLike] | None = None) -> list[Path]:
    """The registry files `paths` names; without paths, the project's registry (see
    `toolsel.config.default_registry_paths`)."""
    if paths is None:
        from toolsel.config import default_registry_paths

        paths = default_registry_paths()
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return expand_paths(paths)


def expand_paths(paths: Iterable[PathLike]) -> list[Path]:
    """Files named directly, plus every *.yaml/*.yml/*.json in named directories (sorted)."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(
                p for p in path.iterdir() if p.is_file() and p.suffix.lower() in REGISTRY_SUFFIXES
            )
            if not found:
                raise RegistryError(
                    f"{path}: no registry files (*.yaml, *.yml, *.json) in this directory",
                    hint="point --registry at a file or at a directory of registry files",
                )
            files.extend(found)
        elif path.is_file():
            files.append(path)
        elif path.exists():
            raise RegistryError(f"{path}: not a regular file")
        else:
            raise RegistryError(f"{path}: no such file or directory")
    if not files:
        raise RegistryError("no registry given", hint="pass -r/--registry PATH")
    return files
