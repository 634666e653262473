"""`lint --fix`: certain fixes as small edits of the file's own text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.test_convert import SCHEMA, TEXT
from toolsel.lint.engine import lint_paths
from toolsel.lint.fix import FixPlan, accepts_null, apply_fixes, plan_fixes
from toolsel.registry import load_registry
from toolsel.render.convert import yaml_text


def _plan(path: Path, *targets: str) -> FixPlan:
    result = lint_paths([path], overrides={"targets": list(targets)}, use_cache=False)
    return plan_fixes(result, {str(path): path})


def _fix(path: Path, *targets: str) -> FixPlan:
    plan = _plan(path, *targets)
    apply_fixes(plan)
    return plan


BLOCK = """\
# orders (a comment that must stay)
tools:
  - name: get_order   # the order tool
    description: Looks up an order.
    parameters:
      type: object
      properties:
        order_id:
          type: string   # an id
        note:
          type: [string, "null"]
        filter:
          type: object
          properties:
            status: {type: string}
      # a comment after the schema
  - name: cancel_order
    description: Cancels an order.
    parameters:
      type: object
      properties:
        reason: {anyOf: [{type: string}, {type: "null"}]}
        when: {type: [string, 'null']}
      required:
      - when
      additionalProperties: false
"""

BLOCK_FIXED = """\
# orders (a comment that must stay)
tools:
  - name: get_order   # the order tool
    description: Looks up an order.
    parameters:
      type: object
      properties:
        order_id:
          type: string   # an id
        note:
          type: [string, "null"]
        filter:
          type: object
          properties:
            status: {type: string}
          additionalProperties: false
      additionalProperties: false
      required: [note]
      # a comment after the schema
  - name: cancel_order
    description: Cancels an order.
    parameters:
      type: object
      properties:
        reason: {anyOf: [{type: string}, {type: "null"}]}
        when: {type: [string, 'null']}
      required:
      - when
      - reason
      additionalProperties: false
