"""Configuration files: the project's (`toolsel.toml`, or `[tool.toolsel]` in the nearest
`pyproject.toml`) and the user's own (`config.toml` in the user's config folder).

A project's config is a file in a repository: it may name registries and servers, never
allow starting them (see `toolsel.sources.trust`). Its search starts in the current folder
and goes up, but never past the repository's root (the folder holding `.git`) nor into a
folder another user owns, as git's `safe.directory` check does: a config above the
checkout, or in a shared folder, is someone else's."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolsel.errors import ConfigError

CONFIG_NAMES = ("toolsel.toml", "pyproject.toml")
PROJECT_KEYS = ("registry", "lint", "serve", "connect", "allow-unknown")


@dataclass(frozen=True, slots=True)
class ProjectConfig:
    path: Path | None
    registry: tuple[Path, ...] = ()
    lint: dict[str, Any] = field(default_factory=dict)
    serve: dict[str, Any] = field(default_factory=dict)  # `toolsel serve` settings
    #: `connect = true`: honoured only once the file is trusted (`toolsel trust`)
    connect: bool = False
    allow_unknown: tuple[str, ...] = ()  # tools replay -r need not find in the registry
    skipped: Skipped | None = None  # a nearer config that was not read, and why


def _read_toml(path: Path) -> dict[str, Any]:
    """The whole file, as Python's TOML reader sees it: it parses every table, so another
    tool's table in pyproject.toml can be what cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:  # tomllib recurses once per nested array or inline table
        raise ConfigError(
            f"{path}: nested too deeply to read (arrays or inline tables inside one another, "
            "hundreds deep)",
            hint=_workaround(path),
        ) from None
    except ValueError:  # an integer too long for int(): tomllib lets that error through
        raise ConfigError(f"{path}:{_long_integer(text)}", hint=_workaround(path)) from None


def _workaround(path: Path) -> str:
    if path.name == "pyproject.toml":
        return (
            "fix the file, or keep toolsel's settings in a toolsel.toml beside it, which is "
            "read first; TOOLSEL_NO_CONFIG=1 reads no config"
        )
    return "fix the file; TOOLSEL_NO_CONFIG=1 reads no config"


def _long_integer(text: str) -> str:
    """Where the first integer Python will not convert starts, and what it is."""
    import re
    import sys

    limit = sys.get_int_max_str_digits()
    digits = re.compile(rf"[0-9](?:_?[0-9]){{{limit},}}")
    found = digits.search(text)
    if found is None:  # pragma: no cover - the only ValueError tomllib lets through
        return " a value Python cannot read"
    line = text.count("\n", 0, found.start()) + 1
    column = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
    count = sum(c.isdigit() for c in found.group())
    return (
        f"{line}:{column}: an integer of {count:,} digits, longer than the {limit:,} "
        "Python converts"
    )


def _toolsel_table(path: Path) -> dict[str, Any] | None:
    data = _read_toml(path)
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get("toolsel")
        return table if isinstance(table, dict) else None
    table = data.get("tool", {}).get("toolsel", data)
    return table if isinstance(table, dict) else {}


def find_config(start: Path | None = None, explicit: Path | None = None) -> ProjectConfig:
    """`explicit` if given, else the nearest toolsel.toml or pyproject.toml with
    [tool.toolsel], searched up to the repository's root (see the module's docstring)."""
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(f"{explicit}: config file not found")
        return _project_config(explicit, _toolsel_table(explicit) or {})
    if os.environ.get("TOOLSEL_NO_CONFIG"):
        return ProjectConfig(None)
    for folder in search_folders((start or Path.cwd()).resolve()):
        if isinstance(folder, Skipped):
            _say_once(str(folder))
            return ProjectConfig(None, skipped=folder)
        for name in CONFIG_NAMES:
            candidate = folder / name
            if candidate.is_file():
                table = _toolsel_table(candidate)
                if table is not None:
                    return _project_config(candidate, table)
    return ProjectConfig(None)


_SAID: set[str] = set()


def _say_once(note: str) -> None:
    """A warning on the "toolsel" logger (the command line prints it on stderr), once."""
    if note not in _SAID:
        _SAID.add(note)
        import logging

        logging.getLogger("toolsel").warning(note)


