"""Live MCP servers as registries, from the command line: `-r 'mcp:CMD'`, client configs
with and without --connect, the cache and --refresh, one line per failing server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from tests.live.mcp_servers import __file__ as SERVERS_FILE

SERVERS = Path(SERVERS_FILE)


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSEL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TOOLSEL_NO_CONFIG", "1")


def command(mode: str, *args: str) -> str:
    return f"{sys.executable} {SERVERS} {mode} {' '.join(args)}".strip()


def config(path: Path, **servers: str) -> Path:
    entries = {}
    for name, line in servers.items():
        argv = line.split()
        entries[name] = {"command": argv[0], "args": argv[1:]}
    path.write_text(json.dumps({"mcpServers": entries}))
    return path


def test_rank_a_stdio_server_named_on_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(*["rank", "-r", f"gh=mcp:{command('pager')}", "merge the pull request",
                  "--format", "json", "--top", "2"])  # fmt: skip
    assert result.exit_code == 0, result.stderr
    tools = [t["name"] for t in json.loads(result.stdout)["results"]]
    assert tools[0] == "mcp__gh__merge_pull_request"


def test_a_config_is_not_started_without_connect(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = config(tmp_path / ".mcp.json", github=command("pager"), broken=command("crash"))
    result = cli(*["lint", str(path)])
    assert result.exit_code == 2
    assert "2 MCP servers, not started: github: " in result.stderr
    assert "pass --connect" in result.stderr
    assert not (tmp_path / "cache").exists()  # nothing was started, nothing written


def test_connect_loads_every_server_namespaced_and_a_failing_one_is_one_line(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path
) -> None:
    path = config(tmp_path / ".mcp.json", github=command("pager"), broken=command("crash"))
    result = cli(*["convert", str(path), "--connect", "--to", "mcp"])
    assert result.exit_code == 0, result.stderr
    names = {t["name"] for t in json.loads(result.stdout)["tools"]}
    assert "mcp__github__create_issue" in names and len(names) == 5
    errors = [line for line in result.stderr.splitlines() if "broken" in line]
    assert len(errors) == 1 and "GITHUB_TOKEN is not set" in errors[0]


def test_the_list_is_cached_until_refresh(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    names = tmp_path / "names.txt"
    names.write_text("alpha\n")
    source = f"s=mcp:{command('changing', str(names))}"

    def listed(*extra: str) -> list[str]:
        result = cli(*["convert", source, "--to", "mcp", *extra])
        assert result.exit_code == 0, result.stderr
        return [t["name"] for t in json.loads(result.stdout)["tools"]]

    assert listed() == ["mcp__s__alpha"]
    names.write_text("alpha\nbeta\n")  # the server changes its tools
    assert listed() == ["mcp__s__alpha"]  # cached
    assert listed("--refresh") == ["mcp__s__alpha", "mcp__s__beta"]
    assert listed() == ["mcp__s__alpha", "mcp__s__beta"]


def test_a_server_that_fails_on_the_command_line_is_exit_2(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(*["rank", "-r", f"mcp:{command('crash')}", "anything"])
    assert result.exit_code == 2
    assert "GITHUB_TOKEN is not set" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_hanging_server_obeys_mcp_timeout(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(*["rank", "-r", f"mcp:{command('hang')}", "x", "--mcp-timeout", "4"])
    assert result.exit_code == 2
    assert "took longer than 4 s to answer" in result.stderr  # initialize, on a loaded machine


def test_env_reaches_the_server_and_bad_values_are_one_line(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(*["convert", f"mcp:{command('echo-env')}", "--env", "GREETING=hi from env",
                  "--to", "mcp"])  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["tools"][0]["description"] == "hi from env"
    bad = cli(*["convert", f"mcp:{command('echo-env')}", "--env", "NOEQUALS", "--to", "mcp"])
    assert bad.exit_code == 2 and "is not KEY=VALUE" in bad.stderr


def test_replay_checks_calls_against_a_live_server(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    transcript = tmp_path / "session.jsonl"
    lines = [
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "mcp__gh__list_issues", "input": {"x": "a"}},
            {"type": "tool_use", "id": "t2", "name": "mcp__gh__no_such", "input": {}}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "ok"}]}},
    ]  # fmt: skip
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = cli(
        *["replay", str(transcript), "-r", f"gh=mcp:{command('pager')}", "--format", "json"]
    )
    assert result.exit_code == 1, result.stderr
    assert "mcp__gh__no_such" in result.stdout and "unknown" in result.stdout
    assert "mcp__gh__list_issues" not in json.dumps(json.loads(result.stdout).get("violations", []))


def test_a_project_configs_own_connect_allows_nothing_and_trust_does(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, monkeypatch
) -> None:
    """`connect = true` in a cloned repository's config is the repository trusting itself:
    it starts nothing. `toolsel trust` records the user's say, for those exact contents."""
    monkeypatch.delenv("TOOLSEL_NO_CONFIG")
    path = config(tmp_path / ".mcp.json", github=command("pager"))
    (tmp_path / "toolsel.toml").write_text('registry = [".mcp.json"]\nconnect = true\n')
    ranked = ["rank", "create an issue", "--format", "json", "--top", "1"]
    refused = cli(*ranked)
    assert refused.exit_code == 2 and "1 MCP server, not started" in refused.stderr
    assert "never counts" in refused.stderr and not (tmp_path / "cache").exists()

    trusted = cli("trust")
    assert trusted.exit_code == 0, trusted.stderr
    assert "toolsel.toml: trusted (sha256 " in trusted.stdout
    assert (
        ".mcp.json: trusted (sha256 " in trusted.stdout
        and "it may start 1: github: " in trusted.stdout
    )
    result = cli(*ranked)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["results"][0]["name"] == "mcp__github__create_issue"

    # a changed file is not trusted any more, until trusted again
    config(path, github=command("pager"), other=command("crash"))
    again = cli(*ranked, "--refresh")
    assert again.exit_code == 2 and "changed since you trusted it" in again.stderr
    assert "changed since trusted" in cli("trust", "--list").stdout
    assert cli("trust", str(path)).exit_code == 0
    assert cli("trust", "--revoke", str(path)).stdout.endswith(".mcp.json: no longer trusted\n")
    assert cli(*ranked).exit_code == 2


