"""TS3xx, references: `$ref`s that stay inside the schema, do not recurse where a provider
forbids it, and do not multiply the work of validating one value; `$defs` that are used."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Rule, Severity
from toolsel.lint.schema import SchemaNode
from toolsel.registry.model import Tool
from toolsel.registry.source import unescape_token


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


TS315 = Rule(
    "TS315",
    "external-ref",
    Severity.ERROR,
    "`$ref` is local (`#/...`)",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {$ref: 'https://example.com/s.json'}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {$ref: '#/$defs/p'}}, $defs: {p: {type: string}}}\n",
    check=external_ref,
)


def _is_recursive(node: SchemaNode, ref: str) -> bool:
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
            if keyword == "$ref" and _is_recursive(node, ref):
                yield context.schema_hit(
                    tool,
                    f"{node.pointer}/$ref",
                    f"`$ref: {ref}` refers to an enclosing schema (recursion)",
                    severity=severity,
                )


TS316 = Rule(
    "TS316",
    "recursive-ref",
    Severity.INFO,
    "No recursive `$ref`",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {child: {$ref: '#'}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {child: {type: string}}}\n",
    providers=("anthropic", "gemini"),
    check=recursive_ref,
)


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


TS322 = Rule(
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
                    name = unescape_token(value[len(prefix) :].split("/", 1)[0])
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


TS321 = Rule(
    "TS321",
    "schema-too-costly",
    Severity.ERROR,
    "Validating one value against `parameters` takes bounded work",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {$ref: '#/$defs/p'}}, $defs: {p: {allOf: [{$ref: '#/$defs/p'}]}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {$ref: '#/$defs/p'}}, $defs: {p: {type: object, properties: {child: {$ref: '#/$defs/p'}}}}}\n",
    check=schema_too_costly,
)
