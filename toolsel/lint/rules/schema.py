"""TS3xx, validity: parameter schemas that are valid JSON Schema, with enums, defaults,
patterns and integers every validator and client reads alike (`references` checks `$ref`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from toolsel.jsontext import MAX_SAFE_INTEGER, dumps
from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Rule, Severity
from toolsel.lint.rules._util import has_field, schema_nodes
from toolsel.metaschema import schema_errors
from toolsel.registry.source import escape_token
from toolsel.validate import json_key, json_text


def root_object(context: LintContext) -> Iterator[Hit]:
    """Anthropic requires `type: object` at the root, MCP too, and OpenAI rejects an `anyOf`
    root. Put alternatives inside a property instead."""
    for tool in context.tools:
        params = tool.parameters
        if params.get("type") != "object":
            yield context.schema_hit(
                tool,
                "",
                f"`parameters` root has type {json_text(params.get('type'))}; it must be `type: object`",
            )
        for keyword in ("anyOf", "oneOf"):
            if keyword in params:
                yield context.schema_hit(
                    tool,
                    "/" + keyword,
                    f"`{keyword}` at the root of `parameters` is rejected by OpenAI; move it into a property",
                    key=True,
                )


TS301 = Rule(
    "TS301",
    "parameters-root-object",
    Severity.ERROR,
    "`parameters` is an object schema at the root",
    bad="- name: a\n  description: d\n  parameters: {type: string}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {}}\n",
    check=root_object,
)


def invalid_schema(context: LintContext) -> Iterator[Hit]:
    """Checked against the metaschema of its `$schema` dialect, 2020-12 when absent (the MCP
    default). Identical schemas are checked once."""
    for tool in context.tools:
        if not has_field(tool, "parameters"):
            continue
        try:
            key = dumps(tool.parameters, option=orjson.OPT_SORT_KEYS)
        except (TypeError, orjson.JSONEncodeError):
            continue
        for pointer, message in schema_errors(key):
            yield context.schema_hit(tool, pointer, f"invalid JSON Schema: {message}")


TS302 = Rule(
    "TS302",
    "invalid-json-schema",
    Severity.ERROR,
    "`parameters` is valid JSON Schema",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {n: {type: integr}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {n: {type: integer}}}\n",
    check=invalid_schema,
)


def required_missing(context: LintContext) -> Iterator[Hit]:
    """A required key that is not a property is a contract nobody can satisfy."""
    for tool, node in schema_nodes(context):
        required = node.schema.get("required")
        props = node.schema.get("properties")
        if isinstance(required, list) and isinstance(props, dict):
            for index, name in enumerate(required):
                if isinstance(name, str) and name not in props:
                    from toolsel.suggest import did_you_mean

                    yield context.schema_hit(
                        tool,
                        f"{node.pointer}/required/{index}",
                        f"required property {name!r} is not in `properties`{did_you_mean(name, props)}",
                    )


TS303 = Rule(
    "TS303",
    "required-not-in-properties",
    Severity.ERROR,
    "`required` names only declared properties",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {}, required: [path]}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {path: {type: string}}, required: [path]}\n",
    check=required_missing,
)


def bad_enum(context: LintContext) -> Iterator[Hit]:
    """An empty enum leaves the model nothing to choose; duplicates are noise. Values that
    differ only by case are a warning: Anthropic's strict mode may return the wrong case."""
    for tool, node in schema_nodes(context):
        values = node.schema.get("enum")
        if not isinstance(values, list):
            continue
        where = f"{node.pointer}/enum"
        if not values:
            yield context.schema_hit(
                tool, where, "enum is empty; the model cannot choose any value"
            )
            continue
        seen: set[Any] = set()
        folded: dict[str, str] = {}
        for index, value in enumerate(values):
            try:
                key = json_key(value)
            except RecursionError:  # a value nested too deep to compare: taken as unique
                key = ("id", id(value))
            if key in seen:
                yield context.schema_hit(
                    tool, f"{where}/{index}", f"enum value {json_text(value)} appears twice"
                )
            seen.add(key)
            if isinstance(value, str):
                other = folded.setdefault(value.casefold(), value)
                if other != value:
                    yield context.schema_hit(
                        tool,
                        f"{where}/{index}",
                        f"enum values {json_text(other)} and {json_text(value)} differ only by case",
                        severity=Severity.WARNING,
                    )


TS310 = Rule(
    "TS310",
    "bad-enum",
    Severity.ERROR,
    "Enums are non-empty, without duplicates",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {m: {type: string, enum: [a, a]}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {m: {type: string, enum: [a, b]}}}\n",
    check=bad_enum,
)


def bad_default(context: LintContext) -> Iterator[Hit]:
    """A default the schema itself rejects (wrong type, not in the enum) is a contradiction."""
    from toolsel.validate import InputValidator

    for tool, node in schema_nodes(context):
        if "default" not in node.schema:
            continue
        schema = {k: v for k, v in node.schema.items() if k not in ("default", "$ref")}
        problem = InputValidator(schema).check(node.schema["default"])
        if problem is not None and problem.rule == "invalid-input":
            message = problem.message.split(" is invalid: ", 1)[-1]
            yield context.schema_hit(
                tool,
                f"{node.pointer}/default",
                f"default {json_text(node.schema['default'])} is invalid: {message}",
            )


