"""TS3xx, validity: parameter schemas that are valid JSON Schema and self-contained."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import orjson

from toolsel.jsontext import dumps
from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Severity, rule
from toolsel.lint.rules._util import has_field, schema_nodes
from toolsel.lint.schema import SchemaNode
from toolsel.metaschema import schema_errors
from toolsel.registry.model import Tool
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


TS301 = rule(
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


TS302 = rule(
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


TS303 = rule(
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


TS310 = rule(
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


TS311 = rule(
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


TS314 = rule(
    "TS314",
    "draft3-required",
    Severity.ERROR,
    "No draft-3 `required: true` inside a property",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string, required: true}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string}}, required: [p]}\n",
    check=draft3_required,
)


def _refs(context: LintContext, tool: Tool) -> Iterator[tuple[SchemaNode, str, str]]:
    for node in context.schema_nodes(tool):
        for keyword in ("$ref", "$dynamicRef"):
            ref = node.schema.get(keyword)
            if isinstance(ref, str):
                yield node, keyword, ref


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


TS315 = rule(
    "TS315",
    "external-ref",
    Severity.ERROR,
    "`$ref` is local (`#/...`)",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {$ref: 'https://example.com/s.json'}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {$ref: '#/$defs/p'}}, $defs: {p: {type: string}}}\n",
    check=external_ref,
)


def _is_recursive(node: SchemaNode, ref: str, root: dict[str, Any]) -> bool:
    if not ref.startswith("#"):
        return False
    target = ref[1:]
    return node.pointer == target or node.pointer.startswith(target + "/") or target == ""


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


TS316 = rule(
    "TS316",
    "recursive-ref",
    Severity.INFO,
    "No recursive `$ref`",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {child: {$ref: '#'}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {child: {type: string}}}\n",
    providers=("anthropic", "gemini"),
    check=recursive_ref,
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


TS319 = rule(
    "TS319",
    "catastrophic-pattern",
    Severity.ERROR,
    "`pattern` cannot take exponential time (ReDoS)",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string, pattern: '^(a+)+$'}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string, pattern: '^a+$'}}}\n",
    check=catastrophic_pattern,
)


#: The largest integer a double (JavaScript's number, Go's float64) holds exactly.
MAX_SAFE_INTEGER = 2**53 - 1


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


TS320 = rule(
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


def unused_defs(context: LintContext) -> Iterator[Hit]:
    """Definitions nothing refers to (directly, or through a definition that is used) are
    sent with every request and read by the model for nothing. Servers that generate their
    schemas often ship the same unused `$defs` with every tool; the message says how many
    tools of the file carry the same ones."""
    found: list[tuple[Tool, str, tuple[str, ...]]] = []
    for tool in context.tools:
        schema = tool.parameters
        if not isinstance(schema, dict):
            continue
        for keyword in ("$defs", "definitions"):
            table = schema.get(keyword)
            if isinstance(table, dict) and table:
                unused = tuple(sorted(set(table) - _used_definitions(schema, keyword)))
                if unused:
                    found.append((tool, keyword, unused))
    same = Counter((tool.source.file, keyword, unused) for tool, keyword, unused in found)
    for tool, keyword, unused in found:
        shared = same[(tool.source.file, keyword, unused)]
        also = (
            f"; the same unused definitions ship with {shared} tools of this file"
            if shared > 1
            else ""
        )
        yield context.schema_hit(
            tool,
            f"/{keyword}",
            f"`{keyword}` {', '.join(repr(u) for u in unused[:5])}"
            f"{f' and {len(unused) - 5} more' if len(unused) > 5 else ''} "
            f"{'is' if len(unused) == 1 else 'are'} not used by this tool's schema{also}",
            key=True,
        )


TS322 = rule(
    "TS322",
    "unused-defs",
    Severity.INFO,
    "Every `$defs` entry is used by the schema",
    bad=(
        "- name: a\n  description: d\n  parameters: {type: object, properties: {x: {type: string}},"
        " $defs: {Unused: {type: object}}}\n"
    ),
    good=(
        "- name: a\n  description: d\n  parameters: {type: object, properties: {x: {$ref: '#/$defs/X'}},"
        " $defs: {X: {type: string}}}\n"
    ),
    check=unused_defs,
)


def _used_definitions(schema: dict[str, Any], keyword: str) -> set[str]:
    """Names in `schema[keyword]` reached by `$ref`s from the rest of the schema, and from
    the definitions so reached."""
    prefix = f"#/{keyword}/"
    table = schema[keyword]
    rest = {k: v for k, v in schema.items() if k != keyword}
    used: set[str] = set()
    todo: list[Any] = [rest]
    while todo:
        current = todo.pop()
        if isinstance(current, dict):
            for key, value in current.items():
                if (
                    key in ("$ref", "$dynamicRef")
                    and isinstance(value, str)
                    and value.startswith(prefix)
                ):
                    name = (
                        value[len(prefix) :].split("/", 1)[0].replace("~1", "/").replace("~0", "~")
                    )
                    if name in table and name not in used:
                        used.add(name)
                        todo.append(table[name])
                else:
                    todo.append(value)
        elif isinstance(current, list):
            todo.extend(current)
    return used


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


TS321 = rule(
    "TS321",
    "schema-too-costly",
    Severity.ERROR,
    "Validating one value against `parameters` takes bounded work",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {$ref: '#/$defs/p'}}, $defs: {p: {allOf: [{$ref: '#/$defs/p'}]}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {$ref: '#/$defs/p'}}, $defs: {p: {type: object, properties: {child: {$ref: '#/$defs/p'}}}}}\n",
    check=schema_too_costly,
)
