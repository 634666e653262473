"""A repository's own files never make toolsel run code or send a credential: tried as an
attacker would, with a cloned repository whose config names a command and a URL."""

from __future__ import annotations

import http.server
import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from tests.conftest import Cli
from toolsel.sources import trust

pytest.importorskip("mcp")

from tests.live.mcp_servers import __file__ as SERVERS_FILE

SERVERS = Path(SERVERS_FILE)
SECRET = "AKIAZZZZZZZZZZZZZZZZ-not-a-real-key-0042"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cloned repository (it has .git) with a registry, the current folder in it."""
    root = tmp_path / "clone"
    (root / ".git").mkdir(parents=True)
    (root / "registries").mkdir()
    (root / "registries" / "r.yaml").write_text(
        "tools:\n- {name: read_file, description: Read one file from the disk.}\n"
    )
    monkeypatch.chdir(root)
    monkeypatch.delenv("TOOLSEL_NO_CONFIG", raising=False)
    return root


def marker_command(marker: Path) -> str:
    return f'{sys.executable} -c \'open("{marker}", "w").close()\''


@pytest.mark.parametrize("connect_line", ["connect = true\n", ""])
@pytest.mark.parametrize("command", [("lint",), ("rank", "x"), ("lock",), ("deps", "--all")])
def test_a_cloned_repositorys_config_never_runs_its_command(
    cli: Cli, repo: Path, connect_line: str, command: tuple[str, ...]
) -> None:
    marker = repo.parent / "ran"
    entry = json.dumps(f"mcp:{marker_command(marker)}")  # a TOML basic string too
    (repo / "toolsel.toml").write_text(f"registry = [{entry}]\n{connect_line}")
    deep = repo / "src" / "pkg"
    deep.mkdir(parents=True)
    os.chdir(deep)  # anywhere inside the checkout
    result = cli(*command)
    assert result.exit_code == 2, result.stderr
    assert "names a live MCP server, not started" in result.stderr
    assert "toolsel trust" in result.stderr and "--connect" in result.stderr
    assert not marker.exists()


def test_a_client_config_that_a_repository_names_is_not_started(cli: Cli, repo: Path) -> None:
    marker = repo.parent / "ran"
    (repo / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "evil": {"command": sys.executable, "args": ["-c", f"open('{marker}', 'w')"]}
                }
            }
        )
    )
    (repo / "toolsel.toml").write_text('registry = [".mcp.json"]\nconnect = true\n')
    for command in (("lint",), ("rank", "x"), ("replay", "-r", ".mcp.json", "/dev/null")):
        result = cli(*command)
        assert result.exit_code == 2, (command, result.stderr)
        assert "1 MCP server, not started: evil: " in result.stderr
    assert not marker.exists()


def test_the_config_search_stops_at_the_repositorys_root(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A toolsel.toml above the checkout (a shared folder, a parent's) is not the project's."""
    (tmp_path / "toolsel.toml").write_text('registry = ["elsewhere.yaml"]\n')
    (tmp_path / "elsewhere.yaml").write_text(
        "tools:\n- {name: planted_tool, description: A tool from above the repository.}\n"
    )
    repo = tmp_path / "checkout"
    (repo / ".git").mkdir(parents=True)
    (repo / "registries").mkdir()
    (repo / "registries" / "r.yaml").write_text(
        "tools:\n- {name: own_tool, description: The repository's own tool.}\n"
    )
    monkeypatch.chdir(repo)  # restored after the test: a later one must not run in it
    ranked = json.loads(cli("rank", "tool", "-f", "json").stdout)
    assert [r["name"] for r in ranked["results"]] == ["own_tool"]
    # inside a checkout with a config of its own, that one is read (the search works)
    (repo / "toolsel.toml").write_text('registry = ["registries/r.yaml"]\n')
    assert json.loads(cli("rank", "tool", "-f", "json").stdout)["results"][0]["name"] == "own_tool"


