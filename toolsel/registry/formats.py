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
    "name": "string",
    "description": "string",
    "parameters": "object",
    "category": "string",
    "permission": "string",
    "tags": "list",
    "requires": "list",
    "conflicts": "list",
    "aliases": "list",
    "version": "string",
    "deprecated": "boolean",
    "deprecated_by": "string",
    "display_name": "string",
    "search_hint": "string",
    "always_include": "boolean",
    "defer_loading": "boolean",
    "parent_task": "boolean",
    "strict": "boolean",
    "annotations": "object",
    "output_schema": "object",
    "examples": "list",
    "x-toolsel-ignore": "list",
}

#: A Semantic Versioning 2.0 version (semver.org's own regular expression).
SEMVER = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?"
)
TOP_LEVEL_KEYS = ("version", "categories", "tools", "$schema")


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
        "": frozenset(
            {
                "name",
                "description",
                "input_schema",
                "type",
                "cache_control",
                "strict",
                "defer_loading",
                "input_examples",
                "allowed_callers",
            }
        )
    },
)

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
        "": frozenset(
            {
                "name",
                "title",
                "description",
                "inputSchema",
                "outputSchema",
                "annotations",
                "icons",
                "_meta",
                "execution",
            }
        ),
    },
)

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
    {
        "name",
        "description",
        "parameters",
        "parametersJsonSchema",
        "response",
        "responseJsonSchema",
        "behavior",
    }
)
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
    "$schema",
    "oneOf",
    "allOf",
    "not",
    "const",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "uniqueItems",
    "patternProperties",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
)

ENTRY_FORMATS = {
    f.name: f
    for f in (
        TOOLSEL,
        OPENAI_CHAT,
        OPENAI_RESPONSES,
        OPENAI_CUSTOM,
        ANTHROPIC,
        MCP,
        GEMINI,
        GEMINI_JSON_SCHEMA,
        DOCKER_CATALOG,
    )
}
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


DECLARATIONS = ("functionDeclarations", "function_declarations")
#: Top-level keys an overlay may have.
OVERLAY_KEYS = ("examples", "governance", "version", "$schema")

#: The fields a governance overlay may set on tools defined elsewhere: what toolsel
#: governs and provider formats cannot say.
GOVERNANCE_FIELDS = (
    "permission", "category", "tags", "requires", "conflicts", "deprecated", "deprecated_by",
    "always_include", "defer_loading", "parent_task", "search_hint", "display_name",
)  # fmt: skip


def is_overlay(document: Any) -> bool:
    """An overlay: a mapping with `examples` or `governance`, and no list of tools."""
    return (
        isinstance(document, dict)
        and ("examples" in document or "governance" in document)
        and "tools" not in document
        and not any(key in document for key in DECLARATIONS)
    )


@dataclass(frozen=True, slots=True)
class Located:
    """Where a document keeps its tools: (pointer, entry, is a Gemini declaration) for each
    function tool, and (pointer, what it is) for each built-in tool the provider runs
    itself (OpenAI's hosted tools, Anthropic's server tools, Gemini's grounding tools)."""

    entries: list[tuple[str, Any, bool]]
    builtins: list[tuple[str, str]]
    gemini: bool = False  # the document is Gemini's (some declarations)


#: Gemini's built-in tools: a tools-array item with one of these keys runs on Google's side.
GEMINI_BUILTINS = frozenset(
    {
        "googleSearch", "google_search", "googleSearchRetrieval", "google_search_retrieval",
        "codeExecution", "code_execution", "urlContext", "url_context", "googleMaps",
        "google_maps", "computerUse", "computer_use", "fileSearch", "file_search",
        "retrieval", "enterpriseWebSearch", "enterprise_web_search",
    }
)  # fmt: skip
#: OpenAI's hosted tools (Responses, Assistants, Chat Completions `type`s other than
#: `function` and `custom`).
OPENAI_HOSTED = frozenset(
    {
        "file_search", "web_search", "web_search_preview", "web_search_preview_2025_03_11",
        "code_interpreter", "computer_use_preview", "computer_use", "computer", "mcp",
        "image_generation", "local_shell", "shell", "apply_patch", "retrieval", "tool_search",
    }
)  # fmt: skip
#: Anthropic's server and schema-less client tools are versioned: `web_search_20250305`,
#: `bash_20250124`, `text_editor_20250728`, `computer_20250124`, `code_execution_...`.
ANTHROPIC_VERSIONED = re.compile(r"[a-z][a-z_]*_20\d{6}")


