"""TS44x: Google Gemini function declarations (the OpenAPI 3.0 `Schema` subset)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Rule, Severity
from toolsel.lint.rules._util import name_pattern_hits, tool_count_hits, unsupported_keywords
from toolsel.registry.formats import GEMINI_UNSUPPORTED
from toolsel.registry.model import Tool

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,127}")
UNSUPPORTED = GEMINI_UNSUPPORTED


def subset_tools(context: LintContext) -> Iterator[Tool]:
    """Gemini-bound tools whose schema goes in `parameters` (the OpenAPI subset); a
    declaration read from `parametersJsonSchema` takes full JSON Schema."""
    for tool in context.profile_tools("gemini"):
        if tool.source.format != "gemini-json-schema":
            yield tool


def gemini_name(context: LintContext) -> Iterator[Hit]:
    """python-genai's `FunctionDeclaration.name` rule (older Vertex SDKs capped it at 64)."""
    who = "Gemini: a letter or '_' first; dots, colons and dashes allowed"
    yield from name_pattern_hits(context, "gemini", NAME, who)


TS441 = Rule(
    "TS441",
    "gemini-name",
    Severity.ERROR,
    "[gemini] name starts with a letter or `_`, uses `[A-Za-z0-9_.:-]`, at most 128",
    bad="- name: 1st_tool\n  description: d\n",
    good="- name: first_tool\n  description: d\n",
    profile="gemini",
    check=gemini_name,
)


def unsupported_keyword(context: LintContext) -> Iterator[Hit]:
    """Gemini answers 400 `Unknown name "$schema"` (and likewise for `oneOf`, `allOf`, `not`,
    `const`, `exclusive*`, `uniqueItems`, `patternProperties`, `if`/`then`/`else`) when a
    schema is sent as `parameters`."""
    yield from unsupported_keywords(
        context,
        "gemini",
        UNSUPPORTED,
        "is not in Gemini's schema subset (or use parametersJsonSchema)",
        subset_tools(context),
    )


TS442 = Rule(
    "TS442",
    "gemini-unsupported-keyword",
    Severity.ERROR,
    "[gemini] only keywords of the OpenAPI subset",
    bad="- name: a\n  description: d\n  parameters: {$schema: 'https://json-schema.org/draft/2020-12/schema', type: object, properties: {}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {}}\n",
    profile="gemini",
    check=unsupported_keyword,
)


def enum_strings(context: LintContext) -> Iterator[Hit]:
    """`Schema.enum` is `list[str]` in Gemini."""
    for tool in subset_tools(context):
        for node in context.schema_nodes(tool):
            values = node.schema.get("enum")
            if isinstance(values, list) and any(not isinstance(v, str) for v in values):
                yield context.schema_hit(
                    tool, f"{node.pointer}/enum", "Gemini enums must contain strings only"
                )


TS443 = Rule(
    "TS443",
    "gemini-enum-strings",
    Severity.ERROR,
    "[gemini] enum values are strings",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {n: {type: integer, enum: [1, 2]}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {n: {type: string, enum: ['1', '2']}}}\n",
    profile="gemini",
    check=enum_strings,
)


def properties_on_non_object(context: LintContext) -> Iterator[Hit]:
    """Observed 400: "properties: only allowed for OBJECT type"."""
    for tool in subset_tools(context):
        for node in context.schema_nodes(tool):
            kind = node.schema.get("type")
            kinds = [str(k).lower() for k in (kind if isinstance(kind, list) else [kind])]
            if kind is None or "object" in kinds:  # Gemini's own `OBJECT` too
                continue
            for keyword in ("properties", "required"):
                if keyword in node.schema:
                    yield context.schema_hit(
                        tool,
                        f"{node.pointer}/{keyword}",
                        f"`{keyword}` on a {kind!r} node; Gemini allows it only on objects",
                        key=True,
                    )


TS444 = Rule(
    "TS444",
    "gemini-properties-on-non-object",
    Severity.ERROR,
    "[gemini] `properties`/`required` only on objects",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string, properties: {}}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string}}}\n",
    profile="gemini",
    check=properties_on_non_object,
)


def ref_rules(context: LintContext) -> Iterator[Hit]:
    """ "If a schema node has $ref set, then only description and default can be set
    alongside it", and `$defs` is only allowed at the root."""
    for tool in subset_tools(context):
        for node in context.schema_nodes(tool):
            if "$ref" in node.schema:
                extra = sorted(
                    k for k in node.schema if k not in ("$ref", "description", "default")
                )
                if extra:
                    yield context.schema_hit(
                        tool,
                        f"{node.pointer}/$ref",
                        f"`$ref` beside {extra}; Gemini allows only description and default",
                    )
            if not node.is_root and ("$defs" in node.schema or "definitions" in node.schema):
                keyword = "$defs" if "$defs" in node.schema else "definitions"
                yield context.schema_hit(
                    tool,
                    f"{node.pointer}/{keyword}",
                    f"`{keyword}` below the root; Gemini allows it only at the root",
                    key=True,
                )


TS445 = Rule(
    "TS445",
    "gemini-ref-rules",
    Severity.ERROR,
    "[gemini] `$ref` siblings and `$defs` placement",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {$ref: '#/$defs/p', type: string}}, $defs: {p: {type: string}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {$ref: '#/$defs/p', description: x}}, $defs: {p: {type: string}}}\n",
    profile="gemini",
    check=ref_rules,
)


def tool_count(context: LintContext) -> Iterator[Hit]:
    """A `Tool` holds at most 512 function declarations (error); Google recommends 10-20
    active (info: advice for one request, and a registry is what a client selects each
    request's tools from)."""
    yield from tool_count_hits(context, "Gemini", "recommends at most")


TS446 = Rule(
    "TS446",
    "gemini-tool-count",
    Severity.ERROR,
    "[gemini] at most 512 declarations (10-20 recommended)",
    bad="".join(f"- name: t{i}\n  description: d\n" for i in range(21)),
    good="- name: a\n  description: d\n",
    profile="gemini",
    check=tool_count,
)