@dataclass(frozen=True, slots=True)
class Skipped:
    """A folder whose config is not read: another user owns it."""

    folder: Path
    owner: int

    def __str__(self) -> str:
        return (
            f"{self.folder}: not reading its toolsel config: the folder belongs to another "
            f"user (uid {self.owner}); name it with --config, or -r the registry"
        )


def search_folders(directory: Path) -> Iterator[Path | Skipped]:
    """The folders a config is searched in, nearest first: up to the first that holds
    `.git` (the repository's root), stopping before one another user owns (a `Skipped`,
    when it holds a config file)."""
    me = os.geteuid() if hasattr(os, "geteuid") else None
    for folder in (directory, *directory.parents):
        try:
            owner = folder.stat().st_uid
        except OSError:
            return
        if me is not None and owner != me:
            if any((folder / name).is_file() for name in CONFIG_NAMES):
                yield Skipped(folder, owner)
            return
        yield folder
        if (folder / ".git").exists():
            return


def _project_config(path: Path, table: dict[str, Any]) -> ProjectConfig:
    unknown = [key for key in table if key not in PROJECT_KEYS and key != "tool"]
    if unknown:  # in either file: a typo must not quietly read the default registry
        from toolsel.suggest import did_you_mean

        key = unknown[0]
        where = " in [tool.toolsel]" if path.name == "pyproject.toml" else ""
        raise ConfigError(f"{path}: unknown key {key!r}{where}{did_you_mean(key, PROJECT_KEYS)}")
    registry = _strings(path, table, "registry", "a path or a list of paths")
    lint = _typed(path, table, "lint", dict, "a table")
    serve = _typed(path, table, "serve", dict, "a table")
    connect = _typed(path, table, "connect", bool, "true or false")
    allow = _strings(path, table, "allow-unknown", "a tool name or glob, or a list of them")
    registry_paths = tuple(_registry_path(path.parent, r) for r in registry)
    return ProjectConfig(path, registry_paths, lint, serve, connect, tuple(allow))


def _typed(path: Path, table: dict[str, Any], key: str, kind: type, says: str) -> Any:
    """`table[key]` (default: the type's empty value), which must be of type `kind`."""
    value = table.get(key, kind())
    if not isinstance(value, kind):
        raise ConfigError(f"{path}: `{key}` must be {says}")
    return value


def _strings(path: Path, table: dict[str, Any], key: str, says: str) -> list[str]:
    """`table[key]`: a string, or a list of strings (default: none)."""
    value = table.get(key, [])
    value = [value] if isinstance(value, str) else value
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: `{key}` must be {says}")
    return value


def _registry_path(folder: Path, entry: str) -> Path:
    """A configured registry entry: a path relative to the config's folder (`NAME=PATH`'s
    too), or a live server (`mcp:CMD`, a URL, `NAME=mcp:CMD`) or a catalog (`builtin:NAME`)
    as written."""
    from toolsel.sources.grammar import parse

    if (folder / entry).exists():
        return folder / entry
    spec = parse(entry)
    if spec.kind == "server-file":
        return Path(f"{spec.server}={folder / spec.target}")
    return folder / entry if spec.kind == "path" else Path(entry)


@dataclass(frozen=True, slots=True)
class UserConfig:
    """The user's own settings (`config.toml` in `user_config_dir()`): outside any
    repository, so it may allow what a project's config may not."""

    path: Path
    connect: bool = False  # start the servers that configs name, in every project


USER_KEYS = ("connect",)


def user_config_dir() -> Path:
    """$TOOLSEL_CONFIG_DIR, else the platform's (~/.config/toolsel on Linux)."""
    override = os.environ.get("TOOLSEL_CONFIG_DIR")
    if override:
        return Path(override)
    from platformdirs import user_config_dir as platform_dir

    return Path(platform_dir("toolsel", appauthor=False))


def user_config() -> UserConfig:
    path = user_config_dir() / "config.toml"
    if not path.is_file():
        return UserConfig(path)
    table = _read_toml(path)
    unknown = [key for key in table if key not in USER_KEYS]
    if unknown:
        from toolsel.suggest import did_you_mean

        raise ConfigError(
            f"{path}: unknown key {unknown[0]!r}{did_you_mean(unknown[0], USER_KEYS)}"
        )
    return UserConfig(path, _typed(path, table, "connect", bool, "true or false"))
