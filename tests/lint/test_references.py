"""TS315, TS316, TS321, TS322 (lint/rules/references.py): `$ref`s that stay local, recurse
only where allowed and do not multiply the work; `$defs` that are used."""

from __future__ import annotations

import json

import pytest

from tests.fan_out import KINDS, branching, descending, fan_out, hard_timeout
from tests.lint.helpers import assert_findings, lint_text, report


def test_references_stay_local_and_finite() -> None:
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: {p: {$ref: 'https://x/s.json'}}}}\n",
        ["TS315 /tools/0/parameters/properties/p/$ref"],
        rule="TS315",
    )
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: {c: {$ref: '#'}}}}\n",
        ["TS316 /tools/0/parameters/properties/c/$ref"],
        rule="TS316",
    )


def test_dynamic_refs_outside_the_schema_are_external_too() -> None:
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: {p: {$dynamicRef: 'https://x/s'}}}}\n",
        ["TS315 /tools/0/parameters/properties/p/$dynamicRef"],
        rule="TS315",
    )


def test_unused_definitions_and_the_tools_that_repeat_them() -> None:
    from tests.lint.helpers import lint_text

    defs = "$defs: {Used: {type: string}, Chain: {$ref: '#/$defs/Used'}, Dead: {type: object}}"
    tool = (
        "- {name: NAME, description: d, parameters: {type: object, "
        "properties: {x: {$ref: '#/$defs/Chain'}}, " + defs + "}}\n"
    )
    text = tool.replace("NAME", "a") + tool.replace("NAME", "b")
    findings = [f for f in lint_text(text) if f.rule == "TS322"]
    assert [(f.pointer, f.severity.value) for f in findings] == [
        ("/tools/0/parameters/$defs", "info"),
        ("/tools/1/parameters/$defs", "info"),
    ]
    assert "'Dead' is not used" in findings[0].message
    assert "the same unused definitions ship with 2 tools" in findings[0].message


@pytest.mark.parametrize("kind", KINDS)
def test_a_schema_that_fans_out_is_an_error_at_its_ref(kind: str) -> None:
    tool = {"name": "a", "description": "d", "parameters": fan_out(40, kind)}
    with hard_timeout(60):
        findings = [f for f in lint_text(json.dumps([tool])) if f.rule == "TS321"]
    assert [(f.pointer, f.severity.value) for f in findings] == [
        ("/tools/0/parameters/properties/x/$ref", "error")
    ]
    assert "subschemas to one value (limit 5,000)" in findings[0].message
    assert "reference each shared definition once per level" in findings[0].message