def test_a_config_in_a_folder_another_user_owns_is_not_read(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "toolsel.toml").write_text('registry = ["mcp:evil-command"]\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TOOLSEL_NO_CONFIG", raising=False)
    me = os.geteuid()
    monkeypatch.setattr(os, "geteuid", lambda: me + 1)  # every folder is someone else's
    from toolsel.sources import project

    monkeypatch.setattr(project, "_SAID", set())
    result = cli("lint")
    assert result.exit_code == 2
    assert "not reading its toolsel config: the folder belongs to another user" in result.stderr
    assert "evil-command" not in result.stderr


def test_trust_is_of_the_files_exact_contents(repo: Path) -> None:
    config = repo / "toolsel.toml"
    config.write_text('registry = ["mcp:server"]\n')
    assert trust.connect_grant(config) is None
    [record] = trust.trust([config])
    assert record.state is trust.TrustState.TRUSTED
    assert trust.connect_grant(config) == f"trusted {config}"
    assert trust.credentials_allowed(config)
    config.write_text('registry = ["mcp:other-server"]\n')
    assert trust.state(config).state is trust.TrustState.CHANGED
    assert trust.connect_grant(config) is None and not trust.credentials_allowed(config)
    assert "changed since you trusted it" in trust.refusal_hint(config)
    trust.revoke([config])
    assert trust.state(config).state is trust.TrustState.UNTRUSTED


def test_a_damaged_trust_store_is_one_line(cli: Cli, repo: Path) -> None:
    trust.store_path().write_text("{not json")
    result = cli("trust", "--list")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "cannot read the trusted files" in result.stderr


@pytest.mark.parametrize("text", ["[]", '"x"', "3", "null"])
def test_a_trust_store_that_is_not_an_object_is_one_line(cli: Cli, repo: Path, text: str) -> None:
    trust.store_path().write_text(text)
    result = cli("trust", "--list")
    assert (result.exit_code, result.stderr) == (
        2,
        f"toolsel: error: {trust.store_path()}: not a toolsel-trust-1 file (remove it)\n",
    )


def test_trust_without_a_project_config_says_what_to_name(cli: Cli, repo: Path) -> None:
    result = cli("trust")
    assert result.exit_code == 2 and "no project config here to trust" in result.stderr
    assert cli("trust", "nope.json").exit_code == 2


class Recorder(http.server.BaseHTTPRequestHandler):
    """An HTTP server that records each request's Authorization header, and refuses it."""

    seen: ClassVar[list[str | None]] = []

    def do_POST(self) -> None:
        self.seen.append(self.headers.get("Authorization"))
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(401)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def recorder() -> Iterator[tuple[str, list[str | None]]]:
    seen: list[str | None] = []
    handler = type("Handler", (Recorder,), {"seen": seen})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/mcp", seen
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_the_token_goes_only_to_urls_the_user_named_or_trusted(
    cli: Cli, repo: Path, monkeypatch: pytest.MonkeyPatch, recorder: tuple[str, list[str | None]]
) -> None:
    url, seen = recorder
    monkeypatch.setenv("TOOLSEL_MCP_TOKEN", SECRET)
    config = repo / "toolsel.toml"
    config.write_text(f'registry = ["{url}"]\nconnect = true\n')
    refused = cli("rank", "x")
    assert refused.exit_code == 2 and seen == []  # not even reached

    reached = cli("rank", "x", "--connect", "--mcp-timeout", "5")
    assert reached.exit_code == 2 and "401" in reached.stderr
    assert seen and all(header is None for header in seen)  # reached, with no token
    assert SECRET not in reached.stderr + reached.stdout

    seen.clear()
    typed = cli("rank", "x", "-r", url, "--mcp-timeout", "5")
    assert typed.exit_code == 2 and seen and set(seen) == {f"Bearer {SECRET}"}
    assert SECRET not in typed.stderr + typed.stdout

    seen.clear()
    assert cli("trust", str(config)).exit_code == 0
    trusted = cli("rank", "x", "--mcp-timeout", "5", "--refresh")
    assert trusted.exit_code == 2 and set(seen) == {f"Bearer {SECRET}"}


@pytest.mark.parametrize(
    ("command", "output"),
    [
        (("lint",), "human"),
        (("lint", "-f", "sarif"), "sarif"),
        (("lint", "-f", "json"), "json"),
        (("lint", "-f", "github"), "github"),
        (("rank", "x"), "human"),
        (("rank", "x", "-f", "json"), "json"),
        (("prompt",), "human"),
        (("deps", "--all"), "human"),
    ],
)
def test_variables_are_shown_as_written_and_secrets_never(
    cli: Cli, repo: Path, monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...], output: str
) -> None:
    """A `.mcp.json` naming ${AWS_SECRET_ACCESS_KEY}: its value is never expanded for a
    message, in any output; secrets written in the file itself are masked."""
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    (repo / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "aws": {
                        "command": "npx",
                        "args": ["-y", "aws-server", "--secret", "${AWS_SECRET_ACCESS_KEY}",
                                 "--api-key=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123"],
                        "env": {"KEY": "${AWS_SECRET_ACCESS_KEY}"},
                    },
                    "web": {
                        "url": "https://user:hunter2pw@mcp.example.com/mcp?token=${AWS_SECRET_ACCESS_KEY}&sig=abc123def456",
                        "headers": {"Authorization": "Bearer ${AWS_SECRET_ACCESS_KEY}"},
                    },
                }
            }
        )
    )  # fmt: skip
    (repo / "toolsel.toml").write_text('registry = ["registries", ".mcp.json"]\n')
    result = cli(*command)
    everything = result.stdout + result.stderr
    assert result.exit_code == 2, everything
    assert SECRET not in everything
    assert "sk-ant-api03" not in everything and "hunter2pw" not in everything
    assert "abc123def456" not in everything
    assert "${AWS_SECRET_ACCESS_KEY}" in everything  # as written


