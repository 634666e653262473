"""Agent clients' config and settings files: which client a file belongs to, the MCP servers
it names (each client's shape is one entry of `_SHAPES`), and why a settings file is not a
registry. Detection reads the data and the path together and never guesses: a key of the
right name holding something else is not taken for that client's config.

Entries come out in one common shape (`command`, `args`, `env`, `url`, `headers`, `cwd`,
`disabled`, ...), as written: nothing is expanded here. Kept free of YAML and of the rest
of toolsel: the caller parses the file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

#: Suffixes a client config may have (Goose and Continue write YAML).
CONFIG_SUFFIXES = frozenset({".json", ".jsonc", ".toml", ".yaml", ".yml"})

#: Bytes one of whose presence in a file's head makes it worth parsing as a client config.
CONFIG_MARKERS = (
    b"mcpServers",
    b"mcp_servers",
    b'"servers"',
    b'"mcp"',
    b"mcp:",
    b"context_servers",
    b"extensions",
)

#: Names of files that are usually another program's config or settings, not registries.
SETTINGS_NAMES = frozenset(
    {
        "settings.json", "package.json", "tsconfig.json", "jsconfig.json", "mcp.json",
        "opencode.json", "opencode.jsonc", "crush.json", "claude_desktop_config.json",
        "cline_mcp_settings.json", "mcp_settings.json", "mcp_config.json", "config.yaml",
    }
)  # fmt: skip

Entry = dict[str, Any]
#: A client's shape: the (name, common entry) pairs it finds in a file's data, or [].
Shape = Callable[[dict[str, Any], PurePath], list[tuple[str, Entry]]]


@dataclass(frozen=True, slots=True)
class ClientConfig:
    """The servers one client config names, in its order: (name as written, entry in the
    common shape). `key` is where the file keeps them (`mcpServers`, `mcp`, ...)."""

    client: str
    key: str
    servers: tuple[tuple[str, Entry], ...]


#: Files every client names the same wherever they are.
_BY_NAME = {
    ".mcp.json": "Claude Code",
    ".claude.json": "Claude Code",
    "claude_desktop_config.json": "Claude Desktop",
    "cline_mcp_settings.json": "Cline",
    "mcp_settings.json": "Roo Code",
    "mcp_config.json": "Windsurf",
    "opencode.json": "opencode",
    "opencode.jsonc": "opencode",
    "crush.json": "Crush",
    ".crush.json": "Crush",
}

#: (folder, file) pairs: the client a file of that name in that folder belongs to.
_BY_FOLDER = {
    (".cursor", "mcp.json"): "Cursor",
    (".vscode", "mcp.json"): "VS Code",
    (".vscode", "settings.json"): "VS Code",
    ("User", "settings.json"): "VS Code",  # VS Code's user settings
    (".roo", "mcp.json"): "Roo Code",
    ("settings", "mcp.json"): "Kiro",  # .kiro/settings/mcp.json
    (".amazonq", "mcp.json"): "Amazon Q",
    (".gemini", "settings.json"): "Gemini CLI",
    (".qwen", "settings.json"): "Qwen Code",
    (".zed", "settings.json"): "Zed",
    ("zed", "settings.json"): "Zed",
    (".codex", "config.toml"): "Codex",
    ("goose", "config.yaml"): "Goose",
}

#: The only client whose shape is that key's.
_BY_KEY = {
    "mcp_servers": "Codex", "servers": "VS Code", "mcp.servers": "VS Code",
    "context_servers": "Zed", "extensions": "Goose", "mcpServers[]": "Continue",
}  # fmt: skip

#: `$schema` URLs that name the client.
_BY_SCHEMA = {"opencode.ai": "opencode", "charm.land": "Crush"}

#: `type` values of each client whose servers sit under `mcp`.
_MCP_TYPES = {
    "opencode": frozenset({"local", "remote"}),
    "Crush": frozenset({"stdio", "sse", "http"}),
}

#: Goose extension types (`builtin` and `platform` ones run inside Goose itself).
_GOOSE_TYPES = frozenset(
    {"stdio", "sse", "streamable_http", "builtin", "platform", "frontend", "inline_python"}
)


def client_config(path: PurePath, data: Any) -> ClientConfig | None:
    """The client config `data` (read from `path`) is, with the servers it names; None for
    anything else, a registry (a `tools` list) included."""
    if not isinstance(data, dict) or isinstance(data.get("tools"), list):
        return None
    yaml = path.suffix.lower() in {".yaml", ".yml"}
    for key, read in _SHAPES:
        if yaml and key not in _YAML_SHAPES:
            continue  # no client writes its `mcpServers` table in YAML
        found = read(data, path)
        if found:
            return ClientConfig(client_name(path, data, key), key, tuple(found))
    return None


def client_name(path: PurePath, data: dict[str, Any], key: str) -> str:
    """Who reads a file: by its name, else its folder, else its `$schema`, else the only
    client whose shape it has (a generic `mcpServers` file is "MCP client")."""
    if ".continue" in path.parts[:-1]:
        return "Continue"
    named = _BY_NAME.get(path.name) or _BY_FOLDER.get((path.parent.name, path.name))
    if named is not None:
        return named
    schema = data.get("$schema")
    for host, client in _BY_SCHEMA.items():
        if isinstance(schema, str) and host in schema:
            return client
    if key == "mcp":
        return _mcp_client(data["mcp"]) or "MCP client"
    by_name = {"mcp.json": "Cursor", "settings.json": "Gemini CLI"}
    return _BY_KEY.get(key) or by_name.get(path.name, "MCP client")


# -- shapes: each returns the (name, common entry) pairs it finds, or [] --------------------


def _table(data: dict[str, Any], key: str) -> dict[str, Any] | None:
    table = data.get(key)
    return table if isinstance(table, dict) and table else None


def _servers_like(table: dict[str, Any]) -> bool:
    """A table of server entries: every value an entry with a command, a URL or a type."""
    keys = ("command", "url", "type", "httpUrl", "serverUrl", "args")
    return all(isinstance(v, dict) and any(k in v for k in keys) for v in table.values())


def _entries(table: dict[str, Any] | None) -> list[tuple[str, Entry]]:
    return [(str(k), v) for k, v in (table or {}).items() if isinstance(v, dict)]


def _continue_list(data: dict[str, Any], path: PurePath) -> list[tuple[str, Entry]]:
    """Continue's blocks: `mcpServers:` as a list of `{name, command, args, env}`."""
    listed = data.get("mcpServers")
    if not isinstance(listed, list) or not listed:
        return []
    if not all(isinstance(e, dict) and isinstance(e.get("name"), str) for e in listed):
        return []
    if not all("command" in e or "url" in e for e in listed):
        return []
    return [(e["name"], {k: v for k, v in e.items() if k != "name"}) for e in listed]


