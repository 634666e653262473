"""Client configs as the servers they name, and live sources as written on the command line."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.conftest import Cli
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


@pytest.mark.parametrize(
    "text",
    [
        '{\n  "servers": {\n    "fetch": {"command": "uvx", "args": ["mcp-server-fetch",\n    ]},\n  }\n}\n',
        '{"servers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch",\t]},\t}}',
        '{"servers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch", ]}, }}',
    ],
    ids=["line-breaks", "tabs", "spaces"],
)
def test_trailing_commas_before_any_whitespace_without_comments(tmp_path: Path, text: str) -> None:
    path = tmp_path / ".vscode" / "mcp.json"
    path.parent.mkdir()
    path.write_text(text)
    [fetch] = config_servers(path)
    assert fetch.command == ("uvx", "mcp-server-fetch")


def test_a_comma_inside_a_string_is_kept_where_trailing_commas_go(tmp_path: Path) -> None:
    path = tmp_path / ".vscode" / "mcp.json"
    path.parent.mkdir()
    path.write_text('{"servers": {"x": {"command": "run", "args": ["a,]", "b, }", "c\\",]",],},},}')
    [server] = config_servers(path)
    assert server.command == ("run", "a,]", "b, }", 'c",]')


def test_a_vscode_config_with_trailing_commas_lists_its_servers_through_the_cli(
    cli: Cli, tmp_path: Path
) -> None:
    path = tmp_path / ".vscode" / "mcp.json"
    path.parent.mkdir()
    path.write_text('{\n  "servers": {\n    "fetch": {"command": "uvx"},\n  },\n}\n')
    run = cli("lint", str(path))
    assert run.exit_code == 2
    assert "1 MCP server, not started: fetch: uvx" in run.stderr


def test_a_url_that_is_not_text_is_no_url(tmp_path: Path) -> None:
    path = write(tmp_path / ".mcp.json", {"mcpServers": {"a": {"url": 5, "command": "npx"}}})
    [server] = config_servers(path)
    assert (server.transport, server.command) == ("stdio", ("npx",))


def test_a_config_that_ends_inside_a_string_after_a_backslash_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / ".vscode" / "mcp.json"
    path.parent.mkdir()
    path.write_text('{"servers": {"a": {"command": "x\\')  # a comment-free, cut file
    with pytest.raises(RegistryError, match="invalid JSON"):
        config_servers(path)
    path.write_text('// cut\n{"servers": {"a": {"command": "x\\')
    with pytest.raises(RegistryError, match="invalid JSON"):
        config_servers(path)


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


# -- a server as written, as started, and as shown ---------------------------------------


def test_how_a_server_is_shown_and_what_it_runs_with_credentials_masked() -> None:
    from toolsel.live.sources import Server

    stdio = Server("gh", "stdio", ("npx", "-y", "server", "--token", "ghp_secret", "a b"))
    assert (stdio.shown, stdio.target) == ("server 'gh'", "npx -y server --token '***' 'a b'")
    web = Server("web", "http", url="https://u:pw@h.example/mcp?key=k1", origin=Path(".mcp.json"))
    assert (web.shown, web.target) == (
        "server 'web' (.mcp.json)",
        "https://u:***@h.example/mcp?key=***",
    )


def test_a_url_server_is_reached_with_its_headers_and_its_token_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolsel.live.sources import Server

    monkeypatch.setenv("DOCS_TOKEN", "t0k")
    monkeypatch.setenv("HOST", "h.example")
    written = Server(
        "docs", "http", url="https://${HOST}/mcp", headers=(("X-Key", "${HOST}"),),
        client="Claude Code", token_from="DOCS_TOKEN",
    )  # fmt: skip
    started = written.expanded()
    assert (started.url, started.headers) == (
        "https://h.example/mcp",
        (("Authorization", "Bearer t0k"), ("X-Key", "h.example")),
    )
    assert written.secrets() == ("Bearer t0k", "h.example")
    own = Server("docs", "http", url="https://h/mcp", headers=(("Authorization", "Basic x"),),
                 token_from="DOCS_TOKEN")  # fmt: skip
    assert own.expanded().headers == (("Authorization", "Basic x"),)  # its own header wins
    monkeypatch.setenv("DOCS_TOKEN", "")
    assert (
        Server("d", "http", url="https://h/mcp", token_from="DOCS_TOKEN").expanded().headers == ()
    )
    monkeypatch.delenv("DOCS_TOKEN")
    assert (
        Server("d", "http", url="https://h/mcp", token_from="DOCS_TOKEN").expanded().headers == ()
    )
    assert Server("d", "http", url="https://h/mcp").expanded().headers == ()


def test_a_command_server_is_started_with_its_variables_filled_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolsel.live.sources import Server

    monkeypatch.setenv("TOKEN", "t0k")
    monkeypatch.setenv("PASSED", "p")
    monkeypatch.setenv("OWN", "from the environment")
    monkeypatch.delenv("ABSENT", raising=False)
    written = Server(
        "s", "stdio", ("${TOKEN}/bin", "--x=${TOKEN}"), env=(("OWN", "${TOKEN}"), ("Z", "1")),
        cwd="${TOKEN}/dir", client="Claude Code", env_from=("PASSED", "OWN", "ABSENT"),
    )  # fmt: skip
    started = written.expanded()
    assert (started.command, started.env, started.cwd) == (
        ("t0k/bin", "--x=t0k"),
        (("OWN", "t0k"), ("PASSED", "p"), ("Z", "1")),
        "t0k/dir",
    )
    assert written.secrets() == ("t0k", "p", "1")
    assert Server("s", "stdio", ("x",), client="Claude Code").expanded().cwd is None


def test_the_identity_is_every_part_of_what_is_started() -> None:
    from toolsel.live.sources import Server

    base = Server("s", "stdio", ("a", "b"), env=(("K", "v"),), cwd="/w", url="", entry="{}")
    variants = [
        replace(base, name="t"),
        replace(base, transport="http"),
        replace(base, command=("a b",)),
        replace(base, command=("a", "b", "")),
        replace(base, env=(("K", "w"),)),
        replace(base, env=(("K=v", ""),)),
        replace(base, cwd=None),
        replace(base, url="https://h/mcp"),
        replace(base, headers=(("K", "v"),)),
        replace(base, entry='{"x": 1}'),
    ]
    identities = {base.identity(), *(v.identity() for v in variants)}
    assert len(identities) == len(variants) + 1
    assert all(len(i) == 64 and int(i, 16) >= 0 for i in identities)
    assert replace(base, disabled=True, client="Cursor").identity() == base.identity()


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("mcp:npx server --token ghp_abc", "mcp:npx server --token '***'"),
        ("mcp:npx 'unclosed --token=sk-ant-api03-abcdefghijklmnopqrstu", "mcp:npx 'unclosed --token=***"),
        ("https://u:pw@h/mcp?token=abc", "https://u:***@h/mcp?token=***"),
    ],
)  # fmt: skip
def test_a_live_source_is_shown_with_its_credentials_masked(text: str, shown: str) -> None:
    from toolsel.live.sources import shown_source

    assert shown_source(text) == shown


def test_a_command_or_url_that_names_no_server_is_one_line() -> None:
    with pytest.raises(RegistryError) as unsplit:
        command_server("npx 'unclosed", None, {})
    assert str(unsplit.value) == "mcp:npx 'unclosed: cannot split the command: No closing quotation"
    with pytest.raises(RegistryError) as empty:
        command_server("", None, {})
    assert (empty.value.message, empty.value.hint) == (
        "mcp:: no command after 'mcp:'",
        "e.g. -r 'mcp:npx -y @modelcontextprotocol/server-github'",
    )
    with pytest.raises(RegistryError) as hostless:
        url_server("https:///mcp?token=abc", None, {})
    assert (hostless.value.message, hostless.value.hint) == (
        "https:///mcp?token=***: not a URL with a host",
        "e.g. -r https://host/mcp",
    )
    server = url_server("http://127.0.0.1:8/mcp", None, {"B": "2", "A": "1"})
    assert (server.name, server.transport, server.url, server.headers) == (
        "127", "http", "http://127.0.0.1:8/mcp", (("A", "1"), ("B", "2")),
    )  # fmt: skip
    assert url_server("https://h/mcp", "mine", {}).name == "mine"
    named = command_server("npx x", "mine", {"B": "2", "A": "1"})
    assert (named.name, named.command, named.env) == (
        "mine",
        ("npx", "x"),
        (("A", "1"), ("B", "2")),
    )


def test_a_command_that_cannot_be_split_is_shown_with_its_flags_values_masked() -> None:
    from toolsel.live.sources import shown_source

    assert "abc123" not in shown_source("mcp:npx 'unclosed --token=abc123")
    with pytest.raises(RegistryError) as unsplit:
        command_server("npx 'unclosed --api-key abc123", None, {})
    assert "abc123" not in str(unsplit.value)


def test_a_command_that_cannot_be_split_is_one_line_without_its_secret(cli: Cli) -> None:
    run = cli("rank", "x", "-r", "mcp:npx 'unclosed --api-key abc123")
    assert (run.exit_code, run.stderr) == (
        2,
        "toolsel: error: mcp:npx 'unclosed --api-key ***: cannot split the command: "
        "No closing quotation\n",
    )


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("npx -y mcp-server-github", "github"),
        ("uvx x-mcp-server", "x"),
        ("uvx notes-server", "notes"),
        ("uvx notes-mcp", "notes"),
        ("npx mcp-notes", "notes"),
        ("python3.12 -u tool-server.py", "tool"),
        ("PYTHON tool.py", "tool"),
        ("docker run -i --rm -e T ghcr.io/acme/github-mcp", "github"),
        ("/opt/bin/thing-mcp --port 3", "thing"),
        ("./bin/my.server --stdio", "my"),
        ("node", "node"),
        ("npx", "npx"),
        ("npx -y @scope/pkg", "pkg"),
        ("npx -y @scope", "scope"),
        ("npx weird@name!", "weird_name_"),
    ],
)
def test_a_command_servers_name_from_its_package_or_script(text: str, name: str) -> None:
    assert command_server(text, None, {}).name == name


@pytest.mark.parametrize(
    "text",
    [
        "npx -y @modelcontextprotocol/server-github@1.2.3",
        "npx -y @modelcontextprotocol/server-github@latest",
        "pipx run mcp-server-github",
    ],
)
def test_a_versioned_or_run_package_is_named_after_the_package(text: str) -> None:
    assert command_server(text, None, {}).name == "github"


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("uvx mcp-server-fetch==1.0", "fetch"),
        ("uvx 'mcp-server-fetch[cli]>=2'", "fetch"),
        ("uvx mcp-server-fetch@latest", "fetch"),
        ("pnpm dlx @acme/notes-mcp@2", "notes"),
        ("uv tool run notes-server", "notes"),
        ("npm exec -y mcp-notes", "notes"),
        ("python3 run", "run"),  # a script named `run`, not a subcommand
        ("npx @scope@1.0", "scope"),
    ],
)
def test_a_launchers_subcommand_and_a_packages_version_are_not_its_name(
    text: str, name: str
) -> None:
    assert command_server(text, None, {}).name == name


# -- which files are client configs, and what they say ----------------------------------


@pytest.mark.parametrize(
    ("relative", "content", "expected"),
    [
        (".mcp.json", "", True),  # by its name alone
        (".claude.json", "{}", True),
        ("claude_desktop_config.json", "not even json", True),
        (".cursor/mcp.json", '{"mcpServers": {"a": {"command": "x"}}}', True),
        ("mcp.json", '{"tools": [], "mcpServers": {"a": {}}}', False),
        (".gemini/settings.json", '{"theme": "dark"}', False),
        (".gemini/settings.json", '{"mcpServers": {"a": {"command": "x"}}}', True),
        ("settings.json", '{"mcpServers": {"a": {"command": "x"}', True),  # broken: by name
        ("mine.json", '{"mcpServers": {"a": {"command": "x"}', False),  # broken, unnamed
        ("servers.JSON", '{"servers": {"a": {"command": "x"}}}', True),
        ("servers.json", '{"servers": {}}', False),
        ("servers.json", '{"servers": {"a": 1}}', False),
        ("codex.toml", '[mcp_servers.a]\ncommand = "x"\n', True),
        (".codex/config.toml", 'model = "o3"\n', False),
        ("servers.yaml", "mcpServers: {a: {command: x}}\n", False),
        ("list.json", '[{"mcpServers": 1}]', False),
    ],
)
def test_a_client_config_by_its_name_or_its_servers_table(
    tmp_path: Path, relative: str, content: str, expected: bool
) -> None:
    path = tmp_path / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    assert is_client_config(path) is expected


def test_a_file_that_cannot_be_opened_or_whose_servers_are_far_in_is_not_a_client_config(
    tmp_path: Path,
) -> None:
    assert is_client_config(tmp_path / "missing.json") is False
    (tmp_path / "folder.json").mkdir()
    assert is_client_config(tmp_path / "folder.json") is False
    late = tmp_path / "late.json"
    late.write_text('{"a": "' + "x" * 70_000 + '", "mcpServers": {"s": {"command": "x"}}}')
    assert is_client_config(late) is False  # only the head is looked at
    assert [s.name for s in config_servers(late)] == ["s"]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("c.json", b"[1]", "{path}: not a client config (expected a JSON, TOML or YAML table)"),
        ("c.json", b'{"mcpServers": {}}',
         "{path}: no MCP servers in this file (a client config lists them under mcpServers, "
         "servers, [mcp_servers.NAME], mcp, context_servers or extensions)"),
        ("c.toml", b"[mcp_servers\n",
         "{path}: invalid TOML: Expected ']' at the end of a table declaration (at line 1, column 13)"),
        ("c.json", b'{"a": "caf\xe9"}',
         "{path}: not UTF-8 (byte 0xe9 at offset 10); a client config is JSON, TOML or YAML text"),
        ("c.json", b'{\n "a": }', "{path}:2:7: invalid JSON: expected a value, found '}}'"),
        ("c.json", b"\x00\x01\x02", "{path}: cannot read this client config: binary data (NUL bytes), not text"),
        ("c.json", b"[" * 100_000 + b"]" * 100_000, "{path}: nested too deeply to read as a client config"),
    ],
)  # fmt: skip
def test_a_client_config_that_cannot_be_read_says_why(
    tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(RegistryError) as refused:
        config_servers(path)
    assert str(refused.value) == message.format(path=path)


def test_a_config_with_a_byte_order_mark_comments_and_trailing_commas(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_bytes(
        b'\xef\xbb\xbf{"servers": {"a": {"command": "x", "args": ["//not a comment", '
        b'"say \\"/*hi*/\\"",],}, // a comment\n "b": {"command": "y"} /* a block */,},}'
    )
    a, b = config_servers(path)
    assert (a.client, a.command, b.command) == (
        "VS Code",
        ("x", "//not a comment", 'say "/*hi*/"'),
        ("y",),
    )
    path.write_text('{"mcpServers": {"a": {"command": "x"}}} /* never closed')
    assert [s.client for s in config_servers(path)] == ["Cursor"]


@pytest.mark.parametrize(
    ("name", "data", "names"),
    [
        ("c.json", {"mcpServers": {}, "servers": {"b": {"command": "x"}}}, ["b"]),
        ("c.json", {"mcpServers": {"a": {"command": "x"}}, "servers": {"b": {"command": "x"}}}, ["a"]),
        ("c.json", {"mcp_servers": {"c": {"command": "x"}, "bad": 3}}, ["c"]),
        ("c.json", {"mcpServers": {"a": {"command": "x"}},
                    "projects": {"/p": {"mcpServers": {"p": {"command": "x"}}}}}, ["a"]),
        ("c.json", {"projects": {"/p": {"mcpServers": {"p": {"command": "x"}}}}}, ["p"]),
        ("c.json", {"projects": []}, []),
        ("c.json", {"other": {}}, []),
    ],
)  # fmt: skip
def test_which_table_names_the_servers(
    tmp_path: Path, name: str, data: dict[str, object], names: list[str]
) -> None:
    from toolsel.live.sources import _server_tables

    assert [n for n, _ in _server_tables(data, tmp_path / name)] == names


def test_claude_json_user_servers_then_this_projects_else_every_projects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    here = str(Path.cwd())
    projects = {
        "/a": {"mcpServers": {"shared": STDIO, "a": STDIO, "bad": "x"}},
        "/b": {"mcpServers": {"shared": HTTP, "b": STDIO}},
        "/c": "not a project",
        "/d": {"mcpServers": None},
    }
    path = write(tmp_path / ".claude.json", {"mcpServers": {"user": STDIO}, "projects": projects})
    servers = config_servers(path)
    assert [(s.name, s.transport) for s in servers] == [
        ("user", "stdio"), ("shared", "stdio"), ("a", "stdio"), ("b", "stdio"),
    ]  # fmt: skip
    assert {s.client for s in servers} == {"Claude Code"}
    write(path, {"projects": {**projects, here: {"mcpServers": {"mine": HTTP}}}})
    assert [s.name for s in config_servers(path)] == ["mine"]
    write(path, {"projects": {**projects, here: "not a project"}})
    assert [s.name for s in config_servers(path)] == ["shared", "a", "b"]


@pytest.mark.parametrize(
    ("relative", "data", "client"),
    [
        ("mcp.json", {"servers": {"a": {"command": "x"}}}, "VS Code"),
        ("mcp.json", {"mcpServers": {"a": {"command": "x"}}}, "Cursor"),
        ("settings.json", {"mcpServers": {"a": {"command": "x"}}}, "Gemini CLI"),
        (".claude.json", {"mcpServers": {"a": {"command": "x"}}}, "Claude Code"),
        ("claude_desktop_config.json", {"mcpServers": {"a": {"command": "x"}}}, "Claude Desktop"),
        ("team.json", {"mcpServers": {"a": {"command": "x"}}}, "MCP client"),
    ],
)
def test_which_client_reads_a_config(
    tmp_path: Path, relative: str, data: dict[str, object], client: str
) -> None:
    [server] = config_servers(write(tmp_path / relative, data))
    assert server.client == client


def test_an_entry_as_each_client_writes_it(tmp_path: Path) -> None:
    from toolsel.live.sources import Server

    path = write(
        tmp_path / "team.json",
        {
            "mcpServers": {
                "argv": {"command": ["node", "s.js"], "args": ["--port", 3, {"x": 1}, ["y"], True],
                         "env": {"N": 1}, "cwd": "/srv", "env_vars": ["A", 3], "disabled": 0},
                "off": {"command": "x", "disabled": "yes"},
                "not-enabled": {"command": "x", "enabled": False},
                "enabled": {"command": "x", "enabled": True, "cwd": 3, "env_vars": "A"},
                "http": {"httpUrl": "https://h/mcp", "http_headers": {"K": 1}},
                "sse": {"serverUrl": "https://s/mcp", "bearer_token_env_var": 3},
                "codex": {"url": "https://c/mcp", "bearer_token_env_var": "T", "headers": {"A": "b"}},
                "empty": {"command": []},
                "blank": {"command": "", "url": ""},
            }
        },
    )  # fmt: skip
    by_name = {s.name: s for s in config_servers(path)}
    argv = by_name["argv"]
    assert argv == Server(
        "argv", "stdio", ("node", "s.js", "--port", "3", "True"), env=(("N", "1"),), cwd="/srv",
        origin=path, client="MCP client", env_from=("A",),
        entry=json.dumps(json.loads(path.read_text())["mcpServers"]["argv"], sort_keys=True),
    )  # fmt: skip
    assert [name for name, s in by_name.items() if s.disabled] == ["off", "not-enabled"]
    enabled = by_name["enabled"]
    assert (enabled.cwd, enabled.env_from, enabled.problem) == (None, (), None)
    assert (by_name["http"].url, by_name["http"].headers) == ("https://h/mcp", (("K", "1"),))
    assert (by_name["sse"].url, by_name["sse"].token_from) == ("https://s/mcp", None)
    codex = by_name["codex"]
    assert (codex.transport, codex.token_from, codex.headers) == ("http", "T", (("A", "b"),))
    for name in ("empty", "blank"):
        assert (by_name[name].transport, by_name[name].problem) == (
            "stdio", "the entry has neither a `command` nor a `url`",
        )  # fmt: skip


def test_claude_code_names_each_unset_variable_once_wherever_it_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("U1", "U2", "U3", "U4"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SET", "x")
    path = write(
        tmp_path / ".mcp.json",
        {
            "mcpServers": {
                "s": {"command": "${U1}", "args": ["${U1}", "${SET}", "${U2:-d}"],
                      "env": {"A": "${U2}"}, "cwd": "${U3}"},
                "w": {"url": "https://${U4}/mcp", "headers": {"H": "${U1}"}},
                "fine": {"command": "${SET}", "env": {"A": "${U2:-}"}},
            }
        },
    )  # fmt: skip
    s, w, fine = config_servers(path)
    assert (
        s.problem
        == "${U1}, ${U2}, ${U3} not set and without a default (Claude Code would not start it)"
    )
    assert (
        w.problem == "${U4}, ${U1} not set and without a default (Claude Code would not start it)"
    )
    assert fine.problem is None
    desktop = write(
        tmp_path / "claude_desktop_config.json", {"mcpServers": {"s": {"command": "${U1}"}}}
    )
    assert [s.problem for s in config_servers(desktop)] == [None]


def test_editor_variables_fill_in_as_vs_code_and_cursor_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolsel.live.sources import _expander

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("B", "b")
    text = "${workspaceFolder}|${userHome}|${env:B}|${env:}|${input:k}|${B}|${unknown}"
    home = tmp_path / "home"
    for client in ("VS Code", "Cursor"):
        assert _expander(client, tmp_path / "w" / ".vscode" / "mcp.json")(text) == (
            f"{tmp_path / 'w'}|{home}|b||${{input:k}}|${{B}}|${{unknown}}"
        )
        assert _expander(client, tmp_path / "w" / "team" / "mcp.json")("${workspaceFolder}") == (
            str(tmp_path / "w" / "team")
        )
        assert _expander(client, None)(text) == text
    for client in ("Gemini CLI", "Codex", "Claude Desktop", "MCP client"):
        assert _expander(client, tmp_path / ".vscode" / "mcp.json")(text) == text
    claude = _expander("Claude Code", None)
    monkeypatch.delenv("NOPE", raising=False)
    assert claude("${B}-${B:-x}-${NOPE:-d}-${NOPE:-}-${NOPE}-$B-${env:B}") == (
        "b-b-d--${NOPE}-$B-${env:B}"
    )
