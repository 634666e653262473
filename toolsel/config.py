"""Project configuration: `toolsel.toml` or `[tool.toolsel]` in the nearest `pyproject.toml`."""

from __future__ import annotations

import os
import tomllib
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
    connect: bool = False  # start the MCP servers that client configs name
    allow_unknown: tuple[str, ...] = ()  # tools replay -r need not find in the registry


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
    """`explicit` if given, else the nearest toolsel.toml or pyproject.toml with [tool.toolsel]."""
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(f"{explicit}: config file not found")
        return _project_config(explicit, _toolsel_table(explicit) or {})
    if os.environ.get("TOOLSEL_NO_CONFIG"):
        return ProjectConfig(None)
    directory = (start or Path.cwd()).resolve()
    for folder in (directory, *directory.parents):
        for name in CONFIG_NAMES:
            candidate = folder / name
            if candidate.is_file():
                table = _toolsel_table(candidate)
                if table is not None:
                    return _project_config(candidate, table)
    return ProjectConfig(None)


def _project_config(path: Path, table: dict[str, Any]) -> ProjectConfig:
    unknown = [key for key in table if key not in PROJECT_KEYS and key != "tool"]
    if unknown and path.name == "pyproject.toml":
        from toolsel.suggest import did_you_mean

        key = unknown[0]
        raise ConfigError(
            f"{path}: unknown key {key!r} in [tool.toolsel]{did_you_mean(key, PROJECT_KEYS)}"
        )
    registry = table.get("registry", ())
    if isinstance(registry, str):
        registry = [registry]
    if not isinstance(registry, (list, tuple)) or not all(isinstance(r, str) for r in registry):
        raise ConfigError(f"{path}: `registry` must be a path or a list of paths")
    lint = table.get("lint", {})
    if not isinstance(lint, dict):
        raise ConfigError(f"{path}: `lint` must be a table")
    serve = table.get("serve", {})
    if not isinstance(serve, dict):
        raise ConfigError(f"{path}: `serve` must be a table")
    connect = table.get("connect", False)
    if not isinstance(connect, bool):
        raise ConfigError(f"{path}: `connect` must be true or false")
    allow = table.get("allow-unknown", [])
    if isinstance(allow, str):
        allow = [allow]
    if not isinstance(allow, list) or not all(isinstance(a, str) for a in allow):
        raise ConfigError(f"{path}: `allow-unknown` must be a tool name or glob, or a list of them")
    return ProjectConfig(
        path,
        tuple(_registry_path(path.parent, r) for r in registry),
        lint,
        serve,
        connect,
        tuple(allow),
    )


def _checked_live(config: ProjectConfig) -> list[Path]:
    """The configured registry. A live server among its entries (`mcp:CMD`, a URL) is
    started or reached only with --connect or `connect = true`: a project's config is a
    file in a repository, and running a command because a cloned file names it needs the
    user's say, as a client config's servers do."""
    from toolsel.live import connect_allowed
    from toolsel.live.sources import live_text

    live = [str(p) for p in config.registry if live_text(p) or live_text(str(p).partition("=")[2])]
    if live and not connect_allowed(config.connect):
        raise ConfigError(
            f"{config.path}: `registry` names live MCP servers, not started: {'; '.join(live)}",
            hint="pass --connect (or set `connect = true`) once you trust them",
        )
    return list(config.registry)


def _registry_path(folder: Path, entry: str) -> Path:
    """A configured registry entry: a path relative to the config's folder, or a live
    server (`mcp:CMD`, a URL, `name=mcp:CMD`) or a catalog (`builtin:NAME`) as written."""
    from toolsel.live.sources import live_text

    _, _, rest = entry.partition("=")
    if entry.startswith("builtin:") or live_text(entry) is not None:
        return Path(entry)
    if rest and live_text(rest) is not None:
        return Path(entry)
    return folder / entry


#: What a checking command without `-r`, in a project without a registry, says.
NO_REGISTRY = "no registry given; pass PATH or set `[tool.toolsel] registry`"


def bundled_registry() -> Path:
    """The example registry shipped in the wheel (or, in a source checkout, `registries/`)."""
    package = Path(__file__).resolve().parent
    for candidate in (package / "examples", package.parent / "registries"):
        if candidate.is_dir():
            return candidate
    raise ConfigError("no bundled example registry found; pass -r/--registry PATH")


def project_registry_paths(start: Path | None = None) -> list[Path] | None:
    """The project's own registry: `[tool.toolsel] registry`, else ./registries/; None when
    the project has neither (the bundled example is never a project's registry)."""
    config = find_config(start)
    if config.registry:
        return _checked_live(config)
    local = (start or Path.cwd()) / "registries"
    return [local] if local.is_dir() else None


def default_registry_paths(start: Path | None = None) -> list[Path]:
    """The configured registry, else ./registries/, else the bundled example registry."""
    config = find_config(start)
    if config.registry:
        return _checked_live(config)
    local = (start or Path.cwd()) / "registries"
    if local.is_dir():
        return [local]
    return [bundled_registry()]
