"""Real third-party MCP client configs (tests/corpus/configs), labelled by hand (issue 21): the
client-config reader must recognise each one and read the servers its client would start."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from toolsel.live.sources import Server, config_servers, is_client_config

CONFIGS = ROOT / "tests/corpus/configs"
LABELS: dict[str, dict[str, Any]] = yaml.safe_load(
    (CONFIGS / "labels.yaml").read_text(encoding="utf-8")
)["files"]

#: Variables a label's expansion assumes unset (Claude Code's ${VAR:-default}).
_UNSET = ("CLAUDE_PROJECT_DIR",)


def _forwarded(label: dict[str, Any]) -> list[str]:
    return [n for s in label.get("servers", []) for n in s.get("forwarded_env", [])]


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    def apply(label: dict[str, Any]) -> None:
        for name in _UNSET:
            monkeypatch.delenv(name, raising=False)
        for server in label.get("servers", []):
            for name in server.get("env_values", {}):
                monkeypatch.delenv(name, raising=False)
        for name in _forwarded(label):
            monkeypatch.setenv(name, f"value-of-{name}")

    return apply


def test_the_corpus_is_big_varied_and_sourced() -> None:
    assert len(LABELS) >= 10
    on_disk = {
        str(p.relative_to(CONFIGS))
        for p in CONFIGS.rglob("*")
        if p.is_file() and p.name not in {"labels.yaml", "SOURCE.md", "README.md"}
    }
    assert on_disk == set(LABELS)
    clients = {label.get("client") for label in LABELS.values()} - {None}
    assert clients >= {"Claude Code", "Claude Desktop", "Cursor", "VS Code", "Codex", "Gemini CLI"}
    source = (CONFIGS / "SOURCE.md").read_text(encoding="utf-8")
    assert [name for name in LABELS if f"`{name}`" not in source] == []


@pytest.mark.parametrize("name", sorted(LABELS))
def test_a_labelled_file_is_read_as_labelled(name: str, environment) -> None:  # type: ignore[no-untyped-def]
    label, path = LABELS[name], CONFIGS / name
    environment(label)
    if label.get("not_a_config"):
        assert not is_client_config(path), label["why"]
        return
    assert is_client_config(path)
    servers = config_servers(path)
    assert [s.name for s in servers] == [s["name"] for s in label["servers"]]
    for server, expected in zip(servers, label["servers"], strict=True):
        _check(server, expected, label.get("client"))


def _check(written: Server, expected: dict[str, Any], client: str | None) -> None:
    """The server as its client starts it (variables filled in); never shown so."""
    server = written.expanded()
    shown = server.shown
    assert server.transport == expected["transport"], shown
    if expected["transport"] == "stdio":
        assert list(server.command) == [str(a) for a in expected["command"]], shown
    else:
        assert server.url == expected["url"], shown
    env = dict(server.env)
    assert sorted(env) == sorted([*expected.get("env", []), *expected.get("forwarded_env", [])])
    for var, value in expected.get("env_values", {}).items():
        assert env[var] == value, f"{shown}: {var}"
    assert server.disabled is expected.get("disabled", False), shown
    assert server.cwd == expected.get("cwd"), shown
    assert server.problem is None, shown
    for input_id in expected.get("inputs", []):  # VS Code prompts for it; it stays as written
        assert any(f"${{input:{input_id}}}" in v for v in env.values()), shown
    if client is not None:
        assert server.client == client, shown


@pytest.mark.parametrize(
    "name", [n for n in sorted(LABELS) if n.endswith((".json", ".yaml", ".yml"))]
)
def test_a_labelled_file_is_never_read_as_a_registry(name: str) -> None:
    """In a registry folder, a client's file is skipped, named for what it is (issue 34)."""
    from toolsel.live.sources import not_a_registry_file

    label, path = LABELS[name], CONFIGS / name
    why = not_a_registry_file(path)
    assert why is not None
    servers = len(label.get("servers", []))
    if servers:
        assert f"config naming {servers} MCP server{'s' * (servers != 1)}" in why
    if label.get("client"):
        assert f" {label['client']} " in why
