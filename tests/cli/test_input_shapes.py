"""Input shapes through the CLI (issue 34): invalid JSON in JSON's words, another program's
file refused in one line (and skipped in a folder), and every client's config taken for
the servers it names, started by nobody without leave."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli

Write = Callable[..., Path]

GOOD = "tools:\n  - name: get_weather\n    description: Returns the weather for a city.\n"

#: name -> (content, line, column, JSON's words)
BAD_JSON: dict[str, tuple[str | bytes, int, int, str]] = {
    "truncated.json": (
        '{"tools": [\n  {"name": "a",\n   "description": "d"',
        3,
        22,
        "invalid JSON: unexpected end of file: expected ',' or '}'",
    ),
    "comma.json": (
        '{"tools": [\n  {"name": "a", "description": "d"},\n]}',
        2,
        36,
        "invalid JSON: trailing comma before ']' (JSON allows none)",
    ),
    "missing.json": (
        '{"tools": [\n  {"name": "a"\n    "description": "d"}]}',
        3,
        5,
        "invalid JSON: expected ',' or '}'",
    ),
    # YAML reads a trailing comma; a missing one it cannot, and JSON says why
    "json-in.yaml": (
        '{"tools": [{"name": "a" "description": "d"}]}',
        1,
        25,
        "invalid JSON: expected ',' or '}'",
    ),
    "binary.json": (b"\x00\x01\xff{", 1, 1, "binary data (NUL bytes), not text"),
}


@pytest.mark.parametrize("name", list(BAD_JSON))
def test_lint_reports_invalid_json_in_jsons_words(cli: Cli, write: Write, name: str) -> None:
    content, line, column, words = BAD_JSON[name]
    run = cli("lint", "-f", "json", "--no-cache", str(write(name, content)))
    assert run.exit_code == 1
    [finding] = json.loads(run.stdout)["findings"]
    assert (finding["rule"], finding["line"], finding["column"]) == ("TS001", line, column)
    assert words in finding["message"]
    assert "did not find" not in finding["message"] and "while parsing" not in finding["message"]


@pytest.mark.parametrize("name", list(BAD_JSON))
def test_rank_and_diff_give_one_line_naming_file_line_and_column(
    cli: Cli, write: Write, name: str
) -> None:
    content, line, column, words = BAD_JSON[name]
    bad, good = write(name, content), write("good.yaml", GOOD)
    for args in (("rank", "-r", str(bad), "weather"), ("diff", str(good), str(bad))):
        run = cli(*args)
        assert run.exit_code == 2 and run.stdout == ""
        assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
        assert f"{bad}:{line}:{column}: " in run.stderr and words in run.stderr


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "registries"
    folder.mkdir()
    (folder / "tools.yaml").write_text(GOOD)
    (folder / "settings.json").write_text(
        json.dumps({"tools": {"core": ["ReadFileTool"], "exclude": ["ShellTool"]}})
    )
    (folder / "package.json").write_text(json.dumps({"name": "x", "scripts": {"t": "jest"}}))
    shutil.copy(ROOT / "tests/corpus/configs/tls-cert-chain-resolver/crush.json", folder)
    return folder


SKIPPED = {
    "crush.json": "a Crush config naming 3 MCP servers",
    "package.json": "an npm package.json",
    "settings.json": "a Gemini CLI settings file; its `tools` key is a setting",
}


def test_a_folder_with_other_programs_files_ranks_and_says_what_it_skipped(
    cli: Cli, tmp_path: Path
) -> None:
    folder = _folder(tmp_path)
    run = cli("rank", "-r", str(folder), "weather", "-f", "json")
    assert run.exit_code == 0
    assert [r["name"] for r in json.loads(run.stdout)["results"]] == ["get_weather"]
    for name, why in SKIPPED.items():
        assert f"warning: {folder / name}: skipped, not a registry: {why}" in run.stderr
    assert "not started" not in run.stderr  # a config in a folder starts nothing, asks nothing


def test_lint_on_that_folder_lints_the_registry_only(cli: Cli, tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    run = cli("lint", "-f", "json", "--no-cache", str(folder))
    assert run.exit_code == 0
    files = {f["file"] for f in json.loads(run.stdout)["findings"]}
    assert files == {str(folder / "tools.yaml")}
    assert run.stderr.count("skipped, not a registry") == len(SKIPPED)


@pytest.mark.parametrize(
    ("name", "data", "why"),
    [
        (".gemini/settings.json", {"tools": {"core": ["ReadFileTool"]}},
         "a Gemini CLI settings file; its `tools` key is a setting"),
        ("package.json", {"name": "x", "version": "1.0.0", "dependencies": {}},
         "an npm package.json"),
        ("mcp-tools.json", {"tools": {"command": "uv", "args": ["run"], "env": {}}},
         "an MCP server's launch entry (command, args, env) under `tools`"),
    ],
)  # fmt: skip
def test_another_programs_file_named_on_its_own_is_refused_in_one_line(
    cli: Cli, write: Write, name: str, data: object, why: str
) -> None:
    path = write(name, json.dumps(data))
    lint = cli("lint", "-f", "json", "--no-cache", str(path))
    assert lint.exit_code == 1
    [finding] = json.loads(lint.stdout)["findings"]
    assert (finding["rule"], finding["line"]) == ("TS003", 1)
    assert finding["message"].startswith(f"not a registry: {why}")
    assert "write each tool" not in finding["message"]  # no advice that would corrupt it
    rank = cli("rank", "-r", str(path), "anything")
    assert rank.exit_code == 2 and rank.stderr.count("\n") == 1
    assert f"{path}:1:1: TS003 not a registry: {why}" in rank.stderr


CONFIGS = ROOT / "tests/corpus/configs"


@pytest.mark.parametrize(
    ("relative", "servers"),
    [
        ("blockbench-mcp/opencode.json", "1 MCP server, not started: blockbench: node dist/index.js"),
        ("tls-cert-chain-resolver/crush.json", "3 MCP servers, not started: gopls: gopls mcp;"),
        ("aawazz-mcp/examples/clients/zed.json", "1 MCP server, not started: aawazz: aawazz-mcp"),
        ("aawazz-mcp/examples/clients/goose.yaml", "1 MCP server, not started: aawazz: aawazz-mcp"),
        ("continue/.continue/mcpServers/continue-docs-mcp.yaml",
         "1 MCP server, not started: Continue Docs Search: node "),
        ("smart-tree/.roo/mcp.json", "1 MCP server, not started: smart-tree: "),
    ],
)  # fmt: skip
def test_every_clients_config_is_read_as_one_and_starts_nothing_without_leave(
    cli: Cli, tmp_path: Path, relative: str, servers: str
) -> None:
    copy = tmp_path / relative
    copy.parent.mkdir(parents=True)
    shutil.copy(CONFIGS / relative, copy)
    run = cli("rank", "-r", str(copy), "anything")
    assert run.exit_code == 2 and run.stdout == ""
    assert f"{copy}: {servers}" in run.stderr and "pass --connect" in run.stderr
