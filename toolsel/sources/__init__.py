"""Where a registry comes from: the `-r` grammar, the project's config, live servers, and
who may start them.

Sources sit above `toolsel.registry`, which reads files into a model and never starts a
process. A source is a file or folder, a catalog (`builtin:codex`), a live MCP server
(`mcp:CMD`, a URL, `NAME=` either), a client config that names servers (`.mcp.json`,
`~/.codex/config.toml`...), or, given none, the project's `registry` (`toolsel.toml` or
`[tool.toolsel]`), else ./registries/. `registry_files` turns them into the files to
read; a live server becomes the snapshot file of its `tools/list`.

Who may start a server or receive a credential is decided here, once
(`toolsel.sources.trust`): a file in a repository names servers, it never allows them."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from toolsel.errors import ConfigError, RegistryError, UsageError
from toolsel.registry.paths import REGISTRY_SUFFIXES, FileList, PathLike

if TYPE_CHECKING:
    from toolsel.registry.model import Registry
    from toolsel.sources.project import ProjectConfig

#: What a checking command without `-r`, in a project without a registry, says.
NO_REGISTRY = "no registry given; pass PATH or set `[tool.toolsel] registry`"


class ConfiguredPaths(list[Path]):
    """Registry sources that a config file names (not typed by the user): `named_by` is
    that file, whose trust decides whether its servers may start."""

    named_by: Path

    def __init__(self, paths: Iterable[Path], named_by: Path) -> None:
        super().__init__(paths)
        self.named_by = named_by


def registry_files(
    paths: PathLike | Iterable[PathLike] | None = None, *, namespace: bool = False
) -> FileList:
    """The registry files `paths` names (see the module's docstring); without paths, the
    project's registry, else the bundled example. With `namespace`, every file's tools are
    named as Claude Code names an MCP server's, after the file's server or name."""
    if not isinstance(paths, FileList):
        paths = default_registry_paths() if paths is None else paths
        paths = [paths] if isinstance(paths, (str, os.PathLike)) else paths
        named_by = paths.named_by if isinstance(paths, ConfiguredPaths) else None
        paths = expand(paths, named_by=named_by)
    return paths.namespaced() if namespace else paths


def load_registry(
    paths: PathLike | Iterable[PathLike] | None = None,
    *,
    use_cache: bool = True,
    strict: bool = True,
) -> Registry:
    """`toolsel.registry.load_registry` over the files `paths` names, any source kind."""
    from toolsel.registry.loader import load_registry as load

    return load(registry_files(paths), use_cache=use_cache, strict=strict)


def expand(paths: Iterable[PathLike], *, named_by: Path | None = None) -> FileList:
    """Each source as files: catalogs and live servers resolved, client configs' servers
    listed (with leave: see `toolsel.sources.trust`), the rest as
    `toolsel.registry.paths.expand_files` reads them."""
    from toolsel.registry.paths import expand_files
    from toolsel.sources.grammar import parse

    files: list[Path] = []
    namespaces: dict[Path, str] = {}
    labels: dict[Path, str] = {}
    plain: list[PathLike] = []

    def flush() -> None:
        if plain:
            found = expand_files(plain, keep=_registry_in_folder)
            files.extend(found)
            namespaces.update(found.namespaces)
            plain.clear()

    for raw in paths:
        spec = parse(raw)
        if spec.kind == "builtin":
            from toolsel.catalogs import catalog_path

            plain.append(catalog_path(spec.text))
        elif spec.kind == "live":
            flush()
            _add(files, namespaces, _live(spec.target, spec.server, named_by), labels)
        elif spec.kind == "path" and _is_client_config(Path(spec.target)):
            flush()
            _add(files, namespaces, _client_config(Path(spec.target)), labels)
        else:
            plain.append(raw)
    flush()
    if not files:
        raise RegistryError("no registry given", hint="pass -r/--registry PATH")
    return FileList(files, namespaces, labels)


def _live(text: str, server: str | None, named_by: Path | None) -> list[tuple[Path, str | None]]:
    from toolsel.live import resolve_live
    from toolsel.sources.grammar import parse
    from toolsel.sources.trust import connect_grant, credentials_allowed, refusal_hint

    if connect_grant(named_by) is None:
        assert named_by is not None
        from toolsel.live.sources import shown_source

        raise ConfigError(
            f"{_shown(named_by)}: `registry` names a live MCP server, not started: "
            f"{shown_source(text)}",
            hint=refusal_hint(named_by),
        )
    spec = parse(text)
    target = spec.command if spec.transport == "stdio" else spec.target
    return resolve_live(spec.transport, target, server, credentials=credentials_allowed(named_by))


def _client_config(path: Path) -> list[tuple[Path, str | None]]:
    """A client config's servers, started only with leave: the file names commands."""
    from toolsel.live import not_connected, resolve_config
    from toolsel.live.sources import config_servers
    from toolsel.sources.trust import connect_grant, refusal_hint

    if connect_grant(path) is None:
        raise UsageError(not_connected(path, config_servers(path)), hint=refusal_hint(path))
    return resolve_config(path)


def _is_client_config(path: Path) -> bool:
    from toolsel.clients import CONFIG_SUFFIXES

    if path.suffix.lower() not in CONFIG_SUFFIXES or not path.is_file():
        return False
    from toolsel.live.sources import is_client_config

    return is_client_config(path)


def _registry_in_folder(path: Path) -> bool:
    """A folder's file is read as a registry unless it is another program's (a client
    config, an agent's settings, a package.json): that one is skipped, and said."""
    from toolsel.live.sources import not_a_registry_file

    why = not_a_registry_file(path)
    if why is None:
        return True
    import logging

    logging.getLogger("toolsel").warning("%s: skipped, not a registry: %s", _shown(path), why)
    return False


def _add(
    files: list[Path],
    namespaces: dict[Path, str],
    found: list[tuple[Path, str | None]],
    labels: dict[Path, str],
) -> None:
    """A live server's snapshot files, each shown as the server the user named."""
    from toolsel.live import snapshot_label

    for path, server in found:
        files.append(path)
        if server:
            namespaces[path] = server
        label = snapshot_label(str(path))
        if label is not None:
            labels[path] = label


def _shown(path: Path) -> str:
    from toolsel.inputs import display_path

    return display_path(path)


def bundled_registry() -> Path:
    """The example registry shipped in the wheel (or, in a source checkout, `registries/`)."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "examples", package.parent / "registries"):
        if candidate.is_dir():
            return candidate
    raise ConfigError("no bundled example registry found; pass -r/--registry PATH")


def configured(config: ProjectConfig) -> ConfiguredPaths | None:
    """The registry a project's config names, marked as named by that file."""
    if not config.registry or config.path is None:
        return None
    return ConfiguredPaths(config.registry, config.path)


def project_registry_paths(start: Path | None = None) -> list[Path] | None:
    """The project's own registry: `[tool.toolsel] registry`, else ./registries/; None when
    the project has neither (the bundled example is never a project's registry)."""
    from toolsel.sources.project import find_config

    found = configured(find_config(start))
    if found is not None:
        return found
    local = (start or Path.cwd()) / "registries"
    return [local] if local.is_dir() else None


def default_registry_paths(start: Path | None = None) -> list[Path]:
    """The configured registry, else ./registries/, else the bundled example registry."""
    return project_registry_paths(start) or [bundled_registry()]


__all__ = [
    "NO_REGISTRY", "REGISTRY_SUFFIXES", "ConfiguredPaths", "bundled_registry",
    "default_registry_paths", "expand", "load_registry", "project_registry_paths", "registry_files",
]  # fmt: skip