@pytest.mark.parametrize("grant", ["environment", "user config"])
def test_the_environment_or_the_users_own_config_allows_connecting(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, monkeypatch, grant: str
) -> None:
    path = config(tmp_path / ".mcp.json", github=command("pager"))
    if grant == "environment":
        monkeypatch.setenv("TOOLSEL_CONNECT", "1")
    else:
        import os

        (Path(os.environ["TOOLSEL_CONFIG_DIR"]) / "config.toml").write_text("connect = true\n")
    result = cli("rank", "-r", str(path), "create an issue", "--format", "json", "--top", "1")
    assert result.exit_code == 0, result.stderr


def test_lock_pins_a_live_server_and_check_fetches_it_anew(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A rug pull: the server changes a tool after it was approved; `lock --check` asks the
    server again (a cached list would hide the change) and names the tool."""
    names = tmp_path / "names.txt"
    names.write_text("alpha\n")
    source = f"s=mcp:{command('changing', str(names))}"
    assert cli(*["lock", "-r", source]).exit_code == 0
    document = json.loads((tmp_path / "toolsel.lock").read_text())
    [label] = document["sources"]
    assert label.startswith("mcp:") and "mcp_servers.py changing" in label  # not a cache path
    assert cli(*["lock", "-r", source, "--check"]).exit_code == 0
    names.write_text("alpha\nbeta\n")
    changed = cli(*["lock", "-r", source, "--check"])
    assert changed.exit_code == 1
    assert "mcp__s__beta" in changed.stdout


def test_a_project_config_never_starts_a_server_without_connect(
    cli, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """A cloned repository's config naming `mcp:CMD` must not run CMD on `toolsel rank`."""
    monkeypatch.delenv("TOOLSEL_NO_CONFIG")
    marker = tmp_path / "ran"
    (tmp_path / "toolsel.toml").write_text(
        f'registry = ["mcp:{sys.executable} -c \'open(\\"{marker}\\", \\"w\\")\'"]\n'
    )
    result = cli("rank", "anything")
    assert result.exit_code == 2
    assert "`registry` names a live MCP server, not started" in result.stderr
    assert "pass --connect" in result.stderr
    assert not marker.exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x00\x01binary\xff" * 10, "cannot read this client config"),
        (b'{"mcpServers": {"a": {"command": "caf\xe9"}}}', "not UTF-8"),
        (b'{"mcpServers": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
        (b"", "invalid JSON"),
        (b'{"mcpServers": {"a": }}', ".mcp.json:1:22: invalid JSON"),
    ],
    ids=["binary", "not-utf8", "deep", "empty", "broken"],
)
def test_a_bad_client_config_is_one_line(cli, tmp_path: Path, content: bytes, message: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / ".mcp.json"
    path.write_bytes(content)
    result = cli("lint", str(path), "--connect")
    assert result.exit_code == 2, result.stdout
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_a_huge_client_config_is_refused_before_it_is_read(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, monkeypatch
) -> None:
    import toolsel.live.configfile as configfile

    monkeypatch.setattr(configfile, "MAX_CONFIG_BYTES", 1000)
    path = tmp_path / "claude_desktop_config.json"
    path.write_text('{"mcpServers": {"a": {"command": "x", "args": ["' + "y" * 5000 + '"]}}}')
    result = cli("lint", str(path), "--connect")
    assert result.exit_code == 2
    assert "cannot read this client config" in result.stderr and "limit" in result.stderr


def test_a_config_entry_that_cannot_be_started_is_said_and_the_rest_load(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path
) -> None:
    path = tmp_path / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {
        "github": {"command": sys.executable, "args": [str(SERVERS), "pager"]},
        "empty": {"env": {"A": "1"}},
        "off": {"command": "nowhere", "disabled": True},
    }}))  # fmt: skip
    result = cli("convert", str(path), "--connect", "--to", "mcp")
    assert result.exit_code == 0, result.stderr
    assert len(json.loads(result.stdout)["tools"]) == 5
    assert (
        "server 'empty' (" in result.stderr and "neither a `command` nor a `url`" in result.stderr
    )
    assert "'off'" not in result.stderr  # disabled on purpose: nothing to say