def test_an_in_place_loop_is_an_error_and_recursion_through_properties_is_not() -> None:
    loop = {"type": "object", "properties": {"p": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/a"}]}}}  # fmt: skip
    assert_findings(
        json.dumps([{"name": "a", "description": "d", "parameters": loop}]),
        ["TS321 /tools/0/parameters/$defs/a/anyOf/1/$ref"],
        rule="TS321",
    )
    for schema in (branching(40), descending(40), fan_out(8)):
        assert_findings(
            json.dumps([{"name": "a", "description": "d", "parameters": schema}]), [], rule="TS321"
        )


def test_an_invalid_or_external_schema_is_left_to_ts302_and_ts315() -> None:
    for schema in (
        {"type": "object", "properties": {"p": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"$id": 5}}},
        {"type": "object", "properties": {"p": {"$ref": "https://x/s.json"}}},
    ):
        assert_findings(
            json.dumps([{"name": "a", "description": "d", "parameters": schema}]), [], rule="TS321"
        )


def test_ts315_names_the_reference_that_is_not_local() -> None:
    text = (
        "- {name: a, description: d, parameters: {type: object, properties: {\n"
        "    e: {$ref: 'https://example.com/s.json'}, d: {$dynamicRef: 'other.json#x'}, l: {$ref: '#/$defs/l'}, n: {$ref: 3}},\n"
        "  $defs: {l: {type: string}}}}\n"
    )
    assert report(text, "TS315") == [
        "/tools/0/parameters/properties/e/$ref 3:17 error `$ref: https://example.com/s.json` is not local; inline it under `$defs`",
        "/tools/0/parameters/properties/d/$dynamicRef 3:65 error `$dynamicRef: other.json#x` is not local; inline it under `$defs`",
    ]


@pytest.mark.parametrize(
    ("targets", "severity"),
    [(("portable",), "info"), (("anthropic-strict",), "error"), (("gemini",), "error")],
)
def test_ts316_recursion_is_information_unless_a_target_rejects_it(
    targets: tuple[str, ...], severity: str
) -> None:
    """A reference to an enclosing schema, the root or the node itself; not a sibling, nor a
    name that merely starts the same, nor an external or dynamic one."""
    text = (
        "- {name: a, description: d, parameters: {type: object, properties: {\n"
        "    self: {$ref: '#'}, up: {type: object, properties: {down: {$ref: '#/properties/up'}}},\n"
        "    same: {$ref: '#/properties/same'}, sib: {$ref: '#/properties/up'}, pre: {$ref: '#/properties/u'},\n"
        "    ext: {$ref: 'https://x/s.json#'}, dyn: {$dynamicRef: '#'}}}}\n"
    )
    assert report(text, "TS316", targets=targets) == [
        f"/tools/0/parameters/properties/self/$ref 3:20 {severity} `$ref: #` refers to an enclosing schema (recursion)",
        f"/tools/0/parameters/properties/up/properties/down/$ref 3:71 {severity} `$ref: #/properties/up` refers to an enclosing schema (recursion)",
        f"/tools/0/parameters/properties/same/$ref 4:20 {severity} `$ref: #/properties/same` refers to an enclosing schema (recursion)",
    ]


def test_ts322_counts_unused_definitions_and_follows_references() -> None:
    """Names are unescaped (`~1` is `/`), `$dynamicRef` counts, and a definition reached
    through another is used."""
    text = (
        "- name: a\n"
        "  description: d\n"
        "  parameters:\n"
        "    type: object\n"
        "    properties: {x: {$ref: '#/$defs/a~1b'}, y: {$dynamicRef: '#/$defs/Dyn'}, z: {$ref: '#/$defs/t~0/deep'}}\n"
        "    $defs: {a/b: {$ref: '#/$defs/Chained'}, Chained: {type: string}, Dyn: {}, t~: {}, U1: {}, U2: {}, U3: {}, U4: {}, U5: {}, U6: {}, U7: {}}\n"
        "- {name: b, description: d, parameters: {type: object, properties: {x: {$ref: '#/definitions/Used'}}, definitions: {Used: {}, Dead: {}}}}\n"
        "- {name: c, description: d, parameters: {type: object, properties: {x: {$ref: '#/$defs/Used'}}, $defs: {Used: {$ref: '#/$defs/Used'}, Dead: {}, Gone: {}}}}\n"
        "- {name: e, description: d, parameters: {type: object, $defs: {}}}\n"
    )
    assert report(text, "TS322") == [
        "/tools/0/parameters/$defs 7:7 info `$defs` 'U1', 'U2', 'U3', 'U4', 'U5' and 2 more are not used by this tool's schema",
        "/tools/1/parameters/definitions 8:105 info `definitions` 'Dead' is not used by this tool's schema",
        "/tools/2/parameters/$defs 9:99 info `$defs` 'Dead', 'Gone' are not used by this tool's schema",
    ]


def test_a_reference_loop_gets_its_own_advice() -> None:
    loop = {"type": "object", "properties": {"p": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/a"}]}}}  # fmt: skip
    (finding,) = [
        f
        for f in lint_text(json.dumps([{"name": "a", "description": "d", "parameters": loop}]))
        if f.rule == "TS321"
    ]
    assert finding.message.startswith("schema too costly to validate: ")
    assert finding.message.endswith(
        "; toolsel replay and serve report this tool's calls as not checked, and other "
        "validators may hang: make the reference descend into a property or item, or remove it"
    )


def test_ts321_checks_every_tool_and_advises_flattening_a_fan_out() -> None:
    cheap = {"type": "object", "properties": {"p": {"$ref": "#/$defs/s"}}, "$defs": {"s": {"type": "string"}}}  # fmt: skip
    tools = [
        {"name": "plain", "description": "d", "parameters": {"type": "object"}},
        {"name": "cheap", "description": "d", "parameters": cheap},
        {"name": "wide", "description": "d", "parameters": fan_out(14)},
    ]
    (finding,) = [f for f in lint_text(json.dumps(tools)) if f.rule == "TS321"]
    assert finding.pointer.startswith("/tools/2/parameters")
    assert finding.message.startswith("schema too costly to validate: ")
    assert finding.message.endswith(
        ": reference each shared definition once per level (flatten it, or keep one `$ref` "
        "where `allOf`/`anyOf` lists the same one twice)"
    )


def test_ts321_goes_on_past_a_schema_it_cannot_measure() -> None:
    """An invalid schema (TS302's finding) is skipped, not the tools after it."""
    broken = {"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"allOf": 3}}}  # fmt: skip
    tools = [
        {"name": "broken", "description": "d", "parameters": broken},
        {"name": "wide", "description": "d", "parameters": fan_out(14)},
    ]
    pointers = [f.pointer for f in lint_text(json.dumps(tools)) if f.rule == "TS321"]
    assert len(pointers) == 1 and pointers[0].startswith("/tools/1/parameters")
