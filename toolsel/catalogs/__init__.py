"""Versioned catalogs of agent clients' built-in tools (Claude Code, Codex CLI, Gemini CLI):
toolsel registry files, each naming its sources in its header (see docs/catalogs.md).

`-r builtin:claude-code` reads one as a registry; `replay -r` names the catalog when a
transcript calls one of its tools that the registry lacks."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from toolsel.errors import RegistryError

if TYPE_CHECKING:
    from toolsel.registry.model import Registry
    from toolsel.registry.permission import Permission

PREFIX = "builtin:"
FOLDER = Path(__file__).parent

#: The catalog of the client that writes each transcript format.
FORMAT_CATALOGS = {
    "claude-code": "claude-code",
    "stream-json": "claude-code",
    "codex-rollout": "codex",
    "codex-exec": "codex",
    "gemini-cli": "gemini-cli",
    "gemini-stream-json": "gemini-cli",
}


#: How messages name each catalog's client.
CLIENTS = {"claude-code": "Claude Code", "codex": "Codex CLI", "gemini-cli": "Gemini CLI"}


def client_name(catalog: str) -> str:
    return CLIENTS.get(catalog, catalog)


def available() -> tuple[str, ...]:
    """The catalogs' names (the package's own files: listed once a folder)."""
    return _listed(FOLDER)


@functools.cache
def _listed(folder: Path) -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in folder.glob("*.yaml")))


def catalog_path(text: str) -> Path:
    """`builtin:NAME` as its catalog file."""
    name = text[len(PREFIX) :].strip()
    path = FOLDER / f"{name}.yaml"
    if name and "/" not in name and path.is_file():
        return path
    from toolsel.suggest import did_you_mean

    names = available()
    raise RegistryError(
        f"{text}: no such built-in catalog{did_you_mean(name, names)}",
        hint="catalogs: " + ", ".join(f"{PREFIX}{n}" for n in names),
    )


def catalog(name: str) -> Registry:
    """Catalog `name` as a registry: each file loaded once, by path (like `_listed`, a test
    that points FOLDER elsewhere sees that folder's files)."""
    return _loaded(FOLDER / f"{name}.yaml")


@functools.cache
def _loaded(path: Path) -> Registry:
    from toolsel.registry import load_registry

    return load_registry(path)


def builtin_of(tool: str, transcript_format: str | None) -> str | None:
    """The catalog holding `tool`: the one of the client that wrote the transcript first,
    else any; None when no catalog has it."""
    preferred = FORMAT_CATALOGS.get(transcript_format or "")
    order = ([preferred] if preferred else []) + [n for n in available() if n != preferred]
    for name in order:
        if name in available() and catalog(name).resolve(tool) is not None:
            return name
    return None


def builtin_permissions() -> dict[str, Permission]:
    """Each built-in tool name (and alias) with its permission, over every catalog; a name
    two catalogs give different permissions is left out (its kind is unknown)."""
    found: dict[str, Permission] = {}
    clashing: set[str] = set()
    for name in available():
        for tool in catalog(name).tools:
            for alias in (tool.name, *tool.aliases):
                if found.setdefault(alias, tool.permission) is not tool.permission:
                    clashing.add(alias)
    return {name: p for name, p in found.items() if name not in clashing}


def builtin_aliases() -> dict[str, str]:
    """Each alias of a built-in tool (an older name: Claude Code's `MultiEdit` is now
    `Edit`) with the name it stands for."""
    return {
        alias: tool.name
        for name in available()
        for tool in catalog(name).tools
        for alias in tool.aliases
    }
