"""TS46x: the Model Context Protocol `Tool` object."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Rule, Severity
from toolsel.lint.rules._util import name_pattern_hits

NAME = re.compile(r"[A-Za-z0-9._-]{1,128}")


def mcp_name(context: LintContext) -> Iterator[Hit]:
    """The MCP spec's SHOULD and the SDKs' `validate_tool_name` warnings."""
    yield from name_pattern_hits(context, "mcp", NAME, "MCP")
    for tool in context.profile_tools("mcp"):
        name = tool.name
        if NAME.fullmatch(name) and (name[0] in "-." or name[-1] in "-."):
            yield context.hit(
                tool,
                "name",
                message=f"name {name!r} begins or ends with '-' or '.' (MCP SDKs warn)",
            )


TS461 = Rule(
    "TS461",
    "mcp-name",
    Severity.WARNING,
    "[mcp] name matches `^[A-Za-z0-9._-]{1,128}$`, no leading/trailing `-` or `.`",
    bad="- name: read file\n  description: d\n",
    good="- name: read_file\n  description: d\n",
    profile="mcp",
    check=mcp_name,
)


def output_schema_object(context: LintContext) -> Iterator[Hit]:
    """The spec restricts `outputSchema` to an object root, because servers return
    `structuredContent`, which is an object."""
    for tool in context.profile_tools("mcp"):
        if tool.output_schema is not None and tool.output_schema.get("type") != "object":
            yield context.hit(
                tool, "output_schema", message="`outputSchema` root must be `type: object`"
            )


TS462 = Rule(
    "TS462",
    "mcp-output-schema-object",
    Severity.ERROR,
    "[mcp] `outputSchema` root is `type: object`",
    bad="- name: a\n  description: d\n  output_schema: {type: string}\n",
    good="- name: a\n  description: d\n  output_schema: {type: object, properties: {}}\n",
    profile="mcp",
    check=output_schema_object,
)
