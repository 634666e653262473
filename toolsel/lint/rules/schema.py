"""TS3xx: parameter schemas that are valid, self-contained and explain themselves."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

import orjson

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Severity, rule
from toolsel.lint.rules._util import has_field
from toolsel.lint.schema import SchemaNode, properties_of, walk_schema
from toolsel.registry.model import Permission, Tool
from toolsel.registry.source import escape_token

AMBIGUOUS_PARAMS = frozenset(
    {"id", "user", "data", "value", "input", "q", "obj", "item", "args", "params"}
)
PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
ALTERNATIVES = re.compile(
    r"\bone of\b|\beither\b.+\bor\b|\b\w+\|\w+\|\w+\b|\b[a-z]+/[a-z]+/[a-z]+\b", re.IGNORECASE
)
TYPED_KEYWORDS = ("type", "enum", "const", "$ref", "anyOf", "oneOf", "allOf")
TOGGLE_PAIRS = (
    ("on", "off"),
    ("enable", "disable"),
    ("enabled", "disabled"),
    ("show", "hide"),
    ("include", "exclude"),
    ("allow", "deny"),
)
RISKY_PARAM = re.compile(
    r"(^|_)(path|file|filename|url|uri|cmd|command|sql|query|script|shell|expr|expression|code)($|_)"
)


def _nodes(context: LintContext) -> Iterator[tuple[Tool, SchemaNode]]:
    for tool in context.tools:
        for node in context.schema_nodes(tool):
            yield tool, node


def _property_nodes(context: LintContext) -> Iterator[tuple[Tool, SchemaNode]]:
    for tool, node in _nodes(context):
        if node.property_name is not None:
            yield tool, node


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
    for tool, node in _nodes(context):
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
    "TS304",
    "property-without-description",
    Severity.WARNING,
    "Every property has a description",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {path: {type: string}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {path: {type: string, description: Workspace-relative path.}}}\n",
)
def property_description(context: LintContext) -> Iterator[Hit]:
    """ "Describe each parameter and its format": 84% of MCP tools have opaque parameters."""
    for tool, node in _property_nodes(context):
        text = node.schema.get("description")
        if not (isinstance(text, str) and text.strip()) and "$ref" not in node.schema:
            yield context.schema_hit(
                tool, node.pointer, f"parameter {node.property_name!r} has no description", key=True
            )


@rule(
    "TS305",
    "property-without-type",
    Severity.WARNING,
    "Every property has a type",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {n: {description: count}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {n: {type: integer, description: count}}}\n",
)
def property_type(context: LintContext) -> Iterator[Hit]:
    """Gemini needs a type on every property; without one the model guesses."""
    for tool, node in _property_nodes(context):
        if not any(k in node.schema for k in TYPED_KEYWORDS):
            yield context.schema_hit(
                tool,
                node.pointer,
                f"parameter {node.property_name!r} has no `type` (or enum/const/$ref/anyOf)",
                key=True,
            )


@rule(
    "TS306",
    "ambiguous-parameter-name",
    Severity.WARNING,
    "Parameter names say what they hold",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {id: {type: string}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {user_id: {type: string}}}\n",
)
def ambiguous_name(context: LintContext) -> Iterator[Hit]:
    """`id`, `user` or `data` leave the model guessing; `user_id` does not."""
    for tool, node in _property_nodes(context):
        if node.property_name in AMBIGUOUS_PARAMS:
            yield context.schema_hit(
                tool,
                node.pointer,
                f"parameter name {node.property_name!r} is ambiguous; name what it holds (e.g. 'user_id')",
                key=True,
            )


@rule(
    "TS307",
    "parameter-name-chars",
    Severity.WARNING,
    "Parameter names match `^[A-Za-z_][A-Za-z0-9_]{0,63}$`",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {file-path: {type: string}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {file_path: {type: string}}}\n",
)
def parameter_chars(context: LintContext) -> Iterator[Hit]:
    """Gemini only accepts letters, digits and underscores in parameter names (an error when
    `gemini` is a target)."""
    severity = Severity.ERROR if "gemini" in context.targets else None
    for tool, node in _property_nodes(context):
        if not PARAM_NAME.fullmatch(str(node.property_name)):
            yield context.schema_hit(
                tool,
                node.pointer,
                f"parameter name {node.property_name!r} has characters Gemini rejects; use letters, digits and '_'",
                severity=severity,
                key=True,
            )


@rule(
    "TS308",
    "alternatives-without-enum",
    Severity.INFO,
    "Listed choices are an `enum`",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {unit: {type: string, description: 'One of celsius, fahrenheit'}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {unit: {type: string, enum: [celsius, fahrenheit]}}}\n",
)
def alternatives_enum(context: LintContext) -> Iterator[Hit]:
    """ "Use an enum" makes invalid values unrepresentable instead of merely discouraged."""
    for tool, node in _property_nodes(context):
        text = node.schema.get("description")
        if (
            node.schema.get("type") == "string"
            and "enum" not in node.schema
            and isinstance(text, str)
            and ALTERNATIVES.search(text)
        ):
            yield context.schema_hit(
                tool,
                node.pointer,
                f"parameter {node.property_name!r} lists its allowed values in prose; declare them as `enum`",
                key=True,
            )


@rule(
    "TS309",
    "toggle-pair",
    Severity.INFO,
    "No pair of mutually exclusive booleans",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {on: {type: boolean}, off: {type: boolean}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {state: {type: string, enum: ['on', 'off']}}}\n",
)
def toggle_pair(context: LintContext) -> Iterator[Hit]:
    """OpenAI's `toggle_light(on, off)` anti-example: two booleans that must never both be
    true belong in one enum."""
    for tool, node in _nodes(context):
        props = properties_of(node.schema)
        booleans = {
            name
            for name, sub in props.items()
            if isinstance(sub, dict) and sub.get("type") == "boolean"
        }
        for a, b in TOGGLE_PAIRS:
            for name in booleans:
                if name == a or name.startswith(a + "_"):
                    partner = b + name[len(a) :]
                    if partner in booleans:
                        yield context.schema_hit(
                            tool,
                            f"{node.pointer}/properties/{escape_token(partner)}",
                            f"booleans {name!r} and {partner!r} exclude each other; use one enum parameter",
                            key=True,
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
    for tool, node in _nodes(context):
        values = node.schema.get("enum")
        if not isinstance(values, list):
            continue
        where = f"{node.pointer}/enum"
        if not values:
            yield context.schema_hit(
                tool, where, "enum is empty; the model cannot choose any value"
            )
            continue
        seen: list[Any] = []
        folded: dict[str, str] = {}
        for index, value in enumerate(values):
            if value in seen:
                yield context.schema_hit(
                    tool, f"{where}/{index}", f"enum value {value!r} appears twice"
                )
            seen.append(value)
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
    from jsonschema import Draft202012Validator

    for tool, node in _nodes(context):
        if "default" not in node.schema:
            continue
        schema = {k: v for k, v in node.schema.items() if k not in ("default", "$ref")}
        try:
            errors = list(Draft202012Validator(schema).iter_errors(node.schema["default"]))
        except Exception:
            continue
        if errors:
            yield context.schema_hit(
                tool,
                f"{node.pointer}/default",
                f"default {node.schema['default']!r} is invalid: {errors[0].message}",
            )


@rule(
    "TS312",
    "too-many-parameters",
    Severity.WARNING,
    "At most `max-params` (20) top-level parameters",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {"
    + ", ".join(f"p{i}: {{type: string}}" for i in range(21))
    + "}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string}}}\n",
)
def too_many_params(context: LintContext) -> Iterator[Hit]:
    """OpenAI calls fewer than ~20 arguments per tool "in distribution"; split larger tools."""
    maximum = context.option("max-params")
    for tool in context.tools:
        count = len(properties_of(tool.parameters))
        if count > maximum:
            yield context.schema_hit(
                tool,
                "/properties",
                f"{count} top-level parameters (max {maximum}); split the tool",
                key=True,
            )


@rule(
    "TS313",
    "schema-too-deep",
    Severity.WARNING,
    "Nesting depth at most `max-depth` (5)",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {a: {type: object, properties: {b: {type: object, properties: {c: {type: object, properties: {d: {type: object, properties: {e: {type: object, properties: {f: {type: string}}}}}}}}}}}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {a: {type: string}}}\n",
)
def too_deep(context: LintContext) -> Iterator[Hit]:
    """Deep schemas are hard for models to fill; OpenAI strict mode caps nesting at 10
    levels (5 in older limits). Reported once per tool, at the first node too deep."""
    maximum = context.option("max-depth")
    for tool in context.tools:
        for node in context.schema_nodes(tool):
            if node.depth > maximum:
                yield context.schema_hit(
                    tool,
                    node.pointer,
                    f"schema nests {node.depth} levels deep (max {maximum}); flatten it",
                )
                break


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
    for tool, node in _nodes(context):
        if isinstance(node.schema.get("required"), bool):
            yield context.schema_hit(
                tool,
                f"{node.pointer}/required",
                "`required: true/false` inside a property is ignored; list the name in the parent's `required` array",
                key=True,
            )


def _refs(context: LintContext, tool: Tool) -> Iterator[tuple[SchemaNode, str]]:
    for node in context.schema_nodes(tool):
        ref = node.schema.get("$ref")
        if isinstance(ref, str):
            yield node, ref


@rule(
    "TS315",
    "external-ref",
    Severity.ERROR,
    "`$ref` is local (`#/...`)",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {$ref: 'https://example.com/s.json'}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {$ref: '#/$defs/p'}}, $defs: {p: {type: string}}}\n",
)
def external_ref(context: LintContext) -> Iterator[Hit]:
    """Registries must be self-contained; Anthropic and OpenAI reject remote references."""
    for tool in context.tools:
        for node, ref in _refs(context, tool):
            if not ref.startswith("#"):
                yield context.schema_hit(
                    tool,
                    f"{node.pointer}/$ref",
                    f"`$ref: {ref}` is not local; inline it under `$defs`",
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
        for node, ref in _refs(context, tool):
            if _is_recursive(node, ref, tool.parameters):
                yield context.schema_hit(
                    tool,
                    f"{node.pointer}/$ref",
                    f"`$ref: {ref}` refers to an enclosing schema (recursion)",
                    severity=severity,
                )


@rule(
    "TS317",
    "no-args-not-closed",
    Severity.INFO,
    "A tool without arguments sets `additionalProperties: false`",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {}, additionalProperties: false}\n",
)
def no_args_open(context: LintContext) -> Iterator[Hit]:
    """MCP recommends `{type: object, additionalProperties: false}` for a no-argument tool,
    so a model cannot invent arguments."""
    for tool in context.tools:
        if not has_field(tool, "parameters"):
            continue  # TS005 already asks for the whole schema
        if (
            not properties_of(tool.parameters)
            and tool.parameters.get("additionalProperties") is not False
        ):
            yield context.schema_hit(
                tool, "", "tool takes no arguments; add `additionalProperties: false`"
            )


@rule(
    "TS318",
    "unbounded-risky-parameter",
    Severity.INFO,
    "Risky free-text parameters of write tools are constrained",
    bad="- name: a\n  description: d\n  permission: write\n  parameters: {type: object, properties: {path: {type: string}}}\n",
    good="- name: a\n  description: d\n  permission: write\n  parameters: {type: object, properties: {path: {type: string, pattern: '^[a-z/]+$'}}}\n",
)
def risky_parameter(context: LintContext) -> Iterator[Hit]:
    """A path, URL, command or SQL string with no `pattern`, `format`, `enum` or `maxLength`
    on a tool that writes is a traversal or injection surface."""
    bounds = ("pattern", "format", "enum", "maxLength", "const")
    for tool, node in _property_nodes(context):
        if tool.permission is Permission.READ:
            continue
        if (
            node.schema.get("type") == "string"
            and RISKY_PARAM.search(str(node.property_name))
            and not any(b in node.schema for b in bounds)
        ):
            yield context.schema_hit(
                tool,
                node.pointer,
                f"parameter {node.property_name!r} of a {tool.permission} tool is unconstrained; add a pattern, format, enum or maxLength",
                key=True,
            )
