"""Which client a config or settings file belongs to (toolsel/clients.py): every shape read,
each named for its client, and each near miss (a key of that name holding something else)
left alone. The real files are in tests/corpus/configs."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

import pytest

from toolsel.clients import client_config, not_a_registry

STDIO = {"command": "x", "args": ["--y"]}


@pytest.mark.parametrize(
    ("path", "data", "client", "names"),
    [
        ("p/.roo/mcp.json", {"mcpServers": {"a": STDIO}}, "Roo Code", ["a"]),
        ("p/.kiro/settings/mcp.json", {"mcpServers": {"a": STDIO}}, "Kiro", ["a"]),
        ("p/.amazonq/mcp.json", {"mcpServers": {"a": STDIO}}, "Amazon Q", ["a"]),
        ("p/.qwen/settings.json", {"mcpServers": {"a": STDIO}}, "Qwen Code", ["a"]),
        ("p/cline_mcp_settings.json", {"mcpServers": {"a": STDIO}}, "Cline", ["a"]),
        ("p/mcp_config.json", {"mcpServers": {"a": {"serverUrl": "https://h/mcp"}}}, "Windsurf", ["a"]),
        ("p/any.json", {"mcp": {"a": {"type": "remote", "url": "https://h/mcp"}}}, "opencode", ["a"]),
        ("p/any.json", {"mcp": {"a": {"type": "http", "url": "https://h/mcp"}}}, "Crush", ["a"]),
        ("p/crush.json", {"mcp": {"a": {"type": "stdio", "command": "x"}}}, "Crush", ["a"]),
        ("p/x.json", {"$schema": "https://opencode.ai/config.json",
                      "mcp": {"a": {"type": "local", "command": ["x"]}}}, "opencode", ["a"]),
        ("p/.vscode/settings.json", {"editor.tabSize": 2, "mcp": {"servers": {"a": STDIO}}},
         "VS Code", ["a"]),
        ("p/.zed/settings.json", {"context_servers": {"a": {"command": {"path": "x"}}}}, "Zed", ["a"]),
        ("p/goose/config.yaml", {"extensions": {"dev": {"type": "builtin", "name": "developer"},
                                                "a": {"cmd": "x", "type": "stdio"}}},
         "Goose", ["dev", "a"]),
        ("p/blocks.yaml", {"mcpServers": [{"name": "My Server", "command": "x"}]}, "Continue",
         ["My Server"]),
    ],
)  # fmt: skip
def test_each_clients_shape_is_read_and_named(
    path: str, data: dict[str, Any], client: str, names: list[str]
) -> None:
    found = client_config(PurePath(path), data)
    assert found is not None
    assert (found.client, [name for name, _ in found.servers]) == (client, names)


def test_entries_come_out_in_the_common_shape() -> None:
    opencode = client_config(
        PurePath("opencode.json"),
        {"mcp": {"a": {"type": "local", "command": ["node", "s.js"], "environment": {"K": "v"}}}},
    )
    goose = client_config(
        PurePath("config.yaml"),
        {"extensions": {"a": {"cmd": "x", "args": ["1"], "envs": {"K": "v"}, "enabled": False},
                        "b": {"type": "sse", "uri": "https://h/sse"}}},
    )  # fmt: skip
    zed = client_config(
        PurePath("settings.json"),
        {"context_servers": {"a": {"command": {"path": "x", "args": ["1"], "env": {"K": "v"}}}}},
    )
    assert opencode is not None and goose is not None and zed is not None
    assert opencode.servers[0][1] == {
        "type": "local",
        "command": ["node", "s.js"],
        "env": {"K": "v"},
    }
    assert goose.servers[0][1] == {
        "command": "x",
        "args": ["1"],
        "env": {"K": "v"},
        "enabled": False,
    }
    assert goose.servers[1][1] == {"type": "sse", "url": "https://h/sse"}
    assert zed.servers[0][1] == {"command": "x", "args": ["1"], "env": {"K": "v"}}


NEAR_MISSES: dict[str, tuple[str, Any]] = {
    # Gemini CLI's own `mcp` setting: which servers are allowed, not servers
    "Gemini CLI's mcp setting": (
        ".gemini/settings.json",
        {"mcp": {"serverCommand": "run.sh", "allowed": ["a"], "excluded": ["b"]}},
    ),
    "mcp entries without a type": ("opencode.json", {"mcp": {"a": {"command": "x"}}}),
    "mcp entries of two clients' types": (
        "x.json",
        {"mcp": {"a": {"type": "local", "command": ["x"]}, "b": {"type": "stdio", "command": "x"}}},
    ),
    "mcp is a flag": ("crush.json", {"mcp": True}),
    "mcp.servers that are hosts": ("settings.json", {"mcp": {"servers": {"a": {"host": "h"}}}}),
    "servers that are hosts": ("deploy.json", {"servers": {"prod": {"host": "h", "port": 22}}}),
    "VS Code's extension recommendations": (
        ".vscode/extensions.json",
        {"extensions": {"recommendations": ["ms-python.python"]}},
    ),
    "extensions without cmd or type": ("config.yaml", {"extensions": {"a": {"enabled": True}}}),
    "context_servers as a list": ("settings.json", {"context_servers": ["a"]}),
    "a Continue list without commands": ("c.yaml", {"mcpServers": [{"name": "a"}]}),
    "a Continue list of names": ("c.yaml", {"mcpServers": ["a", "b"]}),
    "a registry that also names servers": (
        "tools.json",
        {"tools": [{"name": "a", "description": "d"}], "mcpServers": {"a": STDIO}},
    ),
    "empty tables": ("mcp.json", {"mcpServers": {}, "servers": {}, "mcp": {}}),
    "a list": ("mcp.json", [{"mcpServers": {"a": STDIO}}]),
}


@pytest.mark.parametrize("case", list(NEAR_MISSES), ids=list(NEAR_MISSES))
def test_a_near_miss_is_not_taken_for_a_client_config(case: str) -> None:
    path, data = NEAR_MISSES[case]
    assert client_config(PurePath(path), data) is None


@pytest.mark.parametrize(
    ("path", "data", "why"),
    [
        (".gemini/settings.json", {"tools": {"core": ["ReadFileTool"]}},
         "a Gemini CLI settings file; its `tools` key is a setting"),
        ("any.json", {"tools": {"exclude": ["ShellTool"], "allowed": ["x"]}, "theme": "Dracula"},
         "a Gemini CLI settings file; its `tools` key is a setting"),
        (".qwen/settings.json", {"tools": {"exclude": ["web_search"]}, "$version": 2},
         "a Qwen Code settings file; its `tools` key is a setting"),
        (".gemini/settings.json", {"autoAccept": True}, "a Gemini CLI settings file"),
        ("crush.json", {"tools": {"ls": {}}}, "a Crush config; its `tools` key is a setting"),
        ("opencode.json", {"$schema": "https://opencode.ai/config.json"}, "an opencode config"),
        (".vscode/settings.json", {"editor.tabSize": 2}, "a VS Code settings file"),
        ("settings.json", {"editor.tabSize": 2}, "an editor's settings file (VS Code)"),
        ("package.json", {"name": "x", "scripts": {}}, "an npm package.json"),
        ("lib.json", {"name": "x", "devDependencies": {}}, "an npm package.json"),
        ("tsconfig.json", {"compilerOptions": {"strict": True}},
         "a TypeScript config (compilerOptions)"),
        ("mcp-tools.json", {"tools": {"command": "uv", "args": ["run"]}},
         "an MCP server's launch entry (command, args, env) under `tools`, not a list of tools; "
         "a client config keeps it under `mcpServers`"),
        ("crush.json", {"mcp": {"a": {"type": "stdio", "command": "x"}}, "tools": {"ls": {}}},
         "a Crush config naming 1 MCP server (pass it with -r and --connect to list their tools)"),
        ("x.json", {"mcp": {"a": {"type": "local", "command": ["x"]}, "b": {"type": "remote"}}},
         "an opencode config naming 2 MCP servers (pass it with -r and --connect to list their "
         "tools)"),
    ],
)  # fmt: skip
def test_why_a_file_is_not_a_registry(path: str, data: dict[str, Any], why: str) -> None:
    assert not_a_registry(PurePath(path), data) == why


@pytest.mark.parametrize(
    "data",
    [
        {"tools": [{"name": "a", "description": "d"}]},
        {"tools": {"read_file": {"description": "Reads a file."}}},  # a registry written wrong
        {"tools": "x"},
        {"other": 1},
        [1, 2],
        None,
    ],
)
def test_a_registry_or_an_unknown_file_is_not_called_anything_else(data: Any) -> None:
    assert not_a_registry(PurePath("tools.json"), data) is None
