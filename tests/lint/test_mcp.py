"""TS46x (lint/rules/mcp.py): the MCP Tool object."""

from __future__ import annotations

from tests.lint.helpers import assert_findings

MCP = ("mcp",)


def test_names() -> None:
    assert_findings(
        "- {name: read file, description: d}\n", ["TS461 /tools/0/name"], rule="TS461", targets=MCP
    )
    assert_findings(
        "- {name: -read, description: d}\n", ["TS461 /tools/0/name"], rule="TS461", targets=MCP
    )
    assert_findings("- {name: files.read, description: d}\n", [], rule="TS461", targets=MCP)


def test_output_schema_root_is_an_object() -> None:
    text = "- {name: a, description: d, output_schema: {type: string}}\n"
    assert_findings(text, ["TS462 /tools/0/output_schema"], rule="TS462", targets=MCP)