TS311 = Rule(
    "TS311",
    "bad-default",
    Severity.WARNING,
    "`default` is valid against its own schema",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {n: {type: integer, default: many}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {n: {type: integer, default: 3}}}\n",
    check=bad_default,
)


def draft3_required(context: LintContext) -> Iterator[Hit]:
    """`required: true` on a property is draft-3 syntax; 2020-12 ignores it silently, so the
    parameter is optional. List it in the parent's `required` array instead."""
    for tool, node in schema_nodes(context):
        if isinstance(node.schema.get("required"), bool):
            yield context.schema_hit(
                tool,
                f"{node.pointer}/required",
                "`required: true/false` inside a property is ignored; list the name in the parent's `required` array",
                key=True,
            )


TS314 = Rule(
    "TS314",
    "draft3-required",
    Severity.ERROR,
    "No draft-3 `required: true` inside a property",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string, required: true}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string}}, required: [p]}\n",
    check=draft3_required,
)


def catastrophic_pattern(context: LintContext) -> Iterator[Hit]:
    """A pattern that can read the same text two ways around a loop (`(a+)+`, `(a|aa)*`,
    `(\\s*,\\s*)*`) makes a backtracking regex engine, which is what most validators use,
    take exponential time on a crafted input of a few dozen characters: a denial of service
    for whoever validates calls. This is proved on the pattern's automaton (exponential
    degree of ambiguity, `toolsel.ambiguity`), not guessed from its look: nested
    repetitions whose separators the inner class cannot read
    (`^[a-z]+([=,]{1,2}[a-z]+)+$`) are linear and not reported. Rewrite it so each text is
    read one way. A pattern RE2 cannot run (lookaround, backreferences) is a warning: toolsel
    does not check inputs against it."""
    from toolsel.regex import UnsafePattern, catastrophic, compile_safe

    for tool, node in schema_nodes(context):
        patterns = [("pattern", node.schema.get("pattern"))]
        table = node.schema.get("patternProperties")
        if isinstance(table, dict):
            patterns += [(f"patternProperties/{escape_token(str(k))}", k) for k in table]
        for where, pattern in patterns:
            if not isinstance(pattern, str):
                continue
            reason = catastrophic(pattern)
            if reason is not None:
                yield context.schema_hit(
                    tool,
                    f"{node.pointer}/{where}",
                    f"pattern {pattern!r} can take exponential time on a crafted input: {reason}",
                    key=where != "pattern",
                )
                continue
            try:
                compile_safe(pattern)
            except UnsafePattern as unsafe:
                yield context.schema_hit(
                    tool,
                    f"{node.pointer}/{where}",
                    f"{unsafe}; toolsel does not check inputs against it",
                    severity=Severity.WARNING,
                    key=where != "pattern",
                )


TS319 = Rule(
    "TS319",
    "catastrophic-pattern",
    Severity.ERROR,
    "`pattern` cannot take exponential time (ReDoS)",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string, pattern: '^(a+)+$'}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string, pattern: '^a+$'}}}\n",
    check=catastrophic_pattern,
)


def unsafe_integer(context: LintContext) -> Iterator[Hit]:
    """JSON allows any integer, but JavaScript's `JSON.parse` and Go's default decoding read
    numbers as doubles, exact only up to 2^53 - 1 (RFC 8259, section 6). Beyond that a
    bound, default or enum value changes on its way through such a client, and so do the
    arguments the schema invites: MCP clients have rounded 19-digit IDs (Cline #9589 and
    the Go SDK #1201 in arguments, Claude Code #78762 in results). Pass integers this large
    as strings."""
    for tool, node in schema_nodes(context):
        for pointer, value in _integers_beyond_doubles(node.schema):
            yield context.schema_hit(
                tool,
                f"{node.pointer}{pointer}",
                f"{value} is outside ±(2^53 - 1): JavaScript and Go clients read it as "
                f"{_as_double(value)}; pass integers this large as strings",
            )


TS320 = Rule(
    "TS320",
    "unsafe-integer",
    Severity.WARNING,
    "Integers in schemas are within ±(2^53 - 1), exact in every JSON reader",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {id: {type: integer, maximum: 18446744073709551615}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {id: {type: string, pattern: '^[0-9]{1,20}$'}}}\n",
    check=unsafe_integer,
)


def _integers_beyond_doubles(schema: dict[str, Any]) -> Iterator[tuple[str, int]]:
    """(pointer, value) of each such integer in the node's own keywords (not in its
    subschemas), nested values included; iterative (lint sorts findings by position)."""
    from toolsel.lint.schema import SUBSCHEMA_KEYWORDS

    stack: list[tuple[str, Any]] = [
        (f"/{escape_token(str(k))}", v) for k, v in schema.items() if k not in SUBSCHEMA_KEYWORDS
    ]
    while stack:
        pointer, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((f"{pointer}/{escape_token(str(k))}", v) for k, v in value.items())
            continue
        items = enumerate(value) if isinstance(value, list) else [(None, value)]
        for index, item in items:
            where = pointer if index is None else f"{pointer}/{index}"
            if type(item) is int:
                if not -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                    yield where, item
            elif isinstance(item, (list, dict)):
                stack.append((where, item))


def _as_double(value: int) -> str:
    """The integer as a double writes it back (JavaScript: 18446744073709552000)."""
    from decimal import Decimal

    try:
        as_double = float(value)
    except OverflowError:
        return "infinity"
    if abs(as_double) >= 1e21:
        return repr(as_double)
    return str(int(Decimal(repr(as_double))))
