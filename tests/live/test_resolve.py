"""toolsel/live/__init__.py: a live source as the snapshot file of its `tools/list`, cached
until --refresh and fetched once per command; credentials only with leave; a client
config's servers, each failing one said in one line."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from tests.live.mcp_servers import __file__ as SERVERS_FILE
from toolsel.errors import RegistryError
from toolsel.live import (
    LiveSettings,
    Timeouts,
    current,
    live_settings,
    not_connected,
    resolve_config,
    resolve_live,
    snapshot_label,
    snapshot_origin,
)
from toolsel.live.fetch import Failed
from toolsel.live.sources import Server, command_server

SERVERS = Path(SERVERS_FILE)


def command(mode: str, *args: str) -> str:
    return " ".join([sys.executable, str(SERVERS), mode, *args])


def cache() -> Path:
    return Path(os.environ["TOOLSEL_CACHE_DIR"]) / "mcp"


def listed(path: Path) -> list[str]:
    return [tool["name"] for tool in json.loads(path.read_text(encoding="utf-8"))["tools"]]


def test_the_settings_hold_for_one_command_and_default_to_nothing_allowed() -> None:
    assert current() == LiveSettings(False, False, (), (), Timeouts(30.0, 30.0), None)
    assert current().fetched == {} and current().fetched is not current().fetched
    mine = LiveSettings(connect=True)
    with live_settings(mine) as given:
        assert given is mine and current() is mine
        with live_settings(LiveSettings(refresh=True)):
            assert current().refresh is True and current().connect is False
        assert current() is mine
    assert current() == LiveSettings()


def test_a_server_on_the_command_line_is_a_snapshot_file_beside_what_it_is(
    tmp_path: Path,
) -> None:
    [(path, name)] = resolve_live("stdio", command("pager"), None, credentials=False)
    server = command_server(command("pager"), None, {})
    assert name is None
    assert path == cache() / f"mcp_servers-{server.identity()[:20]}.json"
    assert cache().stat().st_mode & 0o777 == 0o700
    text = path.read_text(encoding="utf-8")
    assert text == json.dumps({"tools": json.loads(text)["tools"]}, indent=2) + "\n"
    assert listed(path) == [
        "create_issue", "list_issues", "delete_branch", "get_file", "merge_pull_request",
    ]  # fmt: skip
    meta = path.with_suffix(".meta.json").read_text(encoding="utf-8")
    assert (
        meta
        == json.dumps(
            {
                "server": "mcp_servers",
                "target": command("pager"),
                "origin": None,
                "server_info": {"name": "test-pager", "version": "1.0"},
                "tools": 5,
            },
            indent=2,
        )
        + "\n"
    )
    assert snapshot_label(str(path)) == f"mcp:{command('pager')}"
    assert snapshot_origin(str(path)) is None
    [(named, given)] = resolve_live("stdio", command("pager"), "gh", credentials=False)
    assert given == "gh" and named.name.startswith("gh-") and named != path


def test_a_cache_folder_not_made_yet_is_made_with_its_parents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLSEL_CACHE_DIR", str(tmp_path / "new" / "cache"))
    [(path, _)] = resolve_live("stdio", command("pager"), None, credentials=False)
    assert path.parent == tmp_path / "new" / "cache" / "mcp"
    assert len(listed(path)) == 5


def test_a_text_in_any_script_is_kept_as_the_server_wrote_it(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(
        json.dumps(
            [{"name": "café", "description": "Ünïcode ☕.", "inputSchema": {"type": "object"}}]
        )
    )
    [(path, _)] = resolve_live(
        "stdio", command("changing-json", str(tools)), "c", credentials=False
    )
    assert "Ünïcode ☕." in path.read_text(encoding="utf-8")


def test_a_list_is_cached_until_refresh_and_fetched_once_per_command(tmp_path: Path) -> None:
    names = tmp_path / "names.txt"
    names.write_text("alpha\n")
    source = command("changing", str(names))
    [(path, _)] = resolve_live("stdio", source, "s", credentials=False)
    assert listed(path) == ["alpha"]
    names.write_text("alpha\nbeta\n")
    assert resolve_live("stdio", source, "s", credentials=False) == [(path, "s")]
    assert listed(path) == ["alpha"]  # the cached list: nothing was started
    with live_settings(LiveSettings(refresh=True)) as settings:
        resolve_live("stdio", source, "s", credentials=False)
        assert listed(path) == ["alpha", "beta"]
        names.write_text("gamma\n")
        resolve_live("stdio", source, "s", credentials=False)  # the same command: not again
        assert listed(path) == ["alpha", "beta"]
        assert list(settings.fetched.values()) == [path]
    with live_settings(LiveSettings(refresh=True)):
        resolve_live("stdio", source, "s", credentials=False)
    assert listed(path) == ["gamma"]


def test_a_server_that_fails_is_an_error_naming_it_and_is_not_asked_twice(tmp_path: Path) -> None:
    lines: list[str] = []
    with live_settings(LiveSettings(report=lines.append)) as settings:
        for _ in range(2):
            with pytest.raises(RegistryError) as failed:
                resolve_live("stdio", command("crash"), "gh", credentials=False)
            assert str(failed.value) == (
                "server 'gh': during initialize: the server exited; "
                'its stderr: "fatal: GITHUB_TOKEN is not set"'
            )
        [result] = settings.fetched.values()
        assert isinstance(result, Failed)
    assert lines == []  # the error says it: no line besides
    assert list(cache().glob("gh-*")) == []


def test_the_users_environment_goes_to_the_server_only_with_credentials() -> None:
    settings = LiveSettings(env=(("GREETING", "hello"),), refresh=True)
    with live_settings(settings):
        [(without, _)] = resolve_live("stdio", command("echo-env"), "e", credentials=False)
        assert json.loads(without.read_text())["tools"][0]["description"] == "none"
        [(given, _)] = resolve_live("stdio", command("echo-env"), "e", credentials=True)
        assert json.loads(given.read_text())["tools"][0]["description"] == "hello"
    assert given != without  # another environment: another server


def test_the_users_headers_go_to_a_url_only_with_credentials() -> None:
    from tests.live.test_fetch import http_server

    settings = LiveSettings(headers=(("Authorization", "Bearer s3cret"),))
    with http_server("pager", token="s3cret") as url, live_settings(settings):
        with pytest.raises(RegistryError) as refused:
            resolve_live("http", url, "web", credentials=False)
        [(path, name)] = resolve_live("http", url, "web", credentials=True)
    assert str(refused.value).startswith("server 'web': during initialize: HTTP 401 Unauthorized")
    assert (len(listed(path)), name) == (5, "web")
    assert snapshot_label(str(path)) == url


def _config(path: Path, servers: dict[str, dict[str, object]]) -> Path:
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def _entry(mode: str, *args: str) -> dict[str, object]:
    return {"command": sys.executable, "args": [str(SERVERS), mode, *args]}


def test_a_configs_servers_each_a_snapshot_and_each_failure_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    monkeypatch.setenv("SECRET_VAR", "hunter2-secret-value")
    config = _config(
        Path(".mcp.json"),
        {
            "github": _entry("pager"),
            "broken": _entry("crash"),
            "off": {**_entry("pager"), "disabled": True},
            "empty": {"env": {"A": "1"}},
            "unset": {"command": "${NOT_SET_ANYWHERE}/server"},
            "echo": {**_entry("echo-env", "${SECRET_VAR}"), "env": {"GREETING": "${SECRET_VAR}"}},
        },
    )
    lines: list[str] = []
    with live_settings(LiveSettings(report=lines.append)):
        found = resolve_config(config)
    assert [name for _, name in found] == ["github", "echo"]
    assert lines == [
        "server 'empty' (.mcp.json): the entry has neither a `command` nor a `url`; left out",
        "server 'unset' (.mcp.json): ${NOT_SET_ANYWHERE} not set and without a default "
        "(Claude Code would not start it); left out",
        "server 'broken' (.mcp.json): during initialize: the server exited; "
        'its stderr: "fatal: GITHUB_TOKEN is not set"',
    ]
    github = found[0][0]
    assert snapshot_origin(str(github)) == (".mcp.json", "github")
    assert snapshot_label(str(github)) == ".mcp.json#github"
    assert json.loads(github.with_suffix(".meta.json").read_text())["origin"] == ".mcp.json"
    assert resolve_config(config) == found  # cached, and no line without a reporter
    echo = found[1][0]  # started with the variable filled in, recorded as written
    assert json.loads(echo.read_text())["tools"][0]["description"] == "hunter2-secret-value"
    meta = echo.with_suffix(".meta.json").read_text()
    assert json.loads(meta)["target"] == f"{command('echo-env')} '${{SECRET_VAR}}'"
    assert "hunter2" not in meta


def test_a_config_whose_servers_all_fail_or_none_can_start(tmp_path: Path) -> None:
    config = _config(tmp_path / ".mcp.json", {"off": {"command": "x", "disabled": True}, "no": {}})
    with pytest.raises(RegistryError) as none:
        resolve_config(config)
    assert str(none.value) == (
        f"{config}: no MCP server in this file can be started (disabled or broken)"
    )
    _config(config, {"broken": _entry("crash")})
    with pytest.raises(RegistryError) as failed:
        resolve_config(config)
    assert str(failed.value) == f"{config}: no server listed its tools (see the lines above)"


def test_the_servers_a_config_names_as_written_when_they_may_not_start() -> None:
    origin = Path(".mcp.json")
    github = Server("github", "stdio", ("npx", "-y", "server-github", "--token", "ghp_x"))
    web = Server("web", "http", url="https://u:pw@h.example/mcp", disabled=True)
    empty = Server("empty", "stdio")
    assert not_connected(origin, [github, web, empty]) == (
        ".mcp.json: 3 MCP servers, not started: github: npx -y server-github --token '***'; "
        "web: https://u:***@h.example/mcp [disabled]; empty: (no command)"
    )
    assert not_connected(origin, [github]) == (
        ".mcp.json: 1 MCP server, not started: github: npx -y server-github --token '***'"
    )


def test_only_a_snapshot_with_its_record_is_labelled(tmp_path: Path) -> None:
    [(path, _)] = resolve_live("stdio", command("pager"), "p", credentials=False)
    meta = path.with_suffix(".meta.json")
    elsewhere = tmp_path / path.name
    elsewhere.write_text(path.read_text())
    (tmp_path / meta.name).write_text(meta.read_text())
    assert snapshot_label(str(elsewhere)) is None  # not in the cache: a file of the user's
    yaml = cache() / "p.yaml"
    yaml.write_text("tools: []\n")
    yaml.with_suffix(".meta.json").write_text(meta.read_text())
    assert snapshot_label(str(yaml)) is None
    for damaged in ("[1, 2]", "{not json", '"text"'):
        meta.write_text(damaged)
        assert (snapshot_label(str(path)), snapshot_origin(str(path))) == (None, None)
    meta.unlink()
    assert snapshot_label(str(path)) is None
    meta.write_text(json.dumps({"server": "p", "target": "https://h/mcp", "origin": ""}))
    assert (snapshot_label(str(path)), snapshot_origin(str(path))) == ("https://h/mcp", None)
    meta.write_text(json.dumps({"server": "p", "target": None}))
    assert snapshot_label(str(path)) == "mcp:"
