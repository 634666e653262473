"""Which files a registry path names (kept free of the YAML parser, for the fast query path)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from toolsel.errors import RegistryError

REGISTRY_SUFFIXES = (".yaml", ".yml", ".json", ".jsonl")
DEFAULT_MAX_FILE_BYTES = 100 * 1024 * 1024

PathLike = str | os.PathLike[str]


class FileList(list[Path]):
    """Registry files already expanded (expanding again is a no-op, so
    a directory's bad entry is reported by the loader, not re-read as a path).
    `namespaces`: the MCP server whose tools a file holds, when they are to be named as
    Claude Code names them, `mcp__<server>__<tool>`. `labels`: how findings name a file
    that is not the user's own (a live server's list: `.mcp.json#github`)."""

    namespaces: dict[Path, str]
    labels: dict[Path, str]

    def __init__(
        self,
        files: Iterable[Path] = (),
        namespaces: dict[Path, str] | None = None,
        labels: dict[Path, str] | None = None,
    ) -> None:
        super().__init__(files)
        self.namespaces = dict(namespaces or {})
        self.labels = dict(labels or {})

    def namespaced(self) -> FileList:
        """Every file's tools namespaced by its server: the one `-r server=PATH` gave, or
        the file's name (`github.json` -> `mcp__github__...`)."""
        names = {p: self.namespaces.get(p) or server_name(p.stem) for p in self}
        return FileList(self, names, self.labels)


SERVER = re.compile(r"[A-Za-z0-9_-]+")


def server_name(text: str) -> str:
    """A file stem as an MCP server name: characters Claude Code would not keep become '_'."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", text) or "server"


def expand_files(
    paths: PathLike | Iterable[PathLike], *, keep: Callable[[Path], bool] | None = None
) -> FileList:
    """Files (or pipes) named directly, plus every *.yaml/*.yml/*.json entry of named
    directories (sorted; hidden entries skipped). A path written `server=PATH` (and not an
    existing file of that name) holds the tools of MCP server `server`. An entry that
    cannot be read (a dangling symlink, a directory named x.yaml, no permission) is kept,
    so the loader reports it with its reason instead of it being skipped silently.

    Plain paths only: catalogs, live servers, client configs and the project's default
    registry are `toolsel.sources.registry_files`'s to resolve. `keep` says which of a
    directory's files to read (the others were found to be something else)."""
    from toolsel.inputs import InputProblem, check_path

    if isinstance(paths, FileList):
        return paths
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files: list[Path] = []
    namespaces: dict[Path, str] = {}
    for raw in paths:
        path = Path(raw)
        server, _, rest = os.fspath(raw).partition("=")
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
            files.append(path)
            continue
        found = sorted(
            p
            for p in path.iterdir()
            if p.suffix.lower() in REGISTRY_SUFFIXES and not p.name.startswith(".")
        )
        found = [p for p in found if keep(p)] if keep is not None else found
        if not found:
            raise RegistryError(
                f"{path}: no registry files (*.yaml, *.yml, *.json) in this directory",
                hint="point --registry at a file or at a directory of registry files",
            )
        files.extend(found)
    if not files:
        raise RegistryError("no registry given", hint="pass -r/--registry PATH")
    return FileList(files, namespaces)


def max_file_bytes() -> int:
    value = os.environ.get("TOOLSEL_MAX_FILE_BYTES", "")
    return int(value) if value.isdigit() else DEFAULT_MAX_FILE_BYTES


def read_registry_bytes(path: Path) -> bytes:
    """A registry file's bytes, bounded by `max_file_bytes` (checked before reading a regular
    file, while reading a pipe); raises `toolsel.inputs.InputProblem`."""
    from toolsel.inputs import read_bounded

    return read_bounded(path, max_file_bytes())
