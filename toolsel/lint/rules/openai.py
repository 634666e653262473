"""TS40x: OpenAI function calling and Structured Outputs (strict mode)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Rule, Severity
from toolsel.lint.rules._util import tool_count_hits, unsupported_keywords
from toolsel.lint.schema import is_object_schema, properties_of, walk_schema
from toolsel.registry.source import escape_token

#: Keywords strict mode refuses: those its documentation lists as unsupported (`allOf`,
#: `not`, `if`/`then`/`else`, `dependentRequired`, `dependentSchemas`), and those outside its
#: documented subset that the API is seen to refuse ("'oneOf' is not permitted", "'default'
#: is not permitted"; docker/docker-agent#4155, issue reports quoted in the reference notes).
UNSUPPORTED = (
    "allOf", "oneOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas",
    "default",
)  # fmt: skip
FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)


def additional_properties(context: LintContext) -> Iterator[Hit]:
    """Structured Outputs: "additionalProperties: false must always be set in objects"."""
    for tool in context.profile_tools("openai-strict"):
        for node in context.schema_nodes(tool):
            if (
                is_object_schema(node.schema)
                and node.schema.get("additionalProperties") is not False
            ):
                yield context.schema_hit(
                    tool,
                    node.pointer,
                    "object without `additionalProperties: false` (required by OpenAI strict mode)",
                )


TS401 = Rule(
    "TS401",
    "openai-additional-properties",
    Severity.ERROR,
    "[openai-strict] every object sets `additionalProperties: false`",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {}, additionalProperties: false}\n",
    profile="openai-strict",
    check=additional_properties,
)


def all_required(context: LintContext) -> Iterator[Hit]:
    """Strict mode requires every field; express an optional one as a union with `null`."""
    for tool in context.profile_tools("openai-strict"):
        for node in context.schema_nodes(tool):
            required = node.schema.get("required", [])
            required = required if isinstance(required, list) else []
            for name in properties_of(node.schema):
                if name not in required:
                    yield context.schema_hit(
                        tool,
                        f"{node.pointer}/properties/{escape_token(name)}",
                        f"property {name!r} is not in `required`; strict mode needs all (use type [T, 'null'] for optional)",
                        key=True,
                    )


TS402 = Rule(
    "TS402",
    "openai-all-required",
    Severity.ERROR,
    "[openai-strict] every property is in `required`",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string}}, additionalProperties: false}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: [string, 'null']}}, required: [p], additionalProperties: false}\n",
    profile="openai-strict",
    check=all_required,
)


def unsupported_keyword(context: LintContext) -> Iterator[Hit]:
    """Strict mode rejects `allOf`, `oneOf` (use `anyOf`), `not`, `if`/`then`/`else`,
    `dependentRequired`, `dependentSchemas` and `default` with a 400 ("'oneOf' is not
    permitted"), and formats outside date-time, time, date, duration, email, hostname,
    ipv4, ipv6 and uuid."""
    yield from unsupported_keywords(
        context, "openai-strict", UNSUPPORTED, "is not supported by OpenAI strict mode"
    )
    for tool in context.profile_tools("openai-strict"):
        for node in context.schema_nodes(tool):
            fmt = node.schema.get("format")
            if isinstance(fmt, str) and fmt not in FORMATS:
                yield context.schema_hit(
                    tool,
                    f"{node.pointer}/format",
                    f"format {fmt!r} is not supported by OpenAI strict mode",
                )


TS403 = Rule(
    "TS403",
    "openai-unsupported-keyword",
    Severity.ERROR,
    "[openai-strict] no unsupported keywords or formats",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {allOf: [{type: string}]}}, required: [p], additionalProperties: false}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string}}, required: [p], additionalProperties: false}\n",
    profile="openai-strict",
    check=unsupported_keyword,
)


def _size(schema: dict[str, Any]) -> tuple[int, int, int, int]:
    properties = chars = enum_values = depth = 0
    for node in walk_schema(schema):
        props = properties_of(node.schema)
        properties += len(props)
        chars += sum(len(str(name)) for name in props)
        depth = max(depth, node.depth)
        for keyword in ("$defs", "definitions"):
            defs = node.schema.get(keyword)
            if isinstance(defs, dict):
                chars += sum(len(str(name)) for name in defs)
        values = node.schema.get("enum")
        if isinstance(values, list):
            enum_values += len(values)
            chars += sum(len(str(v)) for v in values)
        if "const" in node.schema:
            chars += len(str(node.schema["const"]))
    return properties, depth, chars, enum_values


def size_limits(context: LintContext) -> Iterator[Hit]:
    """At most 5000 properties, 10 levels of nesting, 120,000 characters of names, enum and
    const values, and 1000 enum values (options `openai-max-*`; older limits were 100, 5,
    15,000 and 500)."""
    limits = (
        ("properties", context.option("openai-max-properties")),
        ("levels of nesting", context.option("openai-max-depth")),
        ("characters of names and values", context.option("openai-max-chars")),
        ("enum values", context.option("openai-max-enum-values")),
    )
    for tool in context.profile_tools("openai-strict"):
        for (label, maximum), value in zip(limits, _size(tool.parameters), strict=True):
            if value > maximum:
                yield context.schema_hit(
                    tool, "", f"schema has {value} {label} (OpenAI strict max {maximum})"
                )


TS404 = Rule(
    "TS404",
    "openai-size-limits",
    Severity.ERROR,
    "[openai-strict] schema within OpenAI's size limits",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string, enum: ["
    + ", ".join(f"v{i}" for i in range(1001))
    + "]}}, required: [p], additionalProperties: false}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string, enum: [a, b]}}, required: [p], additionalProperties: false}\n",
    profile="openai-strict",
    check=size_limits,
)


def ref_siblings(context: LintContext) -> Iterator[Hit]:
    """OpenAI's SDK inlines a `$ref` that has siblings ("we can't use $refs if there are also
    other properties defined"); raw schemas sent without the SDK may be rejected."""
    for tool in context.profile_tools("openai-strict"):
        for node in context.schema_nodes(tool):
            if "$ref" in node.schema and len(node.schema) > 1:
                others = sorted(k for k in node.schema if k != "$ref")
                yield context.schema_hit(
                    tool,
                    f"{node.pointer}/$ref",
                    f"`$ref` has sibling keywords {others}; inline the reference",
                )


TS405 = Rule(
    "TS405",
    "openai-ref-siblings",
    Severity.WARNING,
    "[openai-strict] `$ref` has no sibling keywords",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {$ref: '#/$defs/p', description: x}}, required: [p], additionalProperties: false, $defs: {p: {type: string}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {$ref: '#/$defs/p'}}, required: [p], additionalProperties: false, $defs: {p: {type: string}}}\n",
    profile="openai-strict",
    check=ref_siblings,
)


def tool_count(context: LintContext) -> Iterator[Hit]:
    """The API accepts at most 128 functions per request (error); OpenAI's guide says to aim
    for fewer than 20 at a time (info: advice for one request, and a registry is what a client
    selects each request's tools from). Counts the whole registry; `toolsel rank` shows
    how many a prompt would be offered."""
    yield from tool_count_hits(context, "OpenAI", "recommends fewer than")


TS406 = Rule(
    "TS406",
    "openai-tool-count",
    Severity.ERROR,
    "[openai] at most 128 tools (20 recommended)",
    bad="".join(f"- name: t{i}\n  description: d\n" for i in range(21)),
    good="- name: a\n  description: d\n",
    profile="openai",
    check=tool_count,
)
