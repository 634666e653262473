"""TS3xx, validity: parameter schemas that are valid JSON Schema and self-contained."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import orjson

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Severity, rule
from toolsel.lint.rules._util import has_field, schema_nodes
from toolsel.lint.schema import SchemaNode, walk_schema
from toolsel.registry.model import Tool
from toolsel.registry.source import escape_token
from toolsel.validate import json_key


@rule(
    "TS301",
    "parameters-root-object",
    Severity.ERROR,
    "`parameters` is an object schema at the root",
    bad="- name: a\n  description: d\n  parameters: {type: string}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {}}\n",
)
def root_object(context: LintContext) -> Iterator[Hit]:
    """Anthropic requires `type: object` at the root, MCP too, and OpenAI rejects an `anyOf`
    root. Put alternatives inside a property instead."""
    for tool in context.tools:
        params = tool.parameters
        if params.get("type") != "object":
            yield context.schema_hit(
                tool,
                "",
                f"`parameters` root has type {params.get('type')!r}; it must be `type: object`",
            )
        for keyword in ("anyOf", "oneOf"):
            if keyword in params:
                yield context.schema_hit(
                    tool,
                    "/" + keyword,
                    f"`{keyword}` at the root of `parameters` is rejected by OpenAI; move it into a property",
                    key=True,
                )


@functools.cache
def _meta_validator(dialect: str) -> Any:
    from jsonschema import validators

    cls = validators.validator_for({"$schema": dialect}, default=validators.Draft202012Validator)
    return cls(cls.META_SCHEMA)


@functools.cache
def _fast_draft7_check() -> Any:
    """fastjsonschema's compiled draft-07 metaschema: ~70x faster than a full 2020-12 check."""
    import fastjsonschema
    from jsonschema import Draft7Validator

    return fastjsonschema.compile(Draft7Validator.META_SCHEMA, handlers={})


# Keywords whose meaning or shape differs between draft-07 and 2020-12: a schema using any of
# them always gets the full check of its own dialect.
_DIALECT_SENSITIVE = frozenset(
    {
        "$defs",
        "prefixItems",
        "dependentRequired",
        "dependentSchemas",
        "unevaluatedItems",
        "unevaluatedProperties",
        "$anchor",
        "$dynamicRef",
        "$dynamicAnchor",
        "$recursiveRef",
        "$recursiveAnchor",
        "$vocabulary",
        "contentSchema",
        "minContains",
        "maxContains",
        "$schema",
    }
)


def _needs_full_check(schema: dict[str, Any]) -> bool:
    for node in walk_schema(schema):
        if _DIALECT_SENSITIVE.intersection(node.schema) or isinstance(
            node.schema.get("items"), list
        ):
            return True
    return False


def _passes_fast_check(schema: dict[str, Any]) -> bool:
    if _needs_full_check(schema):
        return False
    try:
        _fast_draft7_check()(schema)
    except Exception:
        return False
    return True


@functools.lru_cache(maxsize=4096)
def _schema_errors(schema_json: bytes) -> tuple[tuple[str, str], ...]:
    """Every metaschema error as (pointer, message); a fast draft-07 pass clears most schemas."""
    schema = orjson.loads(schema_json)
    if _passes_fast_check(schema):
        return ()
    dialect = schema.get("$schema", "https://json-schema.org/draft/2020-12/schema")
    validator = _meta_validator(str(dialect))
    errors = []
    for error in validator.iter_errors(schema):
        pointer = "".join("/" + escape_token(str(p)) for p in error.absolute_path)
        errors.append((pointer, error.message))
    return tuple(errors)


@rule(
    "TS302",
    "invalid-json-schema",
    Severity.ERROR,
    "`parameters` is valid JSON Schema",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {n: {type: integr}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {n: {type: integer}}}\n",
)
def invalid_schema(context: LintContext) -> Iterator[Hit]:
    """Checked against the metaschema of its `$schema` dialect, 2020-12 when absent (the MCP
    default). Identical schemas are checked once."""
    for tool in context.tools:
        if not has_field(tool, "parameters"):
            continue
        try:
            key = orjson.dumps(tool.parameters, option=orjson.OPT_SORT_KEYS)
        except (TypeError, orjson.JSONEncodeError):
            continue
        for pointer, message in _schema_errors(key):
            yield context.schema_hit(tool, pointer, f"invalid JSON Schema: {message}")


@rule(
    "TS303",
    "required-not-in-properties",
    Severity.ERROR,
    "`required` names only declared properties",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {}, required: [path]}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {path: {type: string}}, required: [path]}\n",
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


@rule(
    "TS310",
    "bad-enum",
    Severity.ERROR,
    "Enums are non-empty, without duplicates",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {m: {type: string, enum: [a, a]}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {m: {type: string, enum: [a, b]}}}\n",
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
                    tool, f"{where}/{index}", f"enum value {value!r} appears twice"
                )
            seen.add(key)
            if isinstance(value, str):
                other = folded.setdefault(value.casefold(), value)
                if other != value:
                    yield context.schema_hit(
                        tool,
                        f"{where}/{index}",
                        f"enum values {other!r} and {value!r} differ only by case",
                        severity=Severity.WARNING,
                    )


@rule(
    "TS311",
    "bad-default",
    Severity.WARNING,
    "`default` is valid against its own schema",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {n: {type: integer, default: many}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {n: {type: integer, default: 3}}}\n",
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
                f"default {node.schema['default']!r} is invalid: {message}",
            )