"""


def test_block_yaml_is_fixed_in_place_keeping_comments(tmp_path: Path) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text(BLOCK)
    plan = _fix(path, "openai-strict")
    assert path.read_text() == BLOCK_FIXED
    assert sorted(f.rule for f in plan.fixed) == ["TS401", "TS401", "TS402", "TS402"]
    left = {(u.finding.pointer.rsplit("/", 1)[-1], u.reason) for u in plan.unfixed}
    assert left == {
        ("order_id", "'order_id' is optional and not nullable; make it type [T, 'null'] first"),
        ("filter", "'filter' is optional and not nullable; make it type [T, 'null'] first"),
        ("status", "'status' is optional and not nullable; make it type [T, 'null'] first"),
    }


def test_a_second_fix_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text(BLOCK)
    _fix(path, "openai-strict")
    again = _fix(path, "openai-strict")
    assert again.files == () and path.read_text() == BLOCK_FIXED


def test_a_symlinked_registry_keeps_its_link(tmp_path: Path) -> None:
    target = tmp_path / "real.yaml"
    target.write_text(BLOCK)
    link = tmp_path / "tools.yaml"
    link.symlink_to(target)
    _fix(link, "openai-strict")
    assert link.is_symlink() and target.read_text() == BLOCK_FIXED


def test_flow_yaml_and_crlf(tmp_path: Path) -> None:
    path = tmp_path / "tools.yaml"
    text = (
        "tools:\r\n  - name: a\r\n    description: A.\r\n"
        "    parameters: {type: object, properties: {p: {type: [number, 'null']}, "
        "q: {type: object, properties: {}}}}  # flow\r\n"
        "    strict: true\r\n"
    )
    path.write_bytes(text.encode())
    _fix(path, "openai-strict")
    assert path.read_bytes().decode() == text.replace(
        "properties: {}}}}",
        "properties: {}, additionalProperties: false}}, additionalProperties: false, "
        "required: [p]}",
    )


JSON_TOOLS = {
    "tools": [
        {
            "name": "a",
            "description": "A.",
            "parameters": {
                "type": "object",
                "properties": {"p": {"type": ["string", "null"]}, "q": {"type": "string"}},
                "required": [],
            },
        },
        {"name": "b", "description": "B.", "parameters": {"type": "object"}},
    ]
}


@pytest.mark.parametrize("indent", [None, 2, 4, "\t"])
def test_json_keeps_its_indent_style(tmp_path: Path, indent: Any) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(JSON_TOOLS, indent=indent))
    _fix(path, "openai-strict")
    expected = json.loads(json.dumps(JSON_TOOLS))
    expected["tools"][0]["parameters"]["required"] = ["p"]
    expected["tools"][0]["parameters"]["additionalProperties"] = False
    expected["tools"][1]["parameters"]["additionalProperties"] = False
    assert json.loads(path.read_text()) == expected
    after = path.read_text()
    assert '"required": ["p"]' in after  # into the empty list
    if indent is None:
        assert "\n" not in after
    else:
        unit = indent if isinstance(indent, str) else " " * indent
        assert f'\n{unit * 4}"additionalProperties": false\n' in after


def test_anthropic_strict_closes_objects_and_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text(
        "tools:\n  - name: a\n    description: A.\n    strict: true\n    parameters:\n"
        "      type: object\n      properties:\n        n: {type: integer, minimum: 1}\n"
    )
    plan = _fix(path, "anthropic-strict")
    assert [f.rule for f in plan.fixed] == ["TS422"]
    assert path.read_text().endswith(
        "        n: {type: integer, minimum: 1}\n      additionalProperties: false\n"
    )


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("tools:\n  - name: a\n    description: [x\n", "it does not parse"),
        (
            "tools:\n  - name: a\n    description: A.\n    description: B.\n"
            "    parameters: {type: object}\n",
            "it has duplicate keys",
        ),
        (
            "x-schema: &s {type: object}\ntools:\n  - name: a\n    description: A.\n"
            "    parameters: *s\n",
            "it uses YAML anchors or merge keys",
        ),
    ],
    ids=["parse error", "duplicate key", "anchors"],
)
def test_files_that_cannot_be_edited_safely_are_left_alone(
    tmp_path: Path, text: str, reason: str
) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text(text)
    plan = _fix(path, "openai-strict")
    assert path.read_text() == text and plan.files == ()
    assert all(reason in u.reason for u in plan.unfixed)


def test_additional_properties_set_to_true_is_left(tmp_path: Path) -> None:
    path = tmp_path / "tools.yaml"
    text = "tools:\n  - name: a\n    description: A.\n    parameters:\n      type: object\n      additionalProperties: true\n"
    path.write_text(text)
    plan = _fix(path, "openai-strict")
    assert path.read_text() == text
    assert [u.reason for u in plan.unfixed] == [
        "`additionalProperties` is set; setting it to false changes the schema"
    ]


def test_accepts_null() -> None:
    assert accepts_null({"type": ["string", "null"]}) and accepts_null({"type": "null"})
    assert accepts_null({"anyOf": [{"type": "string"}, {"type": "null"}]})
    assert accepts_null({"oneOf": [{"anyOf": [{"type": ["null"]}]}]})
    assert not accepts_null({"type": "string", "enum": ["a", None]})
    assert not accepts_null({"type": "string"}) and not accepts_null({})


def _is_subsequence(small: str, big: str) -> bool:
    characters = iter(big)
    return all(ch in characters for ch in small)


@st.composite
def registries(draw: st.DrawFn) -> tuple[str, str]:
    """A registry of one to three tools, as block YAML or JSON of some indent."""
    tools = []
    for index in range(draw(st.integers(1, 3))):
        properties = draw(st.dictionaries(TEXT, SCHEMA | st.just({"type": ["string", "null"]})))
        tools.append(
            {
                "name": f"t{index}",
                "description": "D.",
                "parameters": {"type": "object", "properties": properties},
            }
        )
    document = {"tools": tools}
    style = draw(st.sampled_from(["yaml", "json", "json2", "json4"]))
    if style == "yaml":
        return "r.yaml", yaml_text(document)
    indent = {"json": None, "json2": 2, "json4": 4}[style]
    # ASCII: a raw DEL in a JSON string is valid JSON, but toolsel's loader refuses it
    return "r.json", json.dumps(document, indent=indent)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(registry=registries())
def test_fixing_only_inserts_and_leaves_nothing_fixable(
    registry: tuple[str, str], tmp_path: Path
) -> None:
    name, text = registry
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    before = load_registry(path, use_cache=False).tools
    plan = _fix(path, "openai-strict")
    after_text = path.read_text(encoding="utf-8")
    if any("the file is not edited" in u.reason for u in plan.unfixed):
        assert after_text == text  # e.g. JSON with escaped surrogate pairs: left alone
        return
    assert _is_subsequence(text, after_text)  # nothing removed or rewritten
    result = lint_paths([path], overrides={"targets": ["openai-strict"]}, use_cache=False)
    assert not [f for f in result.findings if f.rule in ("TS001", "TS401")]
    after = load_registry(path, use_cache=False).tools
    assert [t.name for t in after] == [t.name for t in before]
    assert plan_fixes(result, {str(path): path}).files == ()  # idempotent
