"""`-r builtin:NAME` reads a bundled catalog of a client's built-in tools; replay names the
catalog when a transcript calls a built-in the registry lacks; --allow-unknown allows
tools by glob."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolsel.catalogs as catalogs
from tests.conftest import Cli

CATALOG = """\
version: 1
tools:
  - name: Grep
    description: Searches file contents with ripgrep. Use it to find code. Returns matches.
    parameters: {type: object, properties: {pattern: {type: string}}, required: [pattern]}
  - name: Task
    aliases: [Agent]
    description: Launches a sub-agent for a self-contained task. Returns its final report.
    parent_task: true
"""


@pytest.fixture
def catalog_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "catalogs"
    folder.mkdir()
    (folder / "claude-code.yaml").write_text(CATALOG)
    (folder / "codex.yaml").write_text(
        "tools:\n  - name: shell\n    description: Runs a shell command and returns its output.\n"
    )
    monkeypatch.setattr(catalogs, "FOLDER", folder)
    catalogs._loaded.cache_clear()
    return folder


def session(tmp_path: Path, *names: str) -> Path:
    uses = [{"type": "tool_use", "id": f"t{i}", "name": n, "input": {"pattern": "x"}}
            for i, n in enumerate(names)]  # fmt: skip
    results = [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "ok"}
               for i in range(len(names))]  # fmt: skip
    path = tmp_path / "session.jsonl"
    path.write_text(
        json.dumps({"type": "assistant", "message": {"role": "assistant", "content": uses}}) + "\n"
        + json.dumps({"type": "user", "message": {"role": "user", "content": results}}) + "\n"
    )  # fmt: skip
    return path


def own_registry(tmp_path: Path) -> Path:
    path = tmp_path / "mine.yaml"
    path.write_text("tools:\n  - name: deploy\n    description: Deploys the service.\n")
    return path


def test_builtin_is_a_registry(cli: Cli, catalog_folder: Path) -> None:
    result = cli("rank", "-r", "builtin:claude-code", "search the code for a pattern",
                 "--format", "json")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["results"][0]["name"] == "Grep"


def test_an_unknown_catalog_is_one_line_with_the_list(cli: Cli, catalog_folder: Path) -> None:
    result = cli("rank", "-r", "builtin:claude-cod", "x")
    assert result.exit_code == 2
    assert (
        "builtin:claude-cod: no such built-in catalog (did you mean 'claude-code'?)"
        in result.stderr
    )
    assert "builtin:codex" in result.stderr


def test_replay_names_the_catalog_of_an_unknown_built_in(
    cli: Cli, catalog_folder: Path, tmp_path: Path
) -> None:
    path = session(tmp_path, "Grep", "deploy")
    result = cli("replay", str(path), "-r", str(own_registry(tmp_path)), "--format", "json")
    assert result.exit_code == 1
    assert (
        "'Grep' is not in the registry; it is a Claude Code built-in: add -r builtin:claude-code, "
        "or --allow-unknown 'Grep'"
    ) in result.stdout
    with_catalog = cli("replay", str(path), "-r", str(own_registry(tmp_path)),
                       "-r", "builtin:claude-code")  # fmt: skip
    assert with_catalog.exit_code == 0, with_catalog.stdout


def test_allow_unknown_takes_globs_from_the_option_and_the_config(
    cli: Cli, catalog_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = session(tmp_path, "Grep", "mcp__github__create_issue", "deploy")
    mine = str(own_registry(tmp_path))
    assert cli("replay", str(path), "-r", mine).exit_code == 1
    allowed = cli("replay", str(path), "-r", mine, "--allow-unknown", "Grep,mcp__*")
    assert allowed.exit_code == 0, allowed.stdout
    (tmp_path / "toolsel.toml").write_text('allow-unknown = ["Grep", "mcp__github__*"]\n')
    assert cli("replay", str(path), "-r", mine).exit_code == 0


def test_builtin_of_prefers_the_transcripts_client(catalog_folder: Path) -> None:
    (catalog_folder / "codex.yaml").write_text(
        "tools:\n  - name: Grep\n    description: A codex tool of the same name, for the test.\n"
    )
    catalogs._loaded.cache_clear()
    assert catalogs.builtin_of("Grep", "codex-rollout") == "codex"
    assert catalogs.builtin_of("Grep", "claude-code") == "claude-code"
    assert catalogs.builtin_of("Agent", None) == "claude-code"  # an alias
    assert catalogs.builtin_of("nothing_like_it", None) is None