# -- the trust store, through real files in the user's config folder ---------------------


def _sha(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_trust_records_each_files_contents_in_a_private_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "user" / "toolsel"
    monkeypatch.setenv("TOOLSEL_CONFIG_DIR", str(folder))
    first, second = tmp_path / "b.toml", tmp_path / "a.json"
    first.write_text('registry = ["mcp:one"]\n')
    second.write_text('{"mcpServers": {}}\n')
    records = trust.trust([first, second])
    assert records == [
        trust.TrustRecord(first.resolve(), trust.TrustState.TRUSTED, _sha(first)),
        trust.TrustRecord(second.resolve(), trust.TrustState.TRUSTED, _sha(second)),
    ]
    store = folder / "trusted.json"
    assert trust.store_path() == store
    assert folder.stat().st_mode & 0o777 == 0o700
    assert (
        store.read_text()
        == json.dumps(
            {
                "schema": "toolsel-trust-1",
                "files": {str(second.resolve()): _sha(second), str(first.resolve()): _sha(first)},
            },
            indent=2,
        )
        + "\n"
    )
    assert trust.trusted_files() == [
        trust.TrustRecord(second.resolve(), trust.TrustState.TRUSTED, _sha(second)),
        trust.TrustRecord(first.resolve(), trust.TrustState.TRUSTED, _sha(first)),
    ]


def test_a_changed_or_unreadable_trusted_file_is_no_longer_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "toolsel.toml"
    config.write_text('registry = ["mcp:one"]\n')
    [record] = trust.trust([config])
    recorded = record.sha256
    config.write_text('registry = ["mcp:two"]\n')
    assert trust.state(config) == trust.TrustRecord(
        config.resolve(), trust.TrustState.CHANGED, recorded
    )
    config.write_text('registry = ["mcp:one"]\n')  # the same bytes again: trusted again
    assert trust.state(config).state is trust.TrustState.TRUSTED
    monkeypatch.setattr(trust, "MAX_TRUSTED_BYTES", 4)
    assert trust.state(config) == trust.TrustRecord(
        config.resolve(), trust.TrustState.CHANGED, recorded
    )
    config.unlink()
    assert trust.state(config).state is trust.TrustState.CHANGED
    assert trust.trusted_files() == [
        trust.TrustRecord(config.resolve(), trust.TrustState.CHANGED, recorded)
    ]


def test_a_file_that_cannot_be_read_whole_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "toolsel.toml"
    config.write_text('registry = ["mcp:one"]\n')
    monkeypatch.setattr(trust, "MAX_TRUSTED_BYTES", 4)
    with pytest.raises(trust.ConfigError) as refused:
        trust.trust([config])
    assert str(refused.value) == (
        f"{config.resolve()}: cannot read it to trust it: file is 23 bytes, over the 4-byte limit"
    )
    with pytest.raises(trust.ConfigError) as missing:
        trust.trust([tmp_path / "nope.json"])
    assert str(missing.value) == f"{tmp_path / 'nope.json'}: no such file to trust"
    with pytest.raises(trust.ConfigError, match="no such file to trust"):
        trust.trust([tmp_path])  # a folder is no file
    assert not trust.store_path().exists()  # nothing recorded


def test_revoke_forgets_a_trust_and_says_which_files_had_none(tmp_path: Path) -> None:
    kept, dropped, never = (tmp_path / name for name in ("kept.json", "dropped.json", "never.json"))
    for path in (kept, dropped, never):
        path.write_text("{}\n")
    trust.trust([kept, dropped])
    assert trust.revoke([dropped, never]) == [
        trust.TrustRecord(dropped.resolve(), trust.TrustState.UNTRUSTED, _sha(dropped)),
        trust.TrustRecord(never.resolve(), trust.TrustState.UNTRUSTED, None),
    ]
    assert [r.path for r in trust.trusted_files()] == [kept.resolve()]
    assert trust.state(dropped) == trust.TrustRecord(
        dropped.resolve(), trust.TrustState.UNTRUSTED, None
    )


@pytest.mark.parametrize(
    ("text", "message", "hint"),
    [
        ("{not json", "cannot read the trusted files: Expecting property name enclosed in double "
         "quotes: line 1 column 2 (char 1)",
         "remove it and trust the files again (toolsel trust FILE)"),
        ('{"schema": "toolsel-trust-2", "files": {}}', "not a toolsel-trust-1 file", "remove it"),
        ('{"files": {}}', "not a toolsel-trust-1 file", "remove it"),
        ('{"schema": "toolsel-trust-1", "files": []}', "not a toolsel-trust-1 file", "remove it"),
        ('{"schema": "toolsel-trust-1"}', "not a toolsel-trust-1 file", "remove it"),
    ],
)  # fmt: skip
def test_a_damaged_store_is_refused_with_what_to_do(text: str, message: str, hint: str) -> None:
    trust.store_path().write_text(text)
    with pytest.raises(trust.ConfigError) as refused:
        trust.trusted_files()
    assert (refused.value.message, refused.value.hint) == (f"{trust.store_path()}: {message}", hint)


@pytest.mark.parametrize("text", ["[]", '"x"', "3"])
def test_a_store_that_is_not_an_object_is_refused(text: str) -> None:
    trust.store_path().write_text(text)
    with pytest.raises(trust.ConfigError, match="not a toolsel-trust-1 file"):
        trust.trusted_files()


def test_entries_of_the_store_that_are_not_a_path_and_a_digest_are_ignored(
    tmp_path: Path,
) -> None:
    config = tmp_path / "toolsel.toml"
    config.write_text("connect = true\n")
    files = {str(config.resolve()): _sha(config), str(tmp_path / "x"): 5}
    trust.store_path().write_text(json.dumps({"schema": "toolsel-trust-1", "files": files}))
    assert trust.trusted_files() == [
        trust.TrustRecord(config.resolve(), trust.TrustState.TRUSTED, _sha(config))
    ]
    trust.revoke([tmp_path / "other"])  # rewriting the store drops them
    assert json.loads(trust.store_path().read_text())["files"] == {
        str(config.resolve()): _sha(config)
    }


def test_who_may_start_the_servers_a_file_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In order: the command line, --connect, TOOLSEL_CONNECT, the user's own config, a
    trust of the file's exact contents; nothing else, and never the file itself."""
    from toolsel.live import LiveSettings, live_settings

    config = tmp_path / "toolsel.toml"
    config.write_text('registry = ["mcp:server"]\nconnect = true\n')
    assert trust.connect_grant(None) == "the command line"
    assert trust.credentials_allowed(None) is True
    assert trust.connect_grant(config) is None
    assert trust.credentials_allowed(config) is False
    with live_settings(LiveSettings(connect=True)):
        assert trust.connect_grant(config) == "--connect"
        assert trust.credentials_allowed(config) is False  # --connect sends no credential
    for value in ("1", "true", "YES", "True"):
        monkeypatch.setenv("TOOLSEL_CONNECT", value)
        assert trust.connect_grant(config) == "TOOLSEL_CONNECT=1"
    for value in ("0", "no", "", "false", "on"):
        monkeypatch.setenv("TOOLSEL_CONNECT", value)
        assert trust.connect_grant(config) is None
    monkeypatch.delenv("TOOLSEL_CONNECT")
    user = trust.store_path().parent / "config.toml"
    user.write_text("connect = false\n")
    assert trust.connect_grant(config) is None
    user.write_text("connect = true\n")
    assert trust.connect_grant(config) == f"connect = true in {user}"
    assert trust.credentials_allowed(config) is False
    user.unlink()
    trust.trust([config])
    assert trust.connect_grant(config) == f"trusted {config}"
    assert trust.credentials_allowed(config) is True


def test_the_refusal_says_how_to_allow_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = Path(".mcp.json")
    config.write_text('{"mcpServers": {}}\n')
    assert trust.refusal_hint(config) == (
        "starting them runs what the file names: pass --connect for this run, or read the "
        "file and run `toolsel trust .mcp.json` (a project's own `connect = true` never "
        "counts: the repository would be trusting itself)"
    )
    trust.trust([config])
    config.write_text('{"mcpServers": {"x": {}}}\n')
    assert trust.refusal_hint(config) == (
        ".mcp.json changed since you trusted it: read it again, then run "
        "`toolsel trust .mcp.json`; or pass --connect for this run"
    )