def test_a_rug_pull_on_a_configs_server_names_the_config_and_the_server(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path
) -> None:
    """The lock names the server as the config does, relative to the lock; a changed
    annotation of a live tool is that one field, located at `.mcp.json#server`."""
    tools = tmp_path / "tools.json"
    tool = {"name": "get_file", "description": "Read a file.", "inputSchema": {"type": "object"}}
    tools.write_text(json.dumps([{**tool, "annotations": {"readOnlyHint": True}}]))
    config(tmp_path / ".mcp.json", files=command("changing-json", str(tools)))
    assert cli("lock", "-r", ".mcp.json", "--connect").exit_code == 0
    document = json.loads((tmp_path / "toolsel.lock").read_text())
    assert list(document["sources"]) == [".mcp.json#files"]
    assert cli("lock", "-r", ".mcp.json", "--connect", "--check").exit_code == 0
    tools.write_text(json.dumps([{**tool, "annotations": {"destructiveHint": True}}]))
    checked = cli("lock", "-r", ".mcp.json", "--connect", "--check")
    assert checked.exit_code == 1
    [line] = [x for x in checked.stdout.splitlines() if x.endswith(" changed")]
    assert line.startswith(".mcp.json#files:")
    assert line.endswith("mcp__files__get_file: annotations `annotations` changed")
    assert "cache" not in checked.stdout