def builtin_kind(entry: Any) -> str | None:
    """What a built-in tool is ("OpenAI file_search", "Gemini googleSearch"), or None when
    `entry` is not one."""
    if not isinstance(entry, dict):
        return None
    kind = entry.get("type")
    if isinstance(kind, str):
        if kind in OPENAI_HOSTED and "input_schema" not in entry and "function" not in entry:
            label = entry.get("server_label")
            return f"OpenAI {kind}" + (f" ({label})" if isinstance(label, str) else "")
        if ANTHROPIC_VERSIONED.fullmatch(kind) and "input_schema" not in entry:
            name = entry.get("name")
            return f"Anthropic {kind}" + (f" ({name})" if isinstance(name, str) else "")
    if "name" not in entry and len(entry) == 1:
        (key,) = entry
        if key in GEMINI_BUILTINS:
            return f"Gemini {key}"
    return None


def _items(values: list[Any], base: str) -> Located:
    """A list of tools, in any mix of shapes: Gemini groups are unwrapped, built-in tools
    are set apart."""
    entries: list[tuple[str, Any, bool]] = []
    builtins: list[tuple[str, str]] = []
    gemini = False
    for i, value in enumerate(values):
        pointer = f"{base}/{i}"
        group = _declarations(value)
        if group is not None:
            key, declared = group
            gemini = True
            entries.extend((f"{pointer}/{key}/{j}", e, True) for j, e in enumerate(declared))
            continue
        kind = builtin_kind(value)
        if kind is not None:
            builtins.append((pointer, kind))
            continue
        entries.append((pointer, value, False))
    return Located(entries, builtins, gemini)


def _declarations(value: Any) -> tuple[str, list[Any]] | None:
    if isinstance(value, dict):
        for key in DECLARATIONS:
            if isinstance(value.get(key), list):
                return key, value[key]
    return None


#: Keys that make a mapping one tool definition rather than a registry.
_ONE_TOOL = ("inputSchema", "input_schema", "parameters", "parametersJsonSchema", "function")


def locate_entries(document: Any) -> Located | None:
    """Where `document` keeps its tools; None when it holds no list of tools. Read: a list
    of tools (any mix of shapes, Gemini tools arrays included), `{tools: [...]}` (a request
    body too), Gemini's `{functionDeclarations: [...]}`, a JSON-RPC `tools/list` response,
    and a single tool definition (an MCP tool, an OpenAI function)."""
    if isinstance(document, list):
        return _items(document, "")
    if not isinstance(document, dict):
        return None
    group = _declarations(document)
    if group is not None:
        key, declared = group
        return Located([(f"/{key}/{i}", e, True) for i, e in enumerate(declared)], [], True)
    tools = document.get("tools")
    if isinstance(tools, list):
        return _items(tools, "/tools")
    result = document.get("result")
    if isinstance(result, dict) and isinstance(result.get("tools"), list):
        return _items(result["tools"], "/result/tools")
    if "tools" not in document and (
        (isinstance(document.get("name"), str) and any(k in document for k in _ONE_TOOL))
        or (document.get("type") == "function" and isinstance(document.get("function"), dict))
    ):
        return Located([("", document, False)], [])
    return None


#: Keys under which a foreign tool list keeps each tool's schema: a list whose entries
#: hold a schema here, and no shape toolsel reads, is refused by name instead of read as
#: a toolsel registry without parameters.
FOREIGN_SCHEMA_KEYS = ("schema", "args_schema", "argsSchema", "input", "inputs", "args", "params")


def foreign_schema_key(entry: Any) -> str | None:
    """The key of `entry` that holds a JSON Schema in a shape toolsel does not read."""
    if not isinstance(entry, dict) or "parameters" in entry:
        return None
    for key in FOREIGN_SCHEMA_KEYS:
        value = entry.get(key)
        if isinstance(value, dict) and ("properties" in value or "type" in value):
            return key
    return None


def server_entry_key(entry: Any) -> str | None:
    """The key that makes `entry` an MCP server's entry rather than a tool's: how to launch
    it (`command` with `args` or `env`, a `url` with a transport, a client `config` of
    `mcpServers`) or the server's own nested tool list under `tools`; None for a tool."""
    if not isinstance(entry, dict) or any(key in entry for key in _ONE_TOOL):
        return None
    if isinstance(entry.get("command"), str) and ("args" in entry or "env" in entry):
        return "command"
    if isinstance(entry.get("url"), str) and entry.get("type", entry.get("transport")) in (
        "sse", "http", "streamable-http", "streamableHttp",
    ):  # fmt: skip
        return "url"
    config = entry.get("config")
    if isinstance(config, dict) and isinstance(config.get("mcpServers"), dict):
        return "config"
    nested = entry.get("tools")
    if isinstance(nested, dict) or (
        isinstance(nested, list) and any(isinstance(t, dict) and "name" in t for t in nested)
    ):
        return "tools"
    return None


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
    "STRING": "string",
    "NUMBER": "number",
    "INTEGER": "integer",
    "BOOLEAN": "boolean",
    "ARRAY": "array",
    "OBJECT": "object",
    "NULL": "null",
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