def _vscode_servers(data: dict[str, Any], path: PurePath) -> list[tuple[str, Entry]]:
    """`servers` in .vscode/mcp.json; elsewhere only when every entry is a server's."""
    table = _table(data, "servers")
    return _entries(table) if table and (path.name == "mcp.json" or _servers_like(table)) else []


def _vscode_settings(data: dict[str, Any], path: PurePath) -> list[tuple[str, Entry]]:
    """VS Code's settings.json: `"mcp": {"servers": {...}}`."""
    mcp = data.get("mcp")
    table = _table(mcp, "servers") if isinstance(mcp, dict) else None
    return _entries(table) if table and _servers_like(table) else []


def _under(key: str) -> Shape:
    """The entries of the servers table under `key` (`mcpServers`; Codex's `mcp_servers`)."""
    return lambda data, path: _entries(_table(data, key))


def _mcp_client(table: Any) -> str | None:
    """opencode or Crush: the client all of whose `type` values every entry has."""
    if not isinstance(table, dict) or not table:
        return None
    if not all(isinstance(v, dict) for v in table.values()):
        return None
    types = {v.get("type") for v in table.values()}
    for client, allowed in _MCP_TYPES.items():
        if types <= allowed:
            return client
    return None


def _mcp_key(data: dict[str, Any], path: PurePath) -> list[tuple[str, Entry]]:
    """opencode's and Crush's `mcp`: a table of entries whose `type` is that client's."""
    client = _mcp_client(data.get("mcp"))
    if client is None:
        return []
    return [(str(k), _opencode(v) if client == "opencode" else v) for k, v in data["mcp"].items()]


def _opencode(entry: Entry) -> Entry:
    """`type: local` with the argv as `command` and `environment`; `type: remote` with `url`."""
    out = {k: v for k, v in entry.items() if k != "environment"}
    if isinstance(entry.get("environment"), dict):
        out["env"] = entry["environment"]
    return out


def _zed(data: dict[str, Any], path: PurePath) -> list[tuple[str, Entry]]:
    """Zed's `context_servers`: a flat `command`/`args`/`env`, the older
    `command: {path, args, env}`, or a `url`; an extension's server has only `settings`."""
    table = _table(data, "context_servers")
    if table is None or not all(isinstance(v, dict) for v in table.values()):
        return []
    found: list[tuple[str, Entry]] = []
    for name, entry in table.items():
        command = entry.get("command")
        if isinstance(command, dict):
            nested = {k: v for k, v in command.items() if k != "path"}
            entry = {**entry, **nested, "command": command.get("path")}
        found.append((str(name), entry))
    return found


def _goose(data: dict[str, Any], path: PurePath) -> list[tuple[str, Entry]]:
    """Goose's `extensions`: `cmd` (not command), `envs`, `uri`, `enabled`, a `type`."""
    table = _table(data, "extensions")
    if table is None:
        return []
    if not all(
        isinstance(v, dict) and ("cmd" in v or v.get("type") in _GOOSE_TYPES)
        for v in table.values()
    ):
        return []
    found: list[tuple[str, Entry]] = []
    for name, entry in table.items():
        common = {k: v for k, v in entry.items() if k not in {"cmd", "envs", "uri"}}
        if "cmd" in entry:
            common["command"] = entry["cmd"]
        if isinstance(entry.get("envs"), dict):
            common["env"] = entry["envs"]
        if "uri" in entry:
            common["url"] = entry["uri"]
        found.append((str(name), common))
    return found


