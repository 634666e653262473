"""Live MCP servers as registries: a server (`mcp:CMD ARGS`, `https://host/mcp`) or a
client config that names servers, as registry sources. Each server's `tools/list` is written
to a snapshot file in the cache directory, keyed by the server's identity, which every
command then reads as any registry file; a cached snapshot is used until `--refresh`.

Whether the commands a client config names may be started is `toolsel.sources.trust`'s to
decide, before anything here is called.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from toolsel.errors import RegistryError
from toolsel.live.timeouts import Timeouts

if TYPE_CHECKING:  # the client and the servers' model are imported where a server is reached
    from toolsel.live.fetch import Failed, Listed
    from toolsel.live.sources import Server

__all__ = [
    "LiveSettings", "Timeouts", "live_settings", "not_connected", "resolve_config",
    "resolve_live",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class LiveSettings:
    """How live sources are reached; set for a command by `live_settings`."""

    connect: bool = False  # start the servers a client config names
    refresh: bool = False  # fetch anew instead of using a cached list
    env: tuple[tuple[str, str], ...] = ()  # for servers given as `mcp:CMD`
    headers: tuple[tuple[str, str], ...] = ()  # for servers given as a URL
    timeouts: Timeouts = field(default_factory=Timeouts)
    report: Callable[[str], None] | None = None  # one line per server that failed
    #: what this command already fetched, by server identity (a snapshot, or the failure)
    fetched: dict[str, Path | Failed] = field(default_factory=dict, compare=False)


_current: contextvars.ContextVar[LiveSettings | None] = contextvars.ContextVar(
    "toolsel_live", default=None
)


@contextlib.contextmanager
def live_settings(settings: LiveSettings) -> Iterator[LiveSettings]:
    token = _current.set(settings)
    try:
        yield settings
    finally:
        _current.reset(token)


def current() -> LiveSettings:
    """The command's settings; outside `live_settings`, the defaults (a fresh memo)."""
    return _current.get() or LiveSettings()


def resolve_live(
    transport: str, target: str, name: str | None, *, credentials: bool
) -> list[tuple[Path, str | None]]:
    """A live server given as a registry source (`transport` stdio: `target` is its command
    line; http: its URL): its snapshot file, and the server name to namespace its tools by
    (the `name=` the user wrote, else none). The command's --env, and its --header and
    $TOOLSEL_MCP_TOKEN, go to it only with `credentials`."""
    from toolsel.live.fetch import Failed
    from toolsel.live.sources import command_server, url_server

    settings = current()
    if transport == "stdio":
        server = command_server(target, name, dict(settings.env) if credentials else {})
    else:
        server = url_server(target, name, dict(settings.headers) if credentials else {})
    [path] = _snapshots([server], settings)
    if isinstance(path, Failed):
        raise RegistryError(f"{server.shown}: {path.reason}")
    return [(path, name)]


def resolve_config(config: Path) -> list[tuple[Path, str | None]]:
    """A client config's servers as snapshot files, each namespaced by its server's name
    (`mcp__github__create_issue`). Disabled servers are left out; a server that fails is
    one line and the others still load. The caller has leave to start them."""
    from toolsel.live.sources import config_servers

    settings = current()
    servers = config_servers(config)
    enabled = [s for s in servers if not s.disabled and s.problem is None]
    for server in servers:
        if server.problem is not None and settings.report is not None:
            settings.report(f"{server.shown}: {server.problem}; left out")
    if not enabled:
        raise RegistryError(
            f"{config}: no MCP server in this file can be started (disabled or broken)"
        )
    paths = _snapshots(enabled, settings, report=True)
    found: list[tuple[Path, str | None]] = [
        (p, s.key) for p, s in zip(paths, enabled, strict=True) if isinstance(p, Path)
    ]
    if not found:
        raise RegistryError(f"{config}: no server listed its tools (see the lines above)")
    return found


def not_connected(config: Path, servers: list[Server]) -> str:
    """The servers a config names, as written, when they may not be started."""
    shown = "; ".join(
        f"{s.name}: {s.target or '(no command)'}{' [disabled]' if s.disabled else ''}"
        for s in servers
    )
    return f"{config}: {len(servers)} MCP server{'s' * (len(servers) != 1)}, not started: {shown}"


def snapshot_dir() -> Path:
    from toolsel.registry.cache import cache_dir

    return cache_dir() / "mcp"


def snapshot_path(server: Server) -> Path:
    return snapshot_dir() / f"{server.key}-{server.identity()[:20]}.json"


def _snapshots(
    servers: list[Server], settings: LiveSettings, *, report: bool = False
) -> list[Path | Failed]:
    """Each server's snapshot file: cached, unless `refresh`, else fetched now (all at the
    same time), or why it could not be listed (with `report`, also a line as it fails, so
    the other servers still load). Within one command (one `live_settings`), a
    server is fetched at most once, however often its source is expanded."""
    from toolsel.live.fetch import Failed, Listed, list_servers

    memo = settings.fetched
    paths = [snapshot_path(s) for s in servers]
    wanted = [
        i
        for i, (s, p) in enumerate(zip(servers, paths, strict=True))
        if s.identity() not in memo and (settings.refresh or not p.is_file())
    ]
    listed = list_servers([servers[i] for i in wanted], settings.timeouts)
    for index, result in zip(wanted, listed, strict=True):
        if isinstance(result, Listed):
            _write_snapshot(paths[index], result)
        elif report and settings.report is not None:
            settings.report(f"{result.server.shown}: {result.reason}")
        memo[servers[index].identity()] = result if isinstance(result, Failed) else paths[index]
    return [memo.get(s.identity(), p) for s, p in zip(servers, paths, strict=True)]


def _snapshot_meta(file: str) -> dict[str, object] | None:
    """What `_write_snapshot` recorded beside a snapshot file; None for any other file."""
    path = Path(file)
    if path.suffix != ".json" or path.parent != snapshot_dir():
        return None
    try:
        meta = json.loads(path.with_suffix(".meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) else None


def snapshot_label(file: str) -> str | None:
    """For a snapshot file, the server it holds as the user named it: `CONFIG#SERVER` for a
    client config's server, else what `-r` gave (`mcp:CMD`, the URL); None for any other file."""
    origin = snapshot_origin(file)
    if origin is not None:
        from toolsel.inputs import display_path

        return f"{display_path(origin[0])}#{origin[1]}"
    meta = _snapshot_meta(file)
    if meta is None:
        return None
    target = str(meta.get("target") or "")
    return target if target.startswith(("http://", "https://")) else f"mcp:{target}"


def snapshot_origin(file: str) -> tuple[str, str] | None:
    """For a snapshot file of a client config's server: (the config's path, the server)."""
    meta = _snapshot_meta(file)
    if meta is None or not meta.get("origin"):
        return None
    return str(meta["origin"]), str(meta["server"])


def _write_snapshot(path: Path, listed: Listed) -> None:
    from toolsel.atomic import replace_file

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    text = json.dumps({"tools": list(listed.tools)}, indent=2, ensure_ascii=False) + "\n"
    replace_file(path, text)
    meta = {
        "server": listed.server.name,
        "target": listed.server.target,  # as written, credentials masked
        "origin": os.fspath(listed.server.origin) if listed.server.origin else None,
        "server_info": listed.server_info,
        "tools": len(listed.tools),
    }
    replace_file(path.with_suffix(".meta.json"), json.dumps(meta, indent=2) + "\n")
