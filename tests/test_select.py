"""`select:` direct lookups: parsing, resolution, diagnostics and tool_result blocks."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ROOT, Cli
from toolsel.errors import UsageError
from toolsel.registry.model import Tool, ToolSource
from toolsel.select import default_tool_use_id, parse_select, select_tools, tool_result_block


def meta(name: str, aliases: tuple[str, ...] = (), requires: tuple[str, ...] = ()) -> Tool:
    source = ToolSource("t.yaml", "toolsel", "/tools/0", {})
    return Tool(name, "d", source, aliases=aliases, requires=requires)


TOOLS = (
    meta("read_file", ("cat_file",)),
    meta("patch_file", requires=("read_file",)),
    meta("mcp__a__get_x"),
    meta("mcp__b__get_x"),
    meta("mcp__c__only_here"),
)


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("select:A,B", ["A", "B"]),
        ("SELECT:A, B ,,C", ["A", "B", "C"]),
        ("Select:a,a,b,a", ["a", "b"]),
        ("select:A B", ["A B"]),
    ],
)
def test_parsing(query: str, names: list[str]) -> None:
    assert parse_select(query) == names


def test_resolution_kinds() -> None:
    result = select_tools(
        TOOLS, "select:read_file,cat_file,Patch_File,get_x,only_here,raed_file,read_file patch_file"
    )
    hows = {r.requested: (r.tool, r.how) for r in result.resolutions}
    assert hows["read_file"] == ("read_file", "exact-name")
    assert hows["cat_file"] == ("read_file", "alias")
    assert hows["Patch_File"] == ("patch_file", "case-insensitive")
    assert hows["get_x"] == (None, "ambiguous")
    assert hows["only_here"] == (None, "not-found")
    assert result.matches == ("read_file", "patch_file")  # de-duplicated, request order
    notes = {r.requested: r.note for r in result.resolutions}
    assert "mcp__a__get_x" in notes["get_x"] and "mcp__b__get_x" in notes["get_x"]
    assert "mcp__c__only_here" in notes["only_here"]
    assert "did you mean 'read_file'" in notes["raed_file"]
    assert "select:read_file,patch_file" in notes["read_file patch_file"]


def test_empty_select_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        select_tools(TOOLS, "select: , ")


def test_tool_result_blocks() -> None:
    assert tool_result_block(["a", "b"], tool_use_id="t") == {
        "type": "tool_result",
        "tool_use_id": "t",
        "content": [
            {"type": "tool_reference", "tool_name": "a"},
            {"type": "tool_reference", "tool_name": "b"},
        ],
    }
    assert tool_result_block([], tool_use_id="t")["content"] == "No matching deferred tools found"
    assert tool_result_block([], tool_use_id="t", pending_servers=("a", "b"))["content"] == (
        "No matching deferred tools found. Some MCP servers are still connecting: a, b. Try searching again shortly."
    )


def test_the_default_tool_use_id_is_derived_from_the_query() -> None:
    first = select_tools(TOOLS, "select:read_file")
    assert first.tool_use_id == default_tool_use_id("select:read_file")
    assert first.tool_use_id.startswith("toolu_") and len(first.tool_use_id) == 30
    assert select_tools(TOOLS, "select:read_file").block() == first.block()
    assert select_tools(TOOLS, "select:patch_file").tool_use_id != first.tool_use_id


def test_with_deps_adds_requirements_in_load_order() -> None:
    result = select_tools(TOOLS, "select:patch_file", with_deps=True)
    assert result.with_deps == ("read_file",) and result.selected == ("patch_file", "read_file")
    assert select_tools(TOOLS, "select:patch_file").with_deps == ()


def test_select_cli_json_with_deps(cli: Cli) -> None:
    run = cli(
        "rank",
        "-r",
        str(ROOT / "registries"),
        "select:create_pull_request",
        "--with-deps",
        "-f",
        "json",
        "--tool-use-id",
        "x",
    )
    data = json.loads(run.stdout)
    assert data["schema"] == "toolsel.select/v1"
    assert data["matches"] == ["create_pull_request"]
    assert data["with_deps"] == ["git_status", "git_commit"]
    assert [c["tool_name"] for c in data["tool_result"]["content"]] == [
        "create_pull_request",
        "git_status",
        "git_commit",
    ]
    assert run.exit_code == 0


def test_select_cli_missing_name_exit_one(cli: Cli) -> None:
    run = cli(
        "rank",
        "-r",
        str(ROOT / "registries"),
        "select:read_file,nope",
        "-f",
        "json",
        "--tool-use-id",
        "x",
    )
    assert run.exit_code == 1
    data = json.loads(run.stdout)
    assert data["not_found"] == ["nope"] and data["case_only"] == []
    assert data["tool_result"]["content"] == [{"type": "tool_reference", "tool_name": "read_file"}]
    bare = cli("rank", "-r", str(ROOT / "registries"), "select:read_file,nope", "-f", "tool-result", "--tool-use-id", "x")  # fmt: skip
    assert json.loads(bare.stdout) == data["tool_result"] and bare.exit_code == 1


def test_select_cli_reports_case_only_matches(cli: Cli) -> None:
    run = cli("rank", "-r", str(ROOT / "registries"), "select:Read_File", "-f", "json")
    data = json.loads(run.stdout)
    assert data["case_only"] == ["Read_File"] and data["matches"] == ["read_file"]
    assert data["tool_result"]["tool_use_id"] == default_tool_use_id("select:Read_File")


def test_tool_result_format_is_only_for_select(cli: Cli) -> None:
    run = cli("rank", "-r", str(ROOT / "registries"), "read a file", "-f", "tool-result")
    assert run.exit_code == 2 and "select:" in run.stderr


def test_select_cli_emit(cli: Cli) -> None:
    data = json.loads(
        cli(
            "rank", "-r", str(ROOT / "registries"), "select:read_file", "--emit", "anthropic"
        ).stdout
    )
    assert data["tools"][0]["name"] == "read_file" and "input_schema" in data["tools"][0]
