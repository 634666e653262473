"""The tool-list shapes toolsel reads, and how each maps onto toolsel's canonical fields.

Every shape is described as data: which keys an entry may have, and where each canonical
field lives relative to the entry. Detection looks at the keys of an entry, never at the
file name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# Canonical toolsel fields and the JSON type each must have ("list" means a list of strings).
FIELD_TYPES: dict[str, str] = {
    "name": "string", "description": "string", "parameters": "object", "category": "string",
    "permission": "string", "tags": "list", "requires": "list", "conflicts": "list",
    "aliases": "list", "version": "string", "deprecated": "boolean", "deprecated_by": "string",
    "display_name": "string", "search_hint": "string", "always_include": "boolean",
    "defer_loading": "boolean", "parent_task": "boolean", "strict": "boolean",
    "annotations": "object", "output_schema": "object", "examples": "list",
    "x-toolsel-ignore": "list",
}  # fmt: skip

#: A Semantic Versioning 2.0 version (semver.org's own regular expression).
SEMVER = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?"
)


@dataclass(frozen=True, slots=True)
class EntryFormat:
    name: str
    title: str
    fields: dict[str, str]  # canonical field -> pointer relative to the entry
    allowed_keys: dict[str, frozenset[str]]  # relative pointer of a mapping -> keys allowed in it

    def value(self, entry: dict[str, Any], field: str) -> Any:
        """The field's value in `entry`, or None when absent."""
        path = _PATHS[self.name][field]
        if len(path) == 1:
            return entry.get(path[0])
        value: Any = entry
        for token in path:
            if not isinstance(value, dict):
                return None
            value = value.get(token)
        return value


TOOLSEL = EntryFormat(
    "toolsel",
    "toolsel registry",
    {name: "/" + name for name in FIELD_TYPES},
    {"": frozenset(FIELD_TYPES)},
)

OPENAI_CHAT = EntryFormat(
    "openai-chat",
    "OpenAI Chat Completions tools",
    {
        "name": "/function/name",
        "description": "/function/description",
        "parameters": "/function/parameters",
        "strict": "/function/strict",
    },
    {
        "": frozenset({"type", "function"}),
        "/function": frozenset({"name", "description", "parameters", "strict"}),
    },
)

OPENAI_RESPONSES = EntryFormat(
    "openai-responses",
    "OpenAI Responses function tools",
    {
        "name": "/name",
        "description": "/description",
        "parameters": "/parameters",
        "strict": "/strict",
    },
    {"": frozenset({"type", "name", "description", "parameters", "strict"})},
)

ANTHROPIC = EntryFormat(
    "anthropic",
    "Anthropic Messages tools",
    {
        "name": "/name",
        "description": "/description",
        "parameters": "/input_schema",
        "strict": "/strict",
        "defer_loading": "/defer_loading",
    },
    {
        "": frozenset({
            "name", "description", "input_schema", "type", "cache_control", "strict",
            "defer_loading", "input_examples", "allowed_callers",
        })
    },
)  # fmt: skip

MCP = EntryFormat(
    "mcp",
    "MCP tools/list result",
    {
        "name": "/name",
        "description": "/description",
        "parameters": "/inputSchema",
        "output_schema": "/outputSchema",
        "display_name": "/title",
        "annotations": "/annotations",
    },
    {
        "": frozenset({
            "name", "title", "description", "inputSchema", "outputSchema", "annotations", "icons",
            "_meta", "execution",
        }),
    },
)  # fmt: skip

#: OpenAI's free-form client tools: the model writes plain text (or text in a grammar),
#: not JSON arguments, so there is no schema to check.
OPENAI_CUSTOM = EntryFormat(
    "openai-custom",
    "OpenAI custom tools",
    {"name": "/name", "description": "/description"},
    {"": frozenset({"type", "name", "description", "format"})},
)

#: Docker's MCP catalog (`docker/mcp-registry`, `servers/*/tools.json`): arguments as a
#: list of `{name, type, desc, optional?, items?}`, turned into a JSON Schema on load.
DOCKER_CATALOG = EntryFormat(
    "docker-catalog",
    "Docker MCP catalog tools",
    {
        "name": "/name",
        "description": "/description",
        "parameters": "/arguments",
        "annotations": "/annotations",
    },
    {"": frozenset({"name", "description", "arguments", "annotations", "title"})},
)
DOCKER_ARGUMENT_KEYS = frozenset({"name", "type", "desc", "description", "optional", "items"})

_GEMINI_KEYS = frozenset(
    {"name", "description", "parameters", "parametersJsonSchema", "response", "responseJsonSchema", "behavior"}
)  # fmt: skip
GEMINI = EntryFormat(
    "gemini",
    "Gemini function declarations",
    {"name": "/name", "description": "/description", "parameters": "/parameters"},
    {"": _GEMINI_KEYS},
)
#: A declaration with `parametersJsonSchema` (full JSON Schema, not the OpenAPI subset).
GEMINI_JSON_SCHEMA = EntryFormat(
    "gemini-json-schema",
    "Gemini function declarations (parametersJsonSchema)",
    {"name": "/name", "description": "/description", "parameters": "/parametersJsonSchema"},
    {"": _GEMINI_KEYS},
)
#: Keywords outside the OpenAPI 3.0 `Schema` subset Gemini's `parameters` accepts (its API
#: answers 'Unknown name "$schema"'); such schemas go in `parametersJsonSchema` instead.
GEMINI_UNSUPPORTED = (
    "$schema", "oneOf", "allOf", "not", "const", "exclusiveMinimum", "exclusiveMaximum",
    "uniqueItems", "patternProperties", "if", "then", "else", "dependentRequired",
    "dependentSchemas",
)  # fmt: skip

