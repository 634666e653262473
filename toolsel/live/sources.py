"""What a live registry source names: an MCP server started by a command (`mcp:CMD`), one
reached over streamable HTTP (`https://host/mcp`), or the servers of a client's config file
(`toolsel.clients` knows their shapes).

A `Server` keeps its entry as written: `${VAR}` and `${env:VAR}` are filled in only to
start or reach it (`Server.expanded`), never for display, and what is shown of it goes
through `toolsel.redact` (`Server.target`). Kept free of the MCP SDK: reading a source is
cheap, connecting is `toolsel.live.fetch`."""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from toolsel.errors import RegistryError
from toolsel.live.configfile import read_config


@dataclass(frozen=True, slots=True)
class Server:
    """One MCP server to list tools from, as written. `origin` is the client config that
    names it (None for a server given on the command line); `entry` is that config's text
    for the server, part of its identity."""

    name: str
    transport: str  # "stdio" or "http"
    command: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    url: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    origin: Path | None = None
    entry: str = ""
    client: str = ""
    disabled: bool = False
    problem: str | None = None  # why the entry cannot be started (left out, and said)
    env_from: tuple[str, ...] = ()  # variables passed on from toolsel's environment (Codex)
    token_from: str | None = None  # the variable holding its bearer token (Codex)

    @property
    def key(self) -> str:
        """Its name as Claude Code names a server's tools (`mcp__<key>__<tool>`) and as its
        snapshot file is named: characters other than letters, digits, `_` and `-` become
        `_` (a Continue server is called "Continue Docs Search")."""
        return _safe_name(self.name)

    @property
    def shown(self) -> str:
        """How messages name it: `server 'github' (.mcp.json)`."""
        where = f" ({self.origin})" if self.origin is not None else ""
        return f"server '{self.name}'{where}"

    @property
    def target(self) -> str:
        """What it runs or reaches, as written and with credentials masked."""
        from toolsel.redact import mask_argv, mask_url

        return (
            shlex.join(mask_argv(self.command)) if self.transport == "stdio" else mask_url(self.url)
        )

    def expanded(self) -> Server:
        """The server as its client starts it: variables filled in (see `_expander`)."""
        expand = _expander(self.client, self.origin)
        if self.transport == "http":
            headers = {k: expand(v) for k, v in self.headers}
            token = os.environ.get(self.token_from or "")
            if token:
                headers.setdefault("Authorization", f"Bearer {token}")
            return replace(self, url=expand(self.url), headers=tuple(sorted(headers.items())))
        env = {k: expand(v) for k, v in self.env}
        for name in self.env_from:
            if name in os.environ and name not in env:
                env[name] = os.environ[name]
        return replace(
            self,
            command=tuple(expand(word) for word in self.command),
            env=tuple(sorted(env.items())),
            cwd=expand(self.cwd) if self.cwd is not None else None,
        )

    def secrets(self) -> tuple[str, ...]:
        """The values toolsel hands the server (environment, headers): masked wherever
        the server's own words are shown (its stderr, its errors)."""
        started = self.expanded()
        return tuple(v for _, v in (*started.env, *started.headers))

    def identity(self) -> str:
        """The cache key: its name, what is started or reached, with its environment and
        headers, and the config entry it came from (a changed entry, or a changed variable it
        uses, is a different server). A hash: it never shows a value."""
        started = self.expanded()
        parts = [
            started.name,  # two entries may run one command: each is its own server
            started.transport,
            "\0".join(started.command),
            "\0".join(f"{k}={v}" for k, v in started.env),
            started.cwd or "",
            started.url,
            "\0".join(f"{k}:{v}" for k, v in started.headers),
            started.entry,
        ]
        import hashlib

        return hashlib.sha256("\x1e".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def shown_source(text: str) -> str:
    """A live `-r` value (`mcp:CMD`, a URL) as messages show it: credentials masked."""
    from toolsel.redact import mask_argv, mask_url

    if text.startswith("mcp:"):
        try:
            return "mcp:" + shlex.join(mask_argv(shlex.split(text[4:])))
        except ValueError:  # an unbalanced quote: its words as whitespace parts them
            return "mcp:" + " ".join(mask_argv(text[4:].split()))
    return mask_url(text)


def command_server(command: str, name: str | None, env: dict[str, str]) -> Server:
    """`CMD ARGS...` (what follows `mcp:`) as a stdio server; named `name`, else after its
    package or script."""
    try:
        argv = tuple(shlex.split(command))
    except ValueError as error:
        raise RegistryError(
            f"{shown_source('mcp:' + command)}: cannot split the command: {error}"
        ) from None
    if not argv:
        raise RegistryError(
            "mcp:: no command after 'mcp:'",
            hint="e.g. -r 'mcp:npx -y @modelcontextprotocol/server-github'",
        )
    return Server(
        name=name or _guess_name(argv),
        transport="stdio",
        command=argv,
        env=tuple(sorted(env.items())),
    )


def url_server(url: str, name: str | None, headers: dict[str, str]) -> Server:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if not parts.hostname:
        raise RegistryError(
            f"{shown_source(url)}: not a URL with a host", hint="e.g. -r https://host/mcp"
        )
    return Server(
        name=name or _safe_name(parts.hostname.split(".")[0]),
        transport="http",
        url=url,
        headers=tuple(sorted(headers.items())),
    )


#: Commands that run the server named by their first word (docker: by the last, the image).
_LAUNCHERS = frozenset(
    {
        "npx", "uvx", "bunx", "pnpx", "pipx", "python", "python3", "node", "bun", "deno",
        "docker", "uv", "npm", "pnpm", "yarn",
    }
)  # fmt: skip
#: A launcher's subcommand before the package it runs (`pipx run`, `pnpm dlx`, `uv tool run`).
_SUBCOMMANDS = frozenset({"run", "dlx", "exec", "x", "tool"})
#: A version or tag after a package's name: `pkg@1.2.3`, `@scope/pkg@latest`, `pkg==1.0`,
#: `pkg[extra]>=2`.
_VERSION = re.compile(r"(?<=.)@[\w.+~^<>=*-]+$|\[.*$|[=<>~]=.*$")


def _guess_name(argv: tuple[str, ...]) -> str:
    """`npx -y @modelcontextprotocol/server-github@1.2.3` -> github; `pipx run
    mcp-server-fetch` -> fetch; `python srv.py` -> srv."""
    launcher = Path(argv[0]).name.lower()
    words = [a for a in argv[1:] if not a.startswith("-")]
    if launcher.rstrip("0123456789.") in _LAUNCHERS and words:
        if launcher == "docker":
            last = words[-1]
        else:
            while len(words) > 1 and words[0] in _SUBCOMMANDS:
                words.pop(0)
            last = _VERSION.sub("", words[0])
    else:
        last = argv[0]
    stem = Path(last.split("@", 2)[-1] if last.startswith("@") else last).stem
    stem = re.sub(r"^(mcp-server-|server-|mcp-)|(-mcp-server|-server|-mcp)$", "", stem)
    return _safe_name(stem)


def _safe_name(text: str) -> str:
    from toolsel.registry.paths import server_name

    return server_name(text)


#: Files that are client configs by their name alone (a broken one is still reported as one).
_CONFIG_BY_NAME = frozenset(
    {".mcp.json", ".claude.json", "claude_desktop_config.json", "cline_mcp_settings.json"}
)


def is_client_config(path: Path) -> bool:
    """A file a client reads its MCP servers from (see `toolsel.clients` for the shapes):
    by its name, or by holding one client's servers table near its start (and no `tools`
    list)."""
    from toolsel.clients import CONFIG_SUFFIXES

    if path.name in _CONFIG_BY_NAME:
        return True
    if path.suffix.lower() not in CONFIG_SUFFIXES:
        return False
    head = _config_head(path)
    if head is None:
        return False  # a registry (most named files): not read twice
    try:
        data = read_config(path)
    except (OSError, RegistryError):
        return path.name in {"settings.json", "mcp.json", "config.toml"} and b"mcp" in head
    return isinstance(data, dict) and bool(_server_tables(data, path))


def not_a_registry_file(path: Path) -> str | None:
    """Why a file is another program's config or settings rather than a registry (see
    `toolsel.clients.not_a_registry`); None for a registry, and for anything that cannot be
    read (the registry loader says why). Only a file whose name or head says it may be one
    is parsed."""
    from toolsel.clients import SETTINGS_NAMES, not_a_registry
    from toolsel.registry.layout import locate_entries

    if not path.is_file():
        return None  # a pipe is not opened here: nobody may ever write to it
    if path.name not in SETTINGS_NAMES and _config_head(path) is None:
        return None
    try:
        data = read_config(path)
    except RegistryError:
        return None
    if locate_entries(data) is not None:
        return None
    return not_a_registry(path, data)


def _config_head(path: Path) -> bytes | None:
    """The file's first 64 KiB, when they name a client's servers table; else None."""
    from toolsel.clients import CONFIG_MARKERS

    try:
        with path.open("rb") as handle:
            head = handle.read(65536)
    except OSError:
        return None
    return head if any(key in head for key in CONFIG_MARKERS) else None


def config_servers(path: Path) -> list[Server]:
    """The servers a client config names, in its order; disabled ones are kept, marked."""
    from toolsel.clients import client_config, client_name

    data = read_config(path)
    if not isinstance(data, dict):
        raise RegistryError(f"{path}: not a client config (expected a JSON, TOML or YAML table)")
    tables = _server_tables(data, path)
    if not tables:
        raise RegistryError(
            f"{path}: no MCP servers in this file",
            hint="a client config lists them under mcpServers, servers, [mcp_servers.NAME], "
            "mcp, context_servers or extensions",
        )
    found = client_config(path, data)
    key = found.key if found is not None else "mcpServers"  # ~/.claude.json's projects
    client = client_name(path, data, key)
    return [_entry_server(name, entry, path, client) for name, entry in tables]


def _server_tables(data: dict[str, Any], path: Path) -> list[tuple[str, dict[str, Any]]]:
    """(name, entry) for each server, in the shape `toolsel.clients` finds it in, and
    ~/.claude.json's per-project `mcpServers` for the current directory (or, failing that,
    every project's)."""
    from toolsel.clients import client_config

    found = client_config(path, data)
    if found is not None:
        tables = list(found.servers)
        if path.name == ".claude.json":
            tables += _claude_projects(data)
        return tables
    if path.name == ".claude.json" or "projects" in data:
        return _claude_projects(data)
    return []


def _claude_projects(data: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    projects = data.get("projects")
    if not isinstance(projects, dict):
        return []
    here = str(Path.cwd())
    chosen = [projects[here]] if isinstance(projects.get(here), dict) else list(projects.values())
    found: dict[str, dict[str, Any]] = {}  # a server's first project wins
    for project in chosen:
        table = project.get("mcpServers") if isinstance(project, dict) else None
        for name, entry in (table or {}).items():
            if isinstance(entry, dict):
                found.setdefault(str(name), entry)
    return list(found.items())


def _entry_server(name: str, entry: dict[str, Any], origin: Path, client: str) -> Server:
    """A config entry as written: nothing is filled in here (see `Server.expanded`)."""
    text = json.dumps(entry, sort_keys=True, default=str)
    disabled = bool(entry.get("disabled")) or entry.get("enabled") is False
    env = {str(k): str(v) for k, v in (entry.get("env") or {}).items()}
    forwarded = entry.get("env_vars")  # Codex: names passed on from its own environment
    passed = (
        tuple(v for v in forwarded if isinstance(v, str)) if isinstance(forwarded, list) else ()
    )
    url = entry.get("url") or entry.get("httpUrl") or entry.get("serverUrl")
    headers = {
        str(k): str(v) for k, v in (entry.get("headers") or entry.get("http_headers") or {}).items()
    }
    token_env = entry.get("bearer_token_env_var")  # Codex
    # `name` as written: `Server.key` is the name its tools are namespaced by
    common: dict[str, Any] = {
        "name": name, "origin": origin, "entry": text, "client": client, "disabled": disabled,
        "env_from": passed, "token_from": token_env if isinstance(token_env, str) else None,
    }  # fmt: skip
    if isinstance(url, str) and url:
        server = Server(transport="http", url=url, headers=tuple(sorted(headers.items())), **common)
        return replace(server, problem=_unset_problem(server))
    command: Any = entry.get("command")
    args: list[Any] = list(entry.get("args") or [])
    if isinstance(command, list):  # some clients write the whole argv as `command`
        command, args = (command[0] if command else None), [*command[1:], *args]
    if not isinstance(command, str) or not command:
        inside = entry.get("type") in {"builtin", "platform"}  # Goose runs these itself
        return Server(
            transport="stdio", **common,
            problem="a built-in extension, run inside its client" if inside
            else "the entry has neither a `command` nor a `url`",
        )  # fmt: skip
    cwd = entry.get("cwd")
    argv = (command, *(str(a) for a in args if not isinstance(a, (dict, list))))
    server = Server(
        transport="stdio",
        command=argv,
        env=tuple(sorted(env.items())),
        cwd=cwd if isinstance(cwd, str) else None,
        **common,
    )
    return replace(server, problem=_unset_problem(server))


#: Claude Code's `${VAR}` and `${VAR:-default}` (in command, args, env, url and headers).
_CLAUDE_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
#: VS Code's and Cursor's `${env:NAME}`, `${input:ID}`, `${workspaceFolder}`, `${userHome}`.
_EDITOR_VARIABLE = re.compile(r"\$\{(?:(env|input):([^}]*)|(workspaceFolder|userHome))\}")


def _unset_problem(server: Server) -> str | None:
    """Claude Code starts no server one of whose variables is unset and has no default."""
    if server.client != "Claude Code":
        return None
    written = [*server.command, *(v for _, v in server.env), server.url, server.cwd or ""]
    written += [v for _, v in server.headers]
    unset = [
        match[1]
        for text in written
        for match in _CLAUDE_VARIABLE.finditer(text)
        if match[2] is None and match[1] not in os.environ
    ]
    if not unset:
        return None
    names = ", ".join(f"${{{name}}}" for name in dict.fromkeys(unset))
    return f"{names} not set and without a default (Claude Code would not start it)"


def _expander(client: str, origin: Path | None) -> Callable[[str], str]:
    """How the client fills in variables in an entry's strings, as a function. A Claude Code
    variable that is not set and has no default stays as written (`_unset_problem` says
    so); a VS Code `${input:ID}` (a prompt only the editor can show) stays as written."""
    if client == "Claude Code":

        def claude(match: re.Match[str]) -> str:
            value = os.environ.get(match[1], match[2])
            return match[0] if value is None else value

        return lambda text: _CLAUDE_VARIABLE.sub(claude, text) if "${" in text else text
    if client not in {"VS Code", "Cursor"} or origin is None:
        return lambda text: text
    folder = origin.parent
    workspace = folder.parent if folder.name in {".vscode", ".cursor"} else folder

    def editor(match: re.Match[str]) -> str:
        if match[1] == "env":
            return os.environ.get(match[2], "")
        if match[1] == "input":
            return match[0]
        return str(workspace if match[3] == "workspaceFolder" else Path.home())

    return lambda text: _EDITOR_VARIABLE.sub(editor, text) if "${" in text else text
