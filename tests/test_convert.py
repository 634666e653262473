"""`toolsel convert`: every target reads back as the same tools, and what a target cannot
hold is a note, once per kind of field."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT
from toolsel.convert import Conversion, convert_registry
from toolsel.registry import load_registry
from toolsel.render.convert import json_text, note_lines, yaml_text
from toolsel.render.formats import ConvertFormat

TARGETS = [f.value for f in ConvertFormat]


def _write(conversion: Conversion, path: Path) -> Path:
    text = yaml_text(conversion.document) if conversion.target == "toolsel" else None
    path = path.with_suffix(".yaml" if text is not None else ".json")
    path.write_text(text if text is not None else json_text(conversion.document), "utf-8")
    return path


def _round_trip(source: Path, target: str, folder: Path) -> list[Any]:
    """source -> target -> toolsel, each step written to a file and loaded back."""
    there = _write(convert_registry(load_registry(source, use_cache=False), target), folder / "x")
    back = _write(convert_registry(load_registry(there, use_cache=False), "toolsel"), folder / "y")
    return list(load_registry(back, use_cache=False).tools)


TEXT = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=30)
LEAF = st.fixed_dictionaries(
    {"type": st.sampled_from(["string", "integer", "number", "boolean"])},
    optional={
        "description": TEXT,
        "enum": st.lists(TEXT, min_size=1, max_size=3, unique=True),
        "minimum": st.integers() | st.floats(allow_nan=False, allow_infinity=False),
        "pattern": st.just("^[a-z]+$"),
    },
)


def _object(properties: dict[str, Any], data: st.DataObject | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


SCHEMA = st.recursive(
    LEAF,
    lambda children: (
        st.builds(_object, st.dictionaries(TEXT, children, max_size=3))
        | st.fixed_dictionaries({"type": st.just("array"), "items": children})
        | st.fixed_dictionaries({"anyOf": st.lists(children, min_size=1, max_size=2)})
    ),
    max_leaves=6,
)


@st.composite
def parameters(draw: st.DrawFn) -> dict[str, Any]:
    properties = draw(st.dictionaries(TEXT, SCHEMA, max_size=4))
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    required = (
        draw(st.lists(st.sampled_from(sorted(properties)), unique=True)) if properties else []
    )
    if required:
        schema["required"] = required
    if draw(st.booleans()):
        schema["additionalProperties"] = False
    return schema


TOOLS = st.lists(
    st.fixed_dictionaries(
        {
            "name": st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True),
            "description": TEXT,
            "parameters": parameters(),
        }
    ),
    min_size=1,
    max_size=4,
    unique_by=lambda tool: tool["name"],
)


@pytest.mark.parametrize("target", TARGETS)
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tools=TOOLS)
def test_toolsel_to_any_target_and_back_keeps_names_descriptions_and_parameters(
    target: str, tools: list[dict[str, Any]], tmp_path: Path
) -> None:
    source = tmp_path / "source.yaml"
    source.write_text(yaml_text({"version": 1, "tools": tools}), encoding="utf-8")
    back = _round_trip(source, target, tmp_path)
    assert [(t.name, t.description, t.parameters) for t in back] == [
        (t["name"], t["description"], t["parameters"]) for t in tools
    ]


BUNDLED = ROOT / "registries"


def test_toolsel_to_toolsel_keeps_every_field_of_the_bundled_registry(tmp_path: Path) -> None:
    before = load_registry(BUNDLED, use_cache=False)
    conversion = convert_registry(before, "toolsel")
    assert conversion.notes == ()
    after = load_registry(_write(conversion, tmp_path / "all"), use_cache=False)

    def fields(tool: Any, examples: tuple[str, ...]) -> dict[str, Any]:
        kept = {f.name: getattr(tool, f.name) for f in dataclasses.fields(tool)}
        return {**kept, "source": None, "raw": None, "examples": examples}

    assert [fields(t, t.examples) for t in after.tools] == [
        fields(t, before.examples_for(t.name))
        for t in before.tools  # overlays merged
    ]
    assert {k: c.description for k, c in after.categories.items()} == {
        k: c.description for k, c in before.categories.items()
    }


@pytest.mark.parametrize("target", TARGETS)
def test_conversion_is_deterministic(target: str) -> None:
    def text() -> str:
        conversion = convert_registry(load_registry(BUNDLED, use_cache=False), target)
        return yaml_text(conversion.document) + json_text(conversion.document)

    assert text() == text()


def _notes(text: str, target: str, tmp_path: Path, name: str = "r.yaml") -> list[str]:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return note_lines(convert_registry(load_registry(path, use_cache=False), target).notes)


RICH = """\
categories:
  orders: {description: Orders.}