@rule(
    "TS314",
    "draft3-required",
    Severity.ERROR,
    "No draft-3 `required: true` inside a property",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string, required: true}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string}}, required: [p]}\n",
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


def _refs(context: LintContext, tool: Tool) -> Iterator[tuple[SchemaNode, str, str]]:
    for node in context.schema_nodes(tool):
        for keyword in ("$ref", "$dynamicRef"):
            ref = node.schema.get(keyword)
            if isinstance(ref, str):
                yield node, keyword, ref


@rule(
    "TS315",
    "external-ref",
    Severity.ERROR,
    "`$ref` is local (`#/...`)",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {$ref: 'https://example.com/s.json'}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {$ref: '#/$defs/p'}}, $defs: {p: {type: string}}}\n",
)
def external_ref(context: LintContext) -> Iterator[Hit]:
    """Registries must be self-contained; Anthropic and OpenAI reject remote references.
    toolsel never follows one (not over the network, not to a file): `replay -r` reports the
    calls of such a tool as not checked."""
    for tool in context.tools:
        for node, keyword, ref in _refs(context, tool):
            if not ref.startswith("#"):
                yield context.schema_hit(
                    tool,
                    f"{node.pointer}/{keyword}",
                    f"`{keyword}: {ref}` is not local; inline it under `$defs`",
                )


def _is_recursive(node: SchemaNode, ref: str, root: dict[str, Any]) -> bool:
    if not ref.startswith("#"):
        return False
    target = ref[1:]
    return node.pointer == target or node.pointer.startswith(target + "/") or target == ""


@rule(
    "TS316",
    "recursive-ref",
    Severity.INFO,
    "No recursive `$ref`",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {child: {$ref: '#'}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {child: {type: string}}}\n",
)
def recursive_ref(context: LintContext) -> Iterator[Hit]:
    """OpenAI accepts recursion; Anthropic strict mode and Gemini reject it (an error when
    either is a target)."""
    severity = Severity.ERROR if context.targets_any("anthropic-strict", "gemini") else None
    for tool in context.tools:
        for node, keyword, ref in _refs(context, tool):
            if keyword == "$ref" and _is_recursive(node, ref, tool.parameters):
                yield context.schema_hit(
                    tool,
                    f"{node.pointer}/$ref",
                    f"`$ref: {ref}` refers to an enclosing schema (recursion)",
                    severity=severity,
                )


@rule(
    "TS319",
    "catastrophic-pattern",
    Severity.ERROR,
    "`pattern` cannot take exponential time (ReDoS)",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string, pattern: '^(a+)+$'}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string, pattern: '^a+$'}}}\n",
)
def catastrophic_pattern(context: LintContext) -> Iterator[Hit]:
    """A pattern that repeats a repetition (`(a+)+`) or overlapping alternatives (`(a|ab)*`)
    makes a backtracking regex engine, which is what most validators use, take exponential
    time on a crafted input of a few dozen characters: a denial of service for whoever
    validates calls. Rewrite it without nested repetition. A pattern RE2 cannot run
    (lookaround, backreferences) is a warning: toolsel does not check inputs against it."""
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


@rule(
    "TS320",
    "schema-too-costly",
    Severity.ERROR,
    "Validating one value against `parameters` takes bounded work",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {$ref: '#/$defs/p'}}, $defs: {p: {allOf: [{$ref: '#/$defs/p'}]}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {$ref: '#/$defs/p'}}, $defs: {p: {type: object, properties: {child: {$ref: '#/$defs/p'}}}}}\n",
)
def schema_too_costly(context: LintContext) -> Iterator[Hit]:
    """A `$ref` applies its target to the same value, as `allOf`, `anyOf`, `oneOf`, `not`,
    `if`/`then`/`else` and `dependentSchemas` do. Shared definitions that each reference
    the next level twice (`allOf: [{$ref: next}, {$ref: next}]`) apply 2^L subschemas to one
    value after L levels: a 4 KB schema can take a validator days. A reference that leads
    back to itself without descending into a property or item never ends (the JSON Schema
    specification leaves it undefined). toolsel counts the subschemas applied to one value,
    in time linear in the schema, and this rule fires over 5,000 (real schemas apply at most
    about a hundred) or on such a loop: `replay -r` and `serve` report the tool's calls as
    not checked, and other validators may hang. Reference each shared definition once per
    level (flatten it, or keep one `$ref` where `allOf` lists the same one twice). Anthropic
    strict mode rejects `allOf` with `$ref` and recursive schemas, and gives up compiling a
    schema after 180 s."""
    from toolsel.expansion import measure, references
    from toolsel.validate import external_refs

    for tool in context.tools:
        schema = tool.parameters
        if next(references(schema), None) is None or external_refs(schema):
            continue  # nothing to multiply, or TS315's finding
        try:
            expansion = measure(schema)
        except Exception:  # not valid JSON Schema: TS302's finding
            continue
        if not expansion.too_costly:
            continue
        advice = (
            "make the reference descend into a property or item, or remove it"
            if expansion.loop is not None
            else "reference each shared definition once per level (flatten it, or keep one "
            "`$ref` where `allOf`/`anyOf` lists the same one twice)"
        )
        yield context.schema_hit(
            tool,
            expansion.where,
            f"schema too costly to validate: {expansion.reason()}; toolsel replay and serve "
            f"report this tool's calls as not checked, and other validators may hang: {advice}",
        )
