"""Loading registries: native and foreign formats, many files, and every kind of bad input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from toolsel import load_registry
from toolsel.errors import RegistryError
from toolsel.lint import all_rules
from toolsel.registry import Permission
from toolsel.registry.model import ProblemKind

Write = Callable[..., Path]
#: How lint reports each kind of problem the loader finds.
RULE_OF = {rule.problem: rule.id for rule in all_rules().values() if rule.problem}


def problems(path: Path) -> list[str]:
    registry = load_registry(path, strict=False, use_cache=False)
    return [f"{RULE_OF[p.kind]} {p.pointer} {p.line}:{p.column}" for p in registry.problems]


def test_native_registry_fields(write: Write) -> None:
    path = write(
        "r.yaml",
        """\
        version: 1
        categories:
          files: {description: File tools}
        tools:
          - name: write_file
            description: Writes a file.
            category: files
            permission: write
            tags: [files]
            requires: [read_file]
            conflicts: [delete_file]
            aliases: [save_file]
            version: 1.0.0
            deprecated: true
            deprecated_by: save
            display_name: Write file
            search_hint: save
            always_include: true
            defer_loading: true
            parent_task: true
        """,
    )
    registry = load_registry(path)
    (tool,) = registry.tools
    assert tool.permission is Permission.WRITE
    assert tool.requires == ("read_file",) and tool.conflicts == ("delete_file",)
    assert tool.aliases == ("save_file",) and tool.tags == ("files",)
    assert tool.deprecated and tool.deprecated_by == "save"
    assert tool.always_include and tool.defer_loading and tool.parent_task
    assert tool.parameters == {"type": "object", "properties": {}}
    assert registry.categories["files"].description == "File tools"
    assert registry.locate_field(tool, "requires", 0).line == 10
    assert registry.locate_field(tool, "requires", 0).pointer == "/tools/0/requires/0"


def test_model_is_frozen(write: Write) -> None:
    registry = load_registry(write("r.yaml", "tools:\n- {name: a, description: d}\n"))
    with pytest.raises(AttributeError):
        registry.tools[0].name = "b"  # type: ignore[misc]


def test_openai_chat_format(write: Write) -> None:
    doc = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather.",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                "strict": True,
            },
        }
    ]
    registry = load_registry(write("tools.json", json.dumps(doc, indent=2)))
    (tool,) = registry.tools
    assert registry.files[0].format == "openai-chat"
    assert tool.strict and tool.parameters["properties"] == {"city": {"type": "string"}}
    assert tool.source.field_pointer("description") == "/0/function/description"
    assert registry.locate_field(tool, "description").line == 6


def test_openai_responses_format(write: Write) -> None:
    doc = {
        "tools": [
            {
                "type": "function",
                "name": "f",
                "description": "d",
                "parameters": {"type": "object", "properties": {}},
            }
        ]
    }
    registry = load_registry(write("r.json", json.dumps(doc)))
    assert registry.files[0].format == "openai-responses"
    assert registry.tools[0].name == "f"


def test_anthropic_format(write: Write) -> None:
    doc = [
        {
            "name": "f",
            "description": "d",
            "input_schema": {"type": "object", "properties": {"x": {"type": "integer"}}},
            "defer_loading": True,
        }
    ]
    registry = load_registry(write("a.yaml", json.dumps(doc)))
    assert registry.files[0].format == "anthropic"
    assert registry.tools[0].parameters["properties"]["x"]["type"] == "integer"
    assert registry.tools[0].defer_loading


@pytest.mark.parametrize(
    ("annotations", "permission"),
    [
        ({"readOnlyHint": True}, "read"),
        ({"destructiveHint": True}, "dangerous"),
        ({"readOnlyHint": False, "destructiveHint": False}, "write"),
        ({"destructiveHint": False}, "write"),
        # the spec's defaults: readOnlyHint false, destructiveHint true
        ({}, "dangerous"),
        (None, "dangerous"),
        ({"readOnlyHint": False}, "dangerous"),
        ({"title": "Read a file"}, "dangerous"),
    ],
)
def test_mcp_format_maps_annotations(
    write: Write, annotations: dict | None, permission: str
) -> None:
    tool = {"name": "f", "title": "F tool", "description": "d", "inputSchema": {"type": "object"}}
    if annotations is not None:
        tool["annotations"] = annotations
    registry = load_registry(
        write("m.json", json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool]}}))
    )
    assert registry.files[0].format == "mcp"
    assert registry.tools[0].permission == permission
    assert registry.tools[0].display_name == "F tool"


def test_directory_loads_sorted_files_with_global_names(write: Write, tmp_path: Path) -> None:
    write("reg/b.yaml", "tools:\n- {name: b, description: d, requires: [a]}\n")
    write("reg/a.yml", "tools:\n- {name: a, description: d}\n")
    write("reg/c.json", '{"tools": [{"name": "c", "description": "d"}]}')
    write("reg/notes.txt", "ignored")
    registry = load_registry(tmp_path / "reg")
    assert [t.name for t in registry.tools] == ["a", "b", "c"]
    assert registry.get("b").requires == ("a",)


def test_several_paths(write: Write) -> None:
    first = write("one.yaml", "tools:\n- {name: a, description: d}\n")
    second = write("two.yaml", "tools:\n- {name: b, description: d}\n")
    assert load_registry([first, second]).names == ["a", "b"]


def test_json_numbers_follow_json_rules(write: Write) -> None:
    path = write(
        "n.json",
        '{"tools": [{"name": "a", "description": "d", "parameters": {"type": "object", "properties": {"n": {"type": "number", "default": 1e5, "minimum": -0.5E-3}}}}]}',
    )
    prop = load_registry(path).tools[0].parameters["properties"]["n"]
    assert prop == {"type": "number", "default": 100000.0, "minimum": -0.0005}


def test_integers_beyond_64_bits_load_exactly(write: Write) -> None:
    path = write(
        "big.yaml",
        "tools:\n- name: a\n  description: d\n  parameters:\n    type: object\n"
        "    properties: {n: {type: integer, maximum: 18446744073709551616,"
        " default: -9223372036854775809}}\n",
    )
    prop = load_registry(path).tools[0].parameters["properties"]["n"]
    assert prop["maximum"] == 2**64 and prop["default"] == -(2**63) - 1
    assert type(prop["maximum"]) is int and type(prop["default"]) is int


# --- bad input -------------------------------------------------------------------------


def test_yaml_syntax_error(write: Write) -> None:
    path = write("bad.yaml", "tools:\n  - name: a\n    description: [unclosed\n")
    (problem,) = problems(path)
    assert problem.startswith("TS001 ")
    with pytest.raises(RegistryError, match=r"bad.yaml:\d+:\d+: cannot parse"):
        load_registry(path)


def test_duplicate_keys(write: Write) -> None:
    assert problems(write("d.yaml", "tools:\n- name: a\n  description: x\n  description: y\n")) == [
        "TS002 /tools/0/description 4:3"
    ]


def test_tools_is_a_mapping(write: Write) -> None:
    assert problems(write("m.yaml", "tools:\n  a: {description: d}\n")) == ["TS003 /tools 2:3"]


def test_name_is_a_number(write: Write) -> None:
    assert problems(write("n.yaml", "tools:\n- name: 42\n  description: d\n")) == [
        "TS003 /tools/0/name 2:9"
    ]


def test_wrong_types_of_fields(write: Write) -> None:
    got = problems(
        write(
            "t.yaml",
            "tools:\n- name: a\n  description: d\n  tags: x\n  deprecated: 'yes'\n  parameters: [1]\n",
        )
    )
    assert got == [
        "TS003 /tools/0/tags 4:9",
        "TS003 /tools/0/deprecated 5:15",
        "TS003 /tools/0/parameters 6:15",
    ]


def test_unknown_key_suggests(write: Write) -> None:
    registry = load_registry(
        write("u.yaml", "tools:\n- name: a\n  descripton: d\n  description: d\n"), strict=False
    )
    (problem,) = registry.problems
    assert (
        problem.kind is ProblemKind.UNKNOWN_KEY and "did you mean 'description'" in problem.message
    )
    assert not problem.fatal  # an unknown key alone does not stop `rank`


def test_missing_name_and_description(write: Write) -> None:
    assert problems(write("m.yaml", "tools:\n- description: d\n- name: b\n")) == [
        "TS004 /tools/0 2:3",
        "TS004 /tools/1 3:3",
    ]


def test_empty_file(write: Write) -> None:
    assert problems(write("e.yaml", "")) == ["TS003  1:1"]


def test_whitespace_only_file(write: Write) -> None:
    assert problems(write("w.yaml", "\n   \n")) == ["TS003  1:1"]


def test_comment_only_file(write: Write) -> None:
    registry = load_registry(write("c.yaml", "# nothing here\n"), strict=False)
    (problem,) = registry.problems
    assert problem.kind is ProblemKind.SHAPE and "empty" in problem.message


def test_binary_file(write: Write) -> None:
    registry = load_registry(write("b.yaml", b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR"), strict=False)
    (problem,) = registry.problems
    assert problem.kind is ProblemKind.UNREADABLE and "binary" in problem.message


def test_non_utf8_file_points_at_the_byte(write: Write) -> None:
    registry = load_registry(
        write("l.yaml", "tools:\n- name: caf\xe9\n".encode("latin-1")), strict=False
    )
    (problem,) = registry.problems
    assert (problem.kind, problem.line, problem.column) == (ProblemKind.UNREADABLE, 2, 12)
    assert "UTF-8" in problem.message


def test_utf8_bom_is_accepted(write: Write) -> None:
    registry = load_registry(
        write("bom.yaml", "\ufefftools:\n- {name: a, description: d}\n".encode())
    )
    assert registry.names == ["a"]


def test_directory_without_registry_files(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(RegistryError, match="no registry files"):
        load_registry(tmp_path / "empty")


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(RegistryError, match="no such file"):
        load_registry(tmp_path / "nope.yaml")


def test_alias_bomb_file(write: Write) -> None:
    from tests.registry.test_source import BILLION_LAUGHS

    (problem,) = problems(write("bomb.yaml", BILLION_LAUGHS))
    assert problem.startswith("TS001")


def test_schema_nested_ten_thousand_deep(write: Write) -> None:
    nested = '{"type": "object", "properties": {"x": ' * 10_000 + "{}" + "}}" * 10_000
    registry = load_registry(
        write(
            "deep.json",
            '{"tools": [{"name": "a", "description": "d", "parameters": ' + nested + "}]}",
        ),
        strict=False,
    )
    (problem,) = registry.problems
    assert problem.kind is ProblemKind.UNREADABLE and "depth" in problem.message


def test_file_over_the_size_limit(write: Write, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSEL_MAX_FILE_BYTES", "1000")
    registry = load_registry(
        write("big.yaml", "tools:\n" + "- {name: a, description: d}\n" * 100), strict=False
    )
    (problem,) = registry.problems
    assert problem.kind is ProblemKind.UNREADABLE and "limit" in problem.message


def test_fifty_megabyte_file_loads(write: Write) -> None:
    description = "x" * (50 * 1024 * 1024)
    registry = load_registry(
        write("huge.yaml", f"tools:\n- name: a\n  description: {description}\n"), use_cache=False
    )
    assert len(registry.tools[0].description) == len(description)


def test_strict_loading_reports_first_fatal_problem_and_count(write: Write) -> None:
    path = write("two.yaml", "tools:\n- name: 1\n  description: d\n- name: b\n")
    with pytest.raises(
        RegistryError, match=r"two.yaml:2:9: `name` must be .*1 more problem"
    ) as raised:
        load_registry(path)
    assert raised.value.problem.kind is ProblemKind.SHAPE


def test_cached_fast_path_builds_identical_tools(
    write: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json as _json

    monkeypatch.setattr("toolsel.registry.cache.MIN_CACHED_BYTES", 0)
    native = write(
        "n.yaml",
        """\
        tools:
          - name: full_tool
            description: Every field set.
            display_name: Full tool
            search_hint: hint words
            version: 2.0.0
            strict: true
            annotations: {readOnlyHint: true}
            output_schema: {type: object}
            permission: admin
            tags: [a]
            requires: [b]
            conflicts: [c]
            aliases: [d]
            deprecated: true
            deprecated_by: e
            always_include: true
            defer_loading: true
            parent_task: true
            parameters: {type: object, properties: {x: {type: string}}}
        """,
    )
    mcp = write(
        "m.json",
        _json.dumps(
            [
                {
                    "name": "m",
                    "description": "d",
                    "inputSchema": {"type": "object"},
                    "annotations": {"title": "M tool", "destructiveHint": True},
                }
            ]
        ),
    )
    first = load_registry([native, mcp])
    second = load_registry([native, mcp])  # served from the cache, built without validation
    assert first.tools == second.tools
    tool = second.get("full_tool")
    assert (tool.display_name, tool.search_hint, tool.version, tool.strict) == (
        "Full tool",
        "hint words",
        "2.0.0",
        True,
    )
    assert tool.annotations == {"readOnlyHint": True} and tool.output_schema == {"type": "object"}
    assert tool.permission is Permission.ADMIN
    assert (
        second.get("m").display_name == "M tool"
        and second.get("m").permission is Permission.DANGEROUS
    )


def test_cached_file_with_problems_keeps_reporting_them(
    write: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("toolsel.registry.cache.MIN_CACHED_BYTES", 0)
    path = write("p.yaml", "tools:\n- name: a\n  description: d\n  tags: x\n  descripton: y\n")
    first = load_registry(path, strict=False)
    second = load_registry(path, strict=False)
    assert [(p.kind, p.line) for p in first.problems] == [(p.kind, p.line) for p in second.problems]
    assert len(first.problems) == 2
    assert first.tools == second.tools and second.tools[0].tags == ("x",)


@pytest.mark.parametrize(
    ("value", "words"),
    [("9" * 5000, "an integer of 5,000 digits"), ("1.0e+999", "infinity"), (".nan", "NaN")],
    ids=["5,000 digits", "1.0e+999", ".nan"],
)
def test_a_number_json_cannot_hold_is_a_fatal_problem_at_its_position(
    write: Write, value: str, words: str
) -> None:
    path = write(
        "n.yaml", f"tools:\n- name: a\n  description: d\n  parameters: {{maximum: {value}}}\n"
    )
    assert problems(path) == ["TS001  4:25"]
    with pytest.raises(RegistryError, match=rf"n.yaml:4:25: cannot parse: .*{words}"):
        load_registry(path)