tools:
  - name: get_order
    description: Looks up an order.
    category: orders
    tags: [orders]
  - name: refund_order
    description: Refunds an order.
    category: orders
    permission: write
    requires: [get_order]
  - name: cancel_order
    description: Cancels an order.
    category: orders
    permission: dangerous
    display_name: Cancel
"""


def test_one_note_per_field_kind_with_the_count_of_tools(tmp_path: Path) -> None:
    assert _notes(RICH, "openai", tmp_path) == [
        "note: left out: OpenAI Chat Completions tools have no place for these:",
        "note:   `display_name` of 1 tool (cancel_order)",
        "note:   `category` of 3 tools (get_order, refund_order, ...)",
        "note:   `permission` of 2 tools (refund_order, cancel_order)",
        "note:   `tags` of 1 tool (get_order)",
        "note:   `requires` of 1 tool (refund_order)",
    ]


def test_mcp_keeps_permission_and_title(tmp_path: Path) -> None:
    notes = _notes(RICH, "mcp", tmp_path)
    assert not any("permission" in n or "display_name" in n for n in notes)
    assert "note:   `category` of 3 tools (get_order, refund_order, ...)" in notes


def test_toolsel_target_has_no_notes_and_keeps_extension_keys(tmp_path: Path) -> None:
    text = RICH + "    x-owner: payments\n    x-toolsel-ignore: [TS510]\n"
    assert _notes(text, "toolsel", tmp_path) == []
    path = tmp_path / "r.yaml"
    document = convert_registry(load_registry(path, use_cache=False), "toolsel").document
    assert document["tools"][-1]["x-owner"] == "payments"
    assert document["tools"][-1]["x-toolsel-ignore"] == ["TS510"]
    assert document["categories"] == {"orders": {"description": "Orders."}}


MCP = """\
{"tools": [
  {"name": "search", "description": "Searches.", "title": "Search",
   "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"},
   "annotations": {"readOnlyHint": true, "openWorldHint": false},
   "icons": [{"src": "https://example.com/i.png"}]},
  {"name": "delete", "description": "Deletes.", "inputSchema": {"type": "object"}}
]}
"""


def test_mcp_annotations_going_to_openai_are_noted(tmp_path: Path) -> None:
    notes = _notes(MCP, "openai", tmp_path, "m.json")
    assert notes == [
        "note: left out: OpenAI Chat Completions tools have no place for these:",
        "note:   `display_name` of 1 tool (search)",
        "note:   `permission` of 1 tool (delete)",
        "note:   `annotations` of 1 tool (search)",
        "note:   `output_schema` of 1 tool (search)",
        "note: `icons` (MCP tools/list result) of 1 tool (search): left out: toolsel does not "
        "read it",
    ]


def test_gemini_notes_the_root_schema_and_the_json_schema_key(tmp_path: Path) -> None:
    text = """\
    tools:
      - name: pick
        description: Picks.
        parameters:
          $schema: https://json-schema.org/draft/2020-12/schema
          type: object
          properties:
            shape: {oneOf: [{const: circle}, {const: square}]}
      - name: plain
        description: Plain.
        parameters: {$schema: "https://json-schema.org/draft/2020-12/schema", type: object}
    """
    assert _notes(text, "gemini", tmp_path) == [
        "note: root `$schema` of 2 tools (pick, plain): left out: Gemini refuses it",
        "note: parameters beyond Gemini's OpenAPI subset of 1 tool (pick): written as "
        "`parametersJsonSchema` (full JSON Schema) instead of `parameters`",
    ]


def test_built_in_and_custom_tools_are_noted(tmp_path: Path) -> None:
    text = """\
    {"tools": [
      {"type": "web_search"},
      {"type": "custom", "name": "run_sql", "description": "Runs SQL as text."},
      {"type": "function", "name": "f", "description": "F.", "parameters": {"type": "object"}}
    ]}
    """
    notes = _notes(text, "anthropic", tmp_path, "o.json")
    assert notes == [
        "note: built-in tools of 1 tool (OpenAI web_search): left out: the provider runs them "
        "itself",
        "note: OpenAI custom tools (free-text input) of 1 tool (run_sql): written with an "
        "empty parameter schema (the target has no free-text tools)",
    ]


def test_anthropic_extra_keys_are_noted_once_per_key(tmp_path: Path) -> None:
    text = """\
    [{"name": "a", "description": "A.", "input_schema": {"type": "object"},
      "cache_control": {"type": "ephemeral"}, "input_examples": [{}]},
     {"name": "b", "description": "B.", "input_schema": {"type": "object"},
      "cache_control": {"type": "ephemeral"}}]
    """
    assert _notes(text, "openai-responses", tmp_path, "a.json") == [
        "note: left out: toolsel does not read these:",
        "note:   `cache_control` (Anthropic Messages tools) of 2 tools (a, b)",
        "note:   `input_examples` (Anthropic Messages tools) of 1 tool (a)",
    ]
