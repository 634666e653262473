"""TS42x: Anthropic Messages tools and strict tool use."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Rule, Severity
from toolsel.lint.rules._util import name_pattern_hits, registry_hit, unsupported_keywords
from toolsel.lint.schema import is_object_schema, properties_of, walk_schema

NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
UNSUPPORTED = (
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
    "maxLength", "maxItems", "uniqueItems",
)  # fmt: skip
BAD_REGEX = (
    (re.compile(r"\\[1-9]|\\k<"), "backreferences"),
    (re.compile(r"\(\?<?[=!]"), "lookaround"),
    (re.compile(r"\\[bB]"), "word boundaries (\\b, \\B)"),
    (re.compile(r"\{\d{4,}(,\d*)?\}|\{\d*,\d{4,}\}"), "large repetition counts"),
)


def anthropic_name(context: LintContext) -> Iterator[Hit]:
    """The documented contract (the live API has accepted up to 128 characters since 2025)."""
    yield from name_pattern_hits(context, "anthropic", NAME, "Anthropic")


TS421 = Rule(
    "TS421",
    "anthropic-name",
    Severity.ERROR,
    "[anthropic] name matches `^[a-zA-Z0-9_-]{1,64}$`",
    bad="- name: files.read\n  description: d\n",
    good="- name: files_read\n  description: d\n",
    profile="anthropic",
    check=anthropic_name,
)


def strict_unsupported(context: LintContext) -> Iterator[Hit]:
    """Strict tool use answers 400 to numeric bounds, string lengths, `maxItems`,
    `uniqueItems`, `minItems` above 1, objects without `additionalProperties: false`,
    enums of non-primitive values, external references and `allOf` with `$ref`."""
    yield from unsupported_keywords(
        context, "anthropic-strict", UNSUPPORTED, "is not supported by Anthropic strict tool use"
    )
    for tool in context.profile_tools("anthropic-strict"):
        for node in context.schema_nodes(tool):
            schema = node.schema
            if isinstance(schema.get("minItems"), int) and schema["minItems"] > 1:
                yield context.schema_hit(
                    tool,
                    f"{node.pointer}/minItems",
                    "`minItems` above 1 is not supported by Anthropic strict tool use",
                )
            if is_object_schema(schema) and schema.get("additionalProperties") is not False:
                yield context.schema_hit(
                    tool,
                    node.pointer,
                    "object without `additionalProperties: false` (required by Anthropic strict tool use)",
                )
            values = schema.get("enum")
            if isinstance(values, list) and any(isinstance(v, (dict, list)) for v in values):
                yield context.schema_hit(
                    tool,
                    f"{node.pointer}/enum",
                    "enum with non-primitive values is not supported by Anthropic strict tool use",
                )
            if isinstance(schema.get("allOf"), list) and any(
                isinstance(s, dict) and "$ref" in s for s in schema["allOf"]
            ):
                yield context.schema_hit(
                    tool,
                    f"{node.pointer}/allOf",
                    "`allOf` with `$ref` is not supported by Anthropic strict tool use",
                    key=True,
                )
            ref = schema.get("$ref")
            if isinstance(ref, str) and not ref.startswith("#"):
                yield context.schema_hit(
                    tool,
                    f"{node.pointer}/$ref",
                    "external `$ref` is not supported by Anthropic strict tool use",
                )


TS422 = Rule(
    "TS422",
    "anthropic-strict-unsupported",
    Severity.ERROR,
    "[anthropic-strict] no unsupported schema features",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {n: {type: integer, minimum: 1}}, additionalProperties: false}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {n: {type: integer}}, additionalProperties: false}\n",
    profile="anthropic-strict",
    check=strict_unsupported,
)


def _optional_and_union_counts(schema: dict[str, object]) -> tuple[int, int]:
    optional = unions = 0
    for node in walk_schema(schema):
        required = node.schema.get("required", [])
        required = required if isinstance(required, list) else []
        for name, sub in properties_of(node.schema).items():
            if name not in required:
                optional += 1
            if isinstance(sub, dict) and ("anyOf" in sub or isinstance(sub.get("type"), list)):
                unions += 1
    return optional, unions


def strict_limits(context: LintContext) -> Iterator[Hit]:
    """At most 20 strict tools, 24 optional parameters and 16 union-typed parameters across
    all strict schemas of one request."""
    tools = list(context.profile_tools("anthropic-strict"))
    counts = [_optional_and_union_counts(tool.parameters) for tool in tools]
    optional, unions = sum(o for o, _ in counts), sum(u for _, u in counts)
    checks = (
        (len(tools), context.option("anthropic-max-strict-tools"), "strict tools"),
        (
            optional,
            context.option("anthropic-max-optional-params"),
            "optional parameters across strict tools",
        ),
        (
            unions,
            context.option("anthropic-max-union-params"),
            "union-typed parameters across strict tools",
        ),
    )
    for value, maximum, label in checks:
        if value > maximum:
            yield registry_hit(
                context, f"{value} {label} (Anthropic strict max {maximum} per request)"
            )


TS423 = Rule(
    "TS423",
    "anthropic-strict-limits",
    Severity.ERROR,
    "[anthropic-strict] request-level complexity limits",
    bad="".join(
        f"- name: t{i}\n  description: d\n  strict: true\n  parameters: {{type: object, properties: {{}}, additionalProperties: false}}\n"
        for i in range(21)
    ),
    good="- name: a\n  description: d\n  strict: true\n  parameters: {type: object, properties: {}, additionalProperties: false}\n",
    profile="anthropic-strict",
    check=strict_limits,
)


def strict_regex(context: LintContext) -> Iterator[Hit]:
    """No backreferences, lookahead or lookbehind, `\\b`/`\\B`, or large `{n,m}` counts."""
    for tool in context.profile_tools("anthropic-strict"):
        for node in context.schema_nodes(tool):
            pattern = node.schema.get("pattern")
            if not isinstance(pattern, str):
                continue
            for regex, label in BAD_REGEX:
                if regex.search(pattern):
                    yield context.schema_hit(
                        tool,
                        f"{node.pointer}/pattern",
                        f"pattern uses {label}, unsupported by Anthropic strict tool use",
                    )


TS424 = Rule(
    "TS424",
    "anthropic-strict-regex",
    Severity.ERROR,
    "[anthropic-strict] `pattern` uses supported regex only",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string, pattern: '^(a)\\\\1$'}}, additionalProperties: false}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string, pattern: '^[a-z]+$'}}, additionalProperties: false}\n",
    profile="anthropic-strict",
    check=strict_regex,
)
