"""The tool-list shapes found in third-party files (tests/corpus/registries): built-in tools
beside functions, bare Gemini tools arrays, single tool objects, Docker's catalog, and
foreign shapes refused by name."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from toolsel import load_registry
from toolsel.errors import RegistryError
from toolsel.registry.model import ProblemKind

Write = Callable[..., Path]


def _json(write: Write, name: str, value: object) -> Path:
    return write(name, json.dumps(value, indent=2))


def _builtins(path: Path) -> list[str]:
    registry = load_registry(path, strict=False, use_cache=False)
    return [
        p.message.split(" is a built-in")[0]
        for p in registry.problems
        if p.kind is ProblemKind.BUILTIN_TOOL
    ]


FUNCTION = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather.",
        "parameters": {"type": "object"},
    },
}


@pytest.mark.parametrize(
    ("builtin", "label"),
    [
        ({"type": "file_search", "description": "Search the docs"}, "OpenAI file_search"),
        ({"type": "web_search_preview"}, "OpenAI web_search_preview"),
        ({"type": "code_interpreter", "container": {"type": "auto"}}, "OpenAI code_interpreter"),
        (
            {"type": "mcp", "server_label": "deepwiki", "server_url": "https://x"},
            "OpenAI mcp (deepwiki)",
        ),
        (
            {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
            "Anthropic web_search_20250305 (web_search)",
        ),
        ({"type": "bash_20250124", "name": "bash"}, "Anthropic bash_20250124 (bash)"),
        (
            {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"},
            "Anthropic text_editor_20250728 (str_replace_based_edit_tool)",
        ),
    ],
)
def test_built_in_tools_are_listed_apart_and_the_functions_load(
    write: Write, builtin: dict[str, object], label: str
) -> None:
    path = _json(write, "tools.json", {"tools": [builtin, FUNCTION]})
    registry = load_registry(path, use_cache=False)  # strict: nothing fatal
    assert registry.names == ["get_weather"]
    assert _builtins(path) == [label]


def test_a_bare_gemini_tools_array_with_grounding_tools(write: Write) -> None:
    path = _json(
        write,
        "gemini.json",
        [
            {
                "functionDeclarations": [
                    {
                        "name": "get_stock_price",
                        "description": "The price of a stock.",
                        "parameters": {
                            "type": "OBJECT",
                            "properties": {
                                "symbol": {"type": "STRING"},
                                "days": {"type": "INTEGER"},
                            },
                            "required": ["symbol"],
                        },
                    }
                ]
            },
            {"googleSearch": {}},
            {"codeExecution": {}},
            {"url_context": {}},
        ],
    )
    registry = load_registry(path, use_cache=False)
    (tool,) = registry.tools
    assert tool.name == "get_stock_price" and registry.files[0].format == "gemini"
    # Gemini's own upper-case types read as JSON Schema's, in the tool (the file is untouched)
    assert tool.parameters["type"] == "object"
    assert tool.parameters["properties"]["symbol"] == {"type": "string"}
    assert (
        registry.files[0].document[0]["functionDeclarations"][0]["parameters"]["type"] == "OBJECT"
    )
    assert _builtins(path) == ["Gemini googleSearch", "Gemini codeExecution", "Gemini url_context"]


def test_upper_case_gemini_types_raise_no_schema_findings(write: Write, cli) -> None:  # type: ignore[no-untyped-def]
    path = _json(
        write,
        "gemini.json",
        {"functionDeclarations": [{"name": "f", "description": "Finds a thing by its key.",
          "parameters": {"type": "OBJECT", "properties": {"key": {"type": "STRING",
          "description": "The key."}, "tags": {"type": "ARRAY", "items": {"type": "STRING"}}}}}]},
    )  # fmt: skip
    run = cli("lint", str(path), "-t", "gemini", "-f", "json")
    rules = {f["rule"] for f in json.loads(run.stdout)["findings"]}
    assert not rules & {"TS301", "TS302", "TS444"}, run.stdout


def test_only_built_in_tools_load_with_nothing_to_rank(write: Write, cli) -> None:  # type: ignore[no-untyped-def]
    path = _json(write, "only.json", [{"googleSearch": {}}])
    assert load_registry(path, use_cache=False).tools == ()
    run = cli("rank", "-r", str(path), "search the web")
    assert run.exit_code == 2 and "no tools" in run.stderr


@pytest.mark.parametrize(
    "single",
    [
        {"name": "get_commit", "description": "One commit.", "inputSchema": {"type": "object"},
         "annotations": {"readOnlyHint": True}},
        {"type": "function", "function": {"name": "get_commit", "description": "One commit.",
         "parameters": {"type": "object"}}},
        {"name": "get_commit", "description": "One commit.", "input_schema": {"type": "object"}},
    ],
)  # fmt: skip
def test_a_file_holding_one_tool_definition(write: Write, single: dict[str, object]) -> None:
    registry = load_registry(_json(write, "one.json", single), use_cache=False)
    assert registry.names == ["get_commit"]
    assert registry.tools[0].source.pointer == ""


def test_docker_catalog_arguments_become_the_schema(write: Write) -> None:
    path = _json(
        write,
        "tools.json",
        [
            {
                "name": "convert",
                "description": "Convert an amount between currencies.",
                "arguments": [
                    {"name": "amount", "type": "number", "desc": "How much"},
                    {"name": "to", "type": "string", "desc": "Target currency"},
                    {"name": "quotes", "type": "array", "items": {"type": "string"},
                     "desc": "Only these", "optional": True},
                ],
            },
            {"name": "rates", "description": "Today's rates.", "arguments": []},
        ],
    )  # fmt: skip
    registry = load_registry(path, use_cache=False)
    convert = registry.get("convert")
    assert convert is not None and convert.source.format == "docker-catalog"
    assert convert.parameters == {
        "type": "object",
        "properties": {
            "amount": {"type": "number", "description": "How much"},
            "to": {"type": "string", "description": "Target currency"},
            "quotes": {"type": "array", "items": {"type": "string"}, "description": "Only these"},
        },
        "required": ["amount", "to"],
    }
    # the fast path (a file that loaded cleanly, read again from the cache) agrees
    assert load_registry(path).get("convert").parameters == convert.parameters  # type: ignore[union-attr]
    bad = _json(
        write,
        "bad.json",
        [
            {
                "name": "x",
                "description": "d",
                "arguments": [{"name": "a", "type": "string", "dsec": "typo"}],
            }
        ],
    )
    kinds = [p.kind for p in load_registry(bad, strict=False, use_cache=False).problems]
    assert kinds == [ProblemKind.UNKNOWN_KEY]


def test_a_foreign_list_shape_is_refused_by_name(write: Write) -> None:
    path = _json(
        write,
        "tools.json",
        [{"name": "inspect", "subcommand": "inspect", "description": "Show a symbol.",
          "schema": {"type": "object", "properties": {"symbol": {"type": "string"}}}}],
    )  # fmt: skip
    with pytest.raises(RegistryError, match="keep their input schema under `schema`"):
        load_registry(path, use_cache=False)
    registry = load_registry(path, strict=False, use_cache=False)
    assert [p.kind for p in registry.problems] == [ProblemKind.SHAPE]  # once, not per key


CATALOGUE_ENTRIES = [
    {"name": "Bing_CN_MCP", "description": "Bing search.", "web": "https://example.org",
     "config": {"mcpServers": {"bing": {"command": "npx", "args": ["bing-cn-mcp"]}}},
     "tools": {"bing": {"tools": [{"name": "bing_search", "inputSchema": {"type": "object"}}]}}},
    {"name": "weather", "description": "Weather server.", "command": "uvx", "args": ["weather-mcp"]},
    {"name": "remote", "description": "A remote server.", "url": "https://example.org/mcp", "type": "http"},
]  # fmt: skip


@pytest.mark.parametrize("entry", CATALOGUE_ENTRIES, ids=["config", "command", "url"])
def test_a_catalogue_of_servers_is_refused_by_name(write: Write, entry: dict[str, object]) -> None:
    """Issue 34: LiveMCPBench's catalogue of servers was read as tools named after the
    servers, and the real tools nested in it ignored without a word."""
    path = _json(write, "tools.json", [entry])
    with pytest.raises(RegistryError, match=r"entries are MCP servers .*not a registry"):
        load_registry(path, use_cache=False)
    registry = load_registry(path, strict=False, use_cache=False)
    assert [p.kind for p in registry.problems] == [ProblemKind.SHAPE] and registry.tools == ()


def test_a_tool_with_a_command_parameter_is_still_a_tool(write: Write) -> None:
    path = _json(
        write,
        "tools.json",
        [{"name": "run", "description": "Runs a command.", "command": "ls",
          "parameters": {"type": "object", "properties": {"args": {"type": "array"}}}}],
    )  # fmt: skip
    assert [t.name for t in load_registry(path, strict=False, use_cache=False).tools] == ["run"]


def test_a_client_launch_config_is_refused_as_one(cli, write: Write) -> None:  # type: ignore[no-untyped-def]
    """Issue 34: `{tools: {command, args, env}}` (a client's launch entry) was told to
    rewrite `tools` as a list of tools, advice that would corrupt it."""
    path = _json(write, "mcp-tools.json", {"tools": {"command": "uv", "args": ["run", "x.py"]}})
    run = cli("rank", "--no-cache", "-r", str(path), "search")
    assert run.exit_code == 2
    [line] = run.stderr.strip().splitlines()
    assert f"{path}:1:1: TS003 not a registry: an MCP server's launch entry" in line
    assert "- name:" not in line


def test_a_bare_list_of_gemini_declarations_is_read_as_gemini(write: Write, cli) -> None:  # type: ignore[no-untyped-def]
    """No `functionDeclarations` wrapper: Gemini's upper-case `Type` enum says whose dialect
    the schemas are written in (as in @dominusnode's Gemini package)."""
    declaration = {
        "name": "check_balance",
        "description": "The wallet balance of the account, in cents and USD.",
        "parameters": {
            "type": "OBJECT",
            "properties": {"currency": {"type": "STRING"}, "filters": {"type": "OBJECT"}},
            "required": [],
        },
    }
    path = _json(write, "functions.json", [declaration])
    registry = load_registry(path, use_cache=False)
    assert registry.files[0].format == "gemini"
    assert registry.tools[0].parameters["properties"]["currency"] == {"type": "string"}
    for target in ("portable", "gemini"):
        run = cli("lint", str(path), "-t", target, "-f", "json")
        rules = {f["rule"] for f in json.loads(run.stdout)["findings"]}
        assert not rules & {"TS301", "TS302", "TS444"}, run.stdout
    # a toolsel entry (a key Gemini's declaration has not) keeps JSON Schema's rules
    own = _json(write, "own.json", [{**declaration, "category": "billing"}])
    run = cli("lint", str(own), "-f", "json")
    assert "TS302" in {f["rule"] for f in json.loads(run.stdout)["findings"]}