#: The shapes a YAML file may have: Continue's blocks and Goose's `extensions`.
_YAML_SHAPES = frozenset({"mcpServers[]", "extensions"})

_SHAPES: tuple[tuple[str, Shape], ...] = (
    # Claude, Cursor, Gemini CLI, Qwen Code, Cline, Roo Code, Kiro, Windsurf
    ("mcpServers", _under("mcpServers")),
    ("mcpServers[]", _continue_list),  # Continue's YAML blocks
    ("servers", _vscode_servers),  # VS Code's mcp.json
    ("mcp_servers", _under("mcp_servers")),  # Codex's [mcp_servers.NAME]
    ("mcp.servers", _vscode_settings),  # VS Code's settings.json
    ("mcp", _mcp_key),  # opencode (type: local|remote), Crush (type: stdio|sse|http)
    ("context_servers", _zed),
    ("extensions", _goose),
)


# -- settings files that are not registries ----------------------------------------------

#: Keys of Gemini CLI's (and Qwen Code's) settings, old and new layout.
_GEMINI_KEYS = frozenset(
    {
        "general", "ui", "model", "context", "security", "advanced", "experimental",
        "privacy", "telemetry", "coreTools", "excludeTools", "allowMCPServers",
        "excludeMCPServers", "theme", "contextFileName", "autoAccept", "selectedAuthType",
        "checkpointing", "sandbox", "usageStatisticsEnabled", "preferredEditor", "$version",
        "fileFiltering", "hideTips", "vimMode", "ide", "output",
    }
)  # fmt: skip
#: Keys of Gemini CLI's `tools` setting (`tools.core`, `tools.exclude`, ...).
_GEMINI_TOOLS_KEYS = frozenset(
    {
        "core", "exclude", "allowed", "discoveryCommand", "callCommand", "sandbox", "shell",
        "useRipgrep", "autoAccept", "approvalMode", "enableToolOutputTruncation",
        "truncateToolOutputThreshold", "truncateToolOutputLines", "usePty",
        "enableMessageBusIntegration", "enableHooks",
    }
)  # fmt: skip
_PACKAGE_KEYS = frozenset({"dependencies", "devDependencies", "scripts", "peerDependencies"})


def not_a_registry(path: PurePath, data: Any) -> str | None:
    """Why a file that holds no tool list is something else, in a few words ("a Gemini CLI
    settings file; its `tools` key is a setting"); None when nothing says what it is."""
    if not isinstance(data, dict) or isinstance(data.get("tools"), list):
        return None
    config = client_config(path, data)
    if config is not None:
        count = len(config.servers)
        return (
            f"{_article(config.client)} {config.client} config naming {count} MCP "
            f"server{'s' * (count != 1)} "
            "(pass it with -r and --connect to list their tools)"
        )
    why = _settings_kind(path, data)
    if why is not None:
        return f"{why}; its `tools` key is a setting" if "tools" in data else why
    tools = data.get("tools")
    if isinstance(tools, dict) and isinstance(tools.get("command"), str):
        return (
            "an MCP server's launch entry (command, args, env) under `tools`, not a list of "
            "tools; a client config keeps it under `mcpServers`"
        )
    return None


def _settings_kind(path: PurePath, data: dict[str, Any]) -> str | None:
    """What settings file `data` is, when it is one toolsel knows."""
    client = _BY_FOLDER.get((path.parent.name, path.name)) or _BY_NAME.get(path.name)
    schema = data.get("$schema")
    for host, name in _BY_SCHEMA.items():
        if isinstance(schema, str) and host in schema:
            client = name
    tools = data.get("tools")
    gemini_tools = isinstance(tools, dict) and bool(tools) and set(tools) <= _GEMINI_TOOLS_KEYS
    if client in {"Gemini CLI", "Qwen Code"} or (
        client is None and (gemini_tools or len(set(data) & _GEMINI_KEYS) >= 2)
    ):
        return f"a {client or 'Gemini CLI'} settings file"
    if client is not None:
        kind = "settings file" if path.name == "settings.json" else "config"
        return f"{_article(client)} {client} {kind}"
    if path.name == "package.json" or (
        isinstance(data.get("name"), str) and _PACKAGE_KEYS & set(data)
    ):
        return "an npm package.json"
    if isinstance(data.get("compilerOptions"), dict):
        return "a TypeScript config (compilerOptions)"
    if path.name == "settings.json" and any("." in key for key in data):
        return "an editor's settings file (VS Code)"
    return None


def _article(name: str) -> str:
    return "an" if name[:1] in "AEIOUaeiou" or name.startswith("MCP") else "a"
