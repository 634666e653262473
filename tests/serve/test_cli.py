"""`toolsel serve` as a process: it binds, answers, drains on SIGTERM and keeps what it
acknowledged; and the refusals that come before it binds."""

from __future__ import annotations

import importlib.util
import json
import socket
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _request(url: str, body: object | None = None) -> object:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_serve_answers_drains_on_sigterm_and_keeps_records(tmp_path: Path, cli: Cli) -> None:
    from tests.serve.process import running_server

    db = f"sqlite:///{tmp_path / 'usage.sqlite3'}"
    with running_server(tmp_path, "--log-format", "json") as server:
        status, ranked = server.request("/v1/rank", {"query": "roll back the release"})
        assert status == 200
        assert ranked["results"][0]["name"] == "rollback_deployment"  # type: ignore[index]
        status, stored = server.request(
            "/v1/usage", [{"tool": "run_tests", "ok": True, "id": str(i)} for i in range(50)]
        )
        assert stored["stored"] == 50  # type: ignore[index]
    stderr = server.stderr
    assert server.process.returncode == 0, stderr
    lines = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    requests = [entry for entry in lines if entry.get("event") == "request"]
    assert {"method", "path", "status", "duration_ms"} <= set(requests[-1])
    ready = [entry["event"] for entry in lines if entry["event"].startswith("ranking index")]
    assert len(ready) == 1 and ready[0].startswith("ranking index ready: 43 tools, in ")
    assert "Traceback" not in stderr
    summary = json.loads(cli("stats", "--db", db, "--no-registry", "-f", "json").stdout)
    assert summary["tools"]["run_tests"]["calls"] == 50


def test_serve_refuses_a_public_address_without_a_token(cli: Cli) -> None:
    run = cli("serve", "--host", "0.0.0.0", "--port", "1")
    assert run.exit_code == 2 and "needs a token" in run.stderr


def test_serve_without_the_extra_says_how_to_install_it(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "fastapi" else real(name, *a)
    )
    for command in ("serve", "mcp"):
        run = cli(command)
        assert run.exit_code == 2 and "pip install 'toolsel[serve]'" in run.stderr


def test_stats_db_errors(cli: Cli, tmp_path: Path) -> None:
    assert cli("stats", "--db", "mysql://x").exit_code == 2
    assert cli("stats", "x.jsonl", "--db", f"sqlite:///{tmp_path / 'u.db'}").exit_code == 2
    transcript = str(ROOT / "transcripts" / "claude-code-session.jsonl")
    run = cli("stats", "--session", "s1", transcript)
    assert run.exit_code == 2 and "--db" in run.stderr
    # --since and --until read transcripts too: their calls, by their own time
    assert cli("stats", "--since", "2026-01-01", transcript).exit_code == 0


def test_serve_and_mcp_refuse_a_requires_cycle_in_one_line(cli: Cli, tmp_path: Path) -> None:
    registry = tmp_path / "tools.yaml"
    registry.write_text(
        "tools:\n  - name: a\n    description: A.\n    requires: [b]\n"
        "  - name: b\n    description: B.\n    requires: [a]\n",
        encoding="utf-8",
    )
    for command in (["serve", "--port", "1", "--no-embed"], ["mcp"]):
        run = cli(*command, "-r", str(registry))
        assert run.exit_code == 2, run.stderr
        assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1
        assert "requires cycle: a -> b -> a" in run.stderr


def test_serve_reads_its_token_from_a_file_or_the_environment(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolsel.cli.serve import _token

    secret = tmp_path / "token"
    secret.write_text("s3cret-token\n", encoding="utf-8")
    assert _token(None, secret) == "s3cret-token"
    secret.write_text("", encoding="utf-8")
    empty = cli("serve", "--token-file", str(secret), "--port", "1")
    assert empty.exit_code == 2 and "expected the token on one line" in empty.stderr
    missing = cli("serve", "--token-file", str(tmp_path / "nope"), "--port", "1")
    assert missing.exit_code == 2 and "--token-file" in missing.stderr
    monkeypatch.setenv("TOOLSEL_TOKEN", "from-env")
    assert _token("from-env", None) == "from-env"  # Typer passes the variable's value


def test_a_token_on_the_command_line_is_warned_about(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolsel.cli.serve import _token

    monkeypatch.delenv("TOOLSEL_TOKEN", raising=False)
    assert _token("typed-in", None) == "typed-in"
    assert "visible to other users in `ps`" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--retain", "30"], "--retain must be a whole number of minutes, hours or days"),
        (["--retain", "0d"], "--retain must be"),
        (["--retain", "-1h"], "--retain must be"),
        (["--max-store", "lots"], "--max-store must be a size such as 500MB"),
        (["--max-store", "0MB"], "--max-store must be"),
    ],
)
def test_serve_refuses_bad_retention_and_size_in_one_line(
    cli: Cli, args: list[str], said: str
) -> None:
    run = cli("serve", "--port", "1", *args)
    assert run.exit_code == 2 and said in run.stderr
    assert len(run.stderr.strip().splitlines()) <= 2 and "Traceback" not in run.stderr


def test_serve_settings_come_from_the_project_config(in_tmp: Path, cli: Cli) -> None:
    config = in_tmp / "toolsel.toml"
    config.write_text('[serve]\nretain = "2 weeks"\n', encoding="utf-8")
    run = cli("serve", "--port", "1")
    assert run.exit_code == 2 and "[tool.toolsel.serve] must be a whole number" in run.stderr
    config.write_text('[serve]\nretian = "30d"\n', encoding="utf-8")
    run = cli("serve", "--port", "1")
    assert run.exit_code == 2 and "unknown key 'retian'" in run.stderr
    from toolsel.serve.server import store_limits

    config.write_text('[serve]\nretain = "30d"\nmax_store = "2GB"\n', encoding="utf-8")
    keep, limit = store_limits(None, None)
    assert keep is not None and keep.days == 30 and limit == 2 * 10**9
    keep, limit = store_limits("12h", "1GiB")  # options win over the config
    assert keep is not None and keep.total_seconds() == 12 * 3600 and limit == 2**30


def test_the_pruner_deletes_what_is_older_than_the_retention(tmp_path: Path) -> None:
    from datetime import timedelta

    from tests.serve.test_store import stored
    from toolsel.serve.retention import Pruner
    from toolsel.serve.store import UsageRecord, now, open_store

    store = open_store(f"sqlite:///{tmp_path / 'u.db'}")
    try:
        store.record(
            [
                UsageRecord("old", True, "2020-01-01T00:00:00.000Z", session="a"),
                UsageRecord("new", True, now(), session="b"),
            ]
        )
        assert Pruner(store, timedelta(days=30)).prune_once() > 0
        assert stored(store) == 1 and [row[0] for row in store.top_summary(10)[0]] == ["new"]
        assert store.session_tools("a") == (set(), set())
    finally:
        store.close()
