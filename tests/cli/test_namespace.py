"""One name, one tool: duplicates across inputs are refused with both locations, and MCP
servers' tools can be namespaced as Claude Code names them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.lint.helpers import lint_text

GITHUB = {
    "tools": [
        {
            "name": "search",
            "description": "Search GitHub issues and pull requests.",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": True},
        },
        {
            "name": "create_issue",
            "description": "Create a GitHub issue.",
            "inputSchema": {"type": "object"},
        },
    ]
}
FILES = {
    "tools": [
        {
            "name": "search",
            "description": "Search files on the local disk by name.",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": True},
        },
    ]
}


@pytest.fixture
def servers(tmp_path: Path) -> tuple[str, str]:
    github, files = tmp_path / "github.json", tmp_path / "filesystem.json"
    github.write_text(json.dumps(GITHUB))
    files.write_text(json.dumps(FILES))
    return str(github), str(files)


@pytest.mark.parametrize(
    "command",
    [["rank", "search"], ["deps", "--all"], ["prompt"], ["rank", "select:search"]],
)
def test_a_name_defined_twice_is_refused_with_both_locations(cli: Cli, servers, command) -> None:
    github, files = servers
    run = cli(*command, "-r", github, "-r", files)
    assert run.exit_code == 2 and run.stdout == ""
    assert f"{files}:1:" in run.stderr and f"(first defined at {github}:1:" in run.stderr
    assert "duplicate tool name 'search'" in run.stderr and "--namespace" in run.stderr


def test_namespace_from_the_file_name(cli: Cli, servers) -> None:
    github, files = servers
    run = cli("rank", "search issues", "-r", github, "-r", files, "--namespace", "-f", "json")
    names = [r["name"] for r in json.loads(run.stdout)["results"]]
    assert names[0] == "mcp__github__search" and "mcp__filesystem__search" in names
    prompt = json.loads(
        cli("prompt", "-r", github, "-r", files, "--namespace", "-f", "json").stdout
    )
    assert sorted(prompt["deferred"] + [n["name"] for n in prompt["loaded"]]) == [
        "mcp__filesystem__search",
        "mcp__github__create_issue",
        "mcp__github__search",
    ]


def test_namespace_from_the_option(cli: Cli, servers) -> None:
    github, files = servers
    run = cli(
        "rank", "search files on disk", "-r", f"gh={github}", "-r", f"fs={files}", "-f", "json"
    )
    assert json.loads(run.stdout)["results"][0]["name"] == "mcp__fs__search"


def test_replay_matches_claude_code_mcp_names(cli: Cli, servers, tmp_path: Path) -> None:
    github, _ = servers
    line = {
        "type": "assistant",
        "uuid": "u",
        "sessionId": "s",
        "message": {
            "id": "m",
            "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "mcp__github__search", "input": {}}
            ],
        },
    }
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps(line) + "\n")
    plain = json.loads(cli("replay", str(transcript), "-r", github, "-f", "json").stdout)
    assert plain["files"][0]["violations"][0]["rule"] == "unknown-tool"
    named = json.loads(
        cli("replay", str(transcript), "-r", github, "--namespace", "-f", "json").stdout
    )
    assert named["files"][0]["violations"] == []


def test_an_empty_registry_is_refused_and_linted_alike(cli: Cli, tmp_path: Path) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text("tools: []\n")
    for command in (["rank", "x"], ["deps", "--all"], ["prompt"]):
        run = cli(*command, "-r", str(empty))
        assert run.exit_code == 2 and "the registry has no tools" in run.stderr
    lint = json.loads(cli("lint", str(empty), "-f", "json").stdout)
    assert [f["rule"] for f in lint["findings"]] == ["TS009"]
    # one empty file beside files with tools is fine
    assert not [
        f for f in lint_text("- {name: a_tool, description: does a thing}\n") if f.rule == "TS009"
    ]
