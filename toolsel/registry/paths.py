"""Which files a registry path names (kept free of the YAML parser, for the fast query path)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from toolsel.errors import RegistryError

REGISTRY_SUFFIXES = (".yaml", ".yml", ".json", ".jsonl")
DEFAULT_MAX_FILE_BYTES = 100 * 1024 * 1024

PathLike = str | os.PathLike[str]


class FileList(list[Path]):
    """Registry files already expanded by `registry_files` (expanding again is a no-op, so
    a directory's bad entry is reported by the loader, not re-read as a path).
    `namespaces`: the MCP server whose tools a file holds, when they are to be named as
    Claude Code names them, `mcp__<server>__<tool>`."""

    namespaces: dict[Path, str]

    def __init__(self, files: Iterable[Path] = (), namespaces: dict[Path, str] | None = None):
        super().__init__(files)
        self.namespaces = dict(namespaces or {})

    def namespaced(self) -> FileList:
        """Every file's tools namespaced by its server: the one `-r server=PATH` gave, or
        the file's name (`github.json` -> `mcp__github__...`)."""
        return FileList(self, {p: self.namespaces.get(p) or server_name(p.stem) for p in self})


SERVER = re.compile(r"[A-Za-z0-9_-]+")


def server_name(text: str) -> str:
    """A file stem as an MCP server name: characters Claude Code would not keep become '_'."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", text) or "server"


def registry_files(
    paths: PathLike | Iterable[PathLike] | None = None, *, namespace: bool = False
) -> FileList:
    """The registry files `paths` names; without paths, the project's registry (see
    `toolsel.config.default_registry_paths`). A path written `server=PATH` (and not an
    existing file of that name) holds the tools of MCP server `server`; with `namespace`,
    every file's tools are namespaced by their file's name."""
    if isinstance(paths, FileList):
        return paths.namespaced() if namespace else paths
    if paths is None:
        from toolsel.config import default_registry_paths

        paths = default_registry_paths()
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files = expand_paths(paths)
    return files.namespaced() if namespace else files


def expand_paths(paths: Iterable[PathLike]) -> FileList:
    """Files (or pipes) named directly, plus every *.yaml/*.yml/*.json entry of named
    directories (sorted; hidden entries skipped). An entry that cannot be read (a dangling
    symlink, a directory named x.yaml, no permission) is kept, so the loader reports it
    with its reason instead of it being skipped silently."""
    from toolsel.inputs import InputProblem, check_path

    files: list[Path] = []
    namespaces: dict[Path, str] = {}
    for raw in paths:
        path = Path(raw)
        server, _, rest = os.fspath(raw).partition("=")
        live = _live_text(rest) if rest and SERVER.fullmatch(server) else None
        live, name = (live, server) if live else (_live_text(raw), None)
        if os.fspath(raw).startswith("builtin:") and not path.exists():  # -r builtin:codex
            from toolsel.catalogs import catalog_path

            files.append(catalog_path(os.fspath(raw)))
            continue
        if live is not None and not path.exists():  # -r 'mcp:npx ...', -r https://host/mcp
            from toolsel.live import resolve_live

            _add(files, namespaces, resolve_live(live, name))
            continue
        if rest and SERVER.fullmatch(server) and not path.exists():
            path = Path(rest)  # -r github=tools/github.json
            namespaces[path] = server
            if path.is_dir():
                raise RegistryError(
                    f"{raw}: a server's tools come from one file, not a directory",
                    hint="write -r server=FILE for each server",
                )
        try:
            kind = check_path(path)
        except InputProblem as problem:
            if problem.missing:  # a plain typo: nothing to load, nothing to lint
                raise RegistryError(f"{path}: {problem}") from None
            files.append(path)  # a symlink loop, no permission: the loader says which
            continue
        if not kind.is_dir:
            if kind.is_file and _is_client_config(path):  # .mcp.json, ~/.codex/config.toml...
                from toolsel.live import resolve_config

                _add(files, namespaces, resolve_config(path))
                continue
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
    return FileList(files, namespaces)


def _live_text(raw: PathLike) -> str | None:
    from toolsel.live.sources import live_text

    return live_text(raw)


def _is_client_config(path: Path) -> bool:
    if path.suffix.lower() not in {".json", ".toml"}:
        return False
    from toolsel.live.sources import is_client_config

    return is_client_config(path)


def _add(
    files: list[Path], namespaces: dict[Path, str], found: list[tuple[Path, str | None]]
) -> None:
    for path, server in found:
        files.append(path)
        if server:
            namespaces[path] = server


def max_file_bytes() -> int:
    value = os.environ.get("TOOLSEL_MAX_FILE_BYTES", "")
    return int(value) if value.isdigit() else DEFAULT_MAX_FILE_BYTES


def read_registry_bytes(path: Path) -> bytes:
    """A registry file's bytes, bounded by `max_file_bytes` (checked before reading a regular
    file, while reading a pipe); raises `toolsel.inputs.InputProblem`."""
    from toolsel.inputs import read_bounded

    return read_bounded(path, max_file_bytes())