ENTRY_FORMATS = {
    f.name: f
    for f in (
        TOOLSEL, OPENAI_CHAT, OPENAI_RESPONSES, OPENAI_CUSTOM, ANTHROPIC, MCP, GEMINI,
        GEMINI_JSON_SCHEMA, DOCKER_CATALOG,
    )
}  # fmt: skip
# field pointers split once (none of them needs ~ escaping)
_PATHS = {
    f.name: {field: tuple(pointer[1:].split("/")) for field, pointer in f.fields.items()}
    for f in ENTRY_FORMATS.values()
}


def detect_entry_format(entry: dict[str, Any], *, gemini: bool = False) -> EntryFormat:
    """The shape of one entry, from its keys; `gemini` when it sits in a
    `functionDeclarations` list."""
    if "parametersJsonSchema" in entry:
        return GEMINI_JSON_SCHEMA
    if gemini or "responseJsonSchema" in entry or "response" in entry:
        return GEMINI
    kind = entry.get("type")
    if kind == "function":
        if isinstance(entry.get("function"), dict):
            return OPENAI_CHAT
        return OPENAI_RESPONSES
    if "input_schema" in entry:
        return ANTHROPIC
    if "inputSchema" in entry:
        return MCP
    if kind == "custom" and "input_schema" not in entry:
        return OPENAI_CUSTOM
    if is_docker_arguments(entry.get("arguments")):
        return DOCKER_CATALOG
    if is_gemini_declaration(entry):
        return GEMINI
    return TOOLSEL


def is_gemini_declaration(entry: dict[str, Any]) -> bool:
    """A bare Gemini FunctionDeclaration, outside a `functionDeclarations` list: only
    declaration keys, and `parameters` typed in Gemini's own upper-case `Type` enum
    (`OBJECT`), which no JSON Schema uses."""
    parameters = entry.get("parameters")
    return (
        isinstance(parameters, dict)
        and parameters.get("type") in _GEMINI_TYPES
        and all(key in _GEMINI_KEYS for key in entry)
    )


def is_docker_arguments(value: Any) -> bool:
    """Docker's catalog argument list: mappings with a `name` and a `desc` or a `type`."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(a, dict) and "name" in a and ("desc" in a or "type" in a) for a in value)
    ) or value == []


def docker_parameters(arguments: list[dict[str, Any]]) -> dict[str, Any]:
    """A Docker catalog argument list as the JSON Schema its MCP server receives: each
    argument a property; all required but the `optional` ones."""
    properties: dict[str, Any] = {}
    required = []
    for argument in arguments:
        name = str(argument.get("name"))
        schema: dict[str, Any] = {}
        if isinstance(argument.get("type"), str):
            schema["type"] = argument["type"]
        if isinstance(argument.get("items"), dict):
            schema["items"] = argument["items"]
        description = argument.get("desc", argument.get("description"))
        if isinstance(description, str):
            schema["description"] = description
        properties[name] = schema
        if argument.get("optional") is not True:
            required.append(name)
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    return parameters


#: Where `--emit mcp` keeps toolsel's own permission, which MCP's two hints cannot express
#: (`admin`), in the tool's `_meta` (reverse-DNS prefix, as the spec asks).
MCP_PERMISSION_META = "io.github.toolsel/permission"
_PERMISSION_NAMES = ("read", "write", "admin", "dangerous")


def mcp_entry_permission(entry: dict[str, Any]) -> str:
    """An MCP tool's permission: toolsel's own in `_meta` when present, else its hints."""
    meta = entry.get("_meta")
    if isinstance(meta, dict) and meta.get(MCP_PERMISSION_META) in _PERMISSION_NAMES:
        return str(meta[MCP_PERMISSION_META])
    return mcp_permission(entry.get("annotations"))


def mcp_permission(annotations: Any) -> str:
    """MCP annotations -> permission, with the spec's defaults for hints that are absent:
    `readOnlyHint` false and `destructiveHint` true. So a read-only tool is `read`; any
    other is `dangerous` unless it says `destructiveHint: false` (then `write`). A tool with
    no annotations at all may do anything, and is `dangerous`."""
    if not isinstance(annotations, dict):
        return "dangerous"
    if annotations.get("readOnlyHint") is True:
        return "read"
    if annotations.get("destructiveHint", True) is False:
        return "write"
    return "dangerous"


#: Gemini's `Type` enum (OpenAPI 3.0 types, upper case in its own docs and SDKs).
_GEMINI_TYPES = {
    kind.upper(): kind
    for kind in ("string", "number", "integer", "boolean", "array", "object", "null")
}


def gemini_schema(schema: Any) -> Any:
    """A Gemini `parameters` schema with its upper-case types (`OBJECT`, `STRING`, which
    Gemini documents and accepts) as JSON Schema's lower-case ones; the document itself is
    not changed. Returned as is when it has none."""
    if not _has_upper_type(schema):
        return schema
    try:
        return _lower_types(schema)
    except RecursionError:  # nested past Python's stack: left as written (lint says so)
        return schema


def _has_upper_type(value: Any) -> bool:
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            kind = current.get("type")
            if isinstance(kind, str) and kind in _GEMINI_TYPES:
                return True
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return False


def _lower_types(value: Any) -> Any:
    if isinstance(value, dict):
        copy = {key: _lower_types(item) for key, item in value.items()}
        kind = value.get("type")
        if isinstance(kind, str) and kind in _GEMINI_TYPES:
            copy["type"] = _GEMINI_TYPES[kind]
        return copy
    if isinstance(value, list):
        return [_lower_types(item) for item in value]
    return value
