"""Client configs as the servers they name, and live sources as written on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from toolsel.errors import RegistryError
from toolsel.live.sources import command_server, config_servers, is_client_config, url_server
from toolsel.sources.grammar import live_text

STDIO = {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"T": "1"}}
HTTP = {"url": "https://mcp.example.com/mcp", "headers": {"X-Key": "k"}}


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if path.suffix == ".json" else str(data))
    return path


@pytest.mark.parametrize(
    ("relative", "client"),
    [
        (".mcp.json", "Claude Code"),
        ("claude_desktop_config.json", "Claude Desktop"),
        (".cursor/mcp.json", "Cursor"),
        (".gemini/settings.json", "Gemini CLI"),
    ],
)
def test_mcp_servers_configs(tmp_path: Path, relative: str, client: str) -> None:
    path = write(tmp_path / relative, {"mcpServers": {"github": STDIO, "docs": HTTP}})
    assert is_client_config(path)
    github, docs = config_servers(path)
    assert (github.name, github.transport, github.client) == ("github", "stdio", client)
    assert github.command == ("npx", "-y", "@modelcontextprotocol/server-github")
    assert dict(github.env) == {"T": "1"}
    assert (docs.transport, docs.url, dict(docs.headers)) == ("http", HTTP["url"], {"X-Key": "k"})


def test_vscode_servers_with_comments_and_trailing_commas(tmp_path: Path) -> None:
    path = tmp_path / ".vscode" / "mcp.json"
    path.parent.mkdir()
    path.write_text(
        '{\n  // the team\'s servers\n  "servers": {\n    "fetch": {"type": "stdio", '
        '"command": "uvx", "args": ["mcp-server-fetch"],},\n  /* more */\n  }\n}\n'
    )
    [fetch] = config_servers(path)
    assert (fetch.name, fetch.command, fetch.client) == (
        "fetch",
        ("uvx", "mcp-server-fetch"),
        "VS Code",
    )


def test_codex_config_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCS_TOKEN", "abc")
    path = write(
        tmp_path / ".codex" / "config.toml",
        'model = "o3"\n[mcp_servers.github]\ncommand = "npx"\nargs = ["-y", "server-github"]\n'
        '[mcp_servers.github.env]\nGITHUB_TOKEN = "x"\n'
        '[mcp_servers.docs]\nurl = "https://docs.example.com/mcp"\n'
        'bearer_token_env_var = "DOCS_TOKEN"\n[mcp_servers.off]\ncommand = "x"\nenabled = false\n',
    )
    assert is_client_config(path)
    github, docs, off = config_servers(path)
    assert github.command == ("npx", "-y", "server-github") and dict(github.env) == {
        "GITHUB_TOKEN": "x"
    }
    assert dict(docs.headers) == {}  # as written: the token is read only to reach it
    assert dict(docs.expanded().headers) == {"Authorization": "Bearer abc"}
    assert off.disabled and not github.disabled


def test_claude_json_per_project_servers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = write(
        tmp_path / ".claude.json",
        {
            "numStartups": 3,
            "projects": {
                str(tmp_path): {"mcpServers": {"here": STDIO}},
                "/elsewhere": {"mcpServers": {"there": STDIO}},
            },
        },
    )
    assert [s.name for s in config_servers(path)] == ["here"]


def test_a_registry_json_is_not_a_client_config(tmp_path: Path) -> None:
    tools = write(tmp_path / "tools.json", {"tools": [{"name": "a", "inputSchema": {}}]})
    openai = write(tmp_path / "openai.json", [{"type": "function", "function": {"name": "a"}}])
    assert not is_client_config(tools) and not is_client_config(openai)


def test_a_config_without_servers_and_a_broken_one(tmp_path: Path) -> None:
    empty = write(tmp_path / ".mcp.json", {"mcpServers": {}})
    with pytest.raises(RegistryError, match="no MCP servers in this file"):
        config_servers(empty)
    broken = tmp_path / "claude_desktop_config.json"
    broken.write_text('{"mcpServers": {\n  "a": }\n}')
    with pytest.raises(RegistryError, match=r"claude_desktop_config\.json:2:8: invalid JSON"):
        config_servers(broken)


def test_the_identity_changes_with_what_is_started_and_with_the_entry(tmp_path: Path) -> None:
    a = command_server("npx -y server-github", None, {})
    assert a.identity() == command_server("npx  -y server-github", None, {}).identity()
    assert a.identity() != command_server("npx -y server-github", None, {"K": "v"}).identity()
    assert a.identity() != command_server("npx -y server-gitlab", None, {}).identity()


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("npx -y @modelcontextprotocol/server-github", "github"),
        ("uvx mcp-server-fetch", "fetch"),
        ("python servers/notes.py --port 1", "notes"),
        ("node build/index.js", "index"),
    ],
)
def test_a_command_servers_name(text: str, name: str) -> None:
    assert command_server(text, None, {}).name == name


def test_live_text_and_urls_that_lost_a_slash() -> None:
    assert live_text(Path("https://host/mcp")) == "https://host/mcp"
    assert live_text("http://127.0.0.1:8/mcp") == "http://127.0.0.1:8/mcp"
    assert live_text("mcp:npx x") == "mcp:npx x"
    assert live_text("registries/tools.yaml") is None
    assert url_server("https://api.example.com/mcp", None, {}).name == "api"
    with pytest.raises(RegistryError, match="no command after 'mcp:'"):
        command_server("  ", None, {})
    with pytest.raises(RegistryError, match="cannot split the command"):
        command_server("npx 'unclosed", None, {})


def test_claude_code_expands_variables_and_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOKEN", "t0k")
    monkeypatch.delenv("UNSET_DIR", raising=False)
    monkeypatch.delenv("UNSET_KEY", raising=False)
    entry = {
        "command": "${UNSET_DIR:-.}/bin/server",
        "args": ["--token=${TOKEN}", "${UNSET_KEY}"],
        "env": {"KEY": "${UNSET_KEY:-}", "TTL": "${UNSET_KEY:-300}", "T": "${TOKEN}"},
    }
    web = {"url": "https://${UNSET_DIR:-h.example}/mcp", "headers": {"A": "Bearer ${TOKEN}"}}
    path = write(tmp_path / ".mcp.json", {"mcpServers": {"s": entry, "w": web}})
    written_s, written_w = config_servers(path)
    assert written_s.command == ("${UNSET_DIR:-.}/bin/server", "--token=${TOKEN}", "${UNSET_KEY}")
    assert "t0k" not in written_s.target + written_w.target  # shown as written
    s, w = written_s.expanded(), written_w.expanded()
    assert s.command == ("./bin/server", "--token=t0k", "${UNSET_KEY}")
    assert dict(s.env) == {"KEY": "", "TTL": "300", "T": "t0k"}
    assert (
        s.problem == "${UNSET_KEY} not set and without a default (Claude Code would not start it)"
    )
    assert (w.url, dict(w.headers)) == ("https://h.example/mcp", {"A": "Bearer t0k"})


def test_claude_desktop_does_not_expand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOKEN", "t0k")
    path = write(
        tmp_path / "claude_desktop_config.json",
        {"mcpServers": {"s": {"command": "x", "env": {"T": "${TOKEN}"}}}},
    )
    [s] = config_servers(path)
    assert dict(s.expanded().env) == {"T": "${TOKEN}"}


def test_vscode_and_cursor_variables_and_inputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BROWSER", "firefox")
    monkeypatch.delenv("NOPE", raising=False)
    entry = {
        "command": "node",
        "args": ["${workspaceFolder}/dist/server.js"],
        "env": {"B": "${env:BROWSER}", "N": "${env:NOPE}", "K": "${input:api_key}"},
    }
    for folder in (".vscode", ".cursor"):
        key = "servers" if folder == ".vscode" else "mcpServers"
        [written] = config_servers(write(tmp_path / folder / "mcp.json", {key: {"s": entry}}))
        s = written.expanded()
        assert s.command == ("node", f"{tmp_path}/dist/server.js")
        assert dict(s.env) == {"B": "firefox", "N": "", "K": "${input:api_key}"}
        assert s.problem is None  # the input stays as written: only the editor can prompt


def test_codex_env_vars_are_passed_on_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("API_KEY", "k")
    monkeypatch.delenv("MISSING", raising=False)
    path = write(
        tmp_path / ".codex" / "config.toml",
        '[mcp_servers.s]\ncommand = "x"\nenv_vars = ["API_KEY", "MISSING"]\nenv = { A = "1" }\n',
    )
    [s] = config_servers(path)
    assert dict(s.env) == {"A": "1"}
    assert dict(s.expanded().env) == {"A": "1", "API_KEY": "k"}


@given(st.text(), st.sampled_from(["Claude Code", "VS Code", "Cursor", "Codex", "Gemini CLI"]))
def test_text_without_a_variable_is_left_as_written(text: str, client: str) -> None:
    from toolsel.live.sources import _expander

    assume("${" not in text)
    expand = _expander(client, Path("/w/.vscode/mcp.json"))
    assert expand(text) == text


def test_two_entries_running_one_command_are_two_servers(tmp_path: Path) -> None:
    """A config may run one command under two names: each is listed and cached apart."""
    entry = {"command": "npx", "args": ["-y", "server-github"]}
    path = write(tmp_path / ".mcp.json", {"mcpServers": {"work": entry, "home": entry}})
    work, home = config_servers(path)
    assert work.identity() != home.identity()
