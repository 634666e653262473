"""The tool-list shapes toolsel reads, and how each maps onto toolsel's canonical fields.

Every shape is described as data: which keys an entry may have, and where each canonical
field lives relative to the entry. Detection looks at the keys of an entry, never at the
file name.
"""

from __future__ import annotations

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
    for f in (TOOLSEL, OPENAI_CHAT, OPENAI_RESPONSES, ANTHROPIC, MCP, GEMINI, GEMINI_JSON_SCHEMA)
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
    if entry.get("type") == "function":
        if isinstance(entry.get("function"), dict):
            return OPENAI_CHAT
        return OPENAI_RESPONSES
    if "input_schema" in entry:
        return ANTHROPIC
    if "inputSchema" in entry:
        return MCP
    return TOOLSEL


DECLARATIONS = ("functionDeclarations", "function_declarations")
#: Top-level keys an examples overlay may have.
OVERLAY_KEYS = ("examples", "version", "$schema")


def is_overlay(document: Any) -> bool:
    """An examples overlay: a mapping with `examples` and no list of tools."""
    return (
        isinstance(document, dict)
        and "examples" in document
        and "tools" not in document
        and not any(key in document for key in DECLARATIONS)
    )


def locate_entries(document: Any) -> tuple[list[tuple[str, Any]], bool] | None:
    """The tool entries of a document as (pointer, entry) pairs, and whether they are Gemini
    function declarations; None when the document holds no list of tools. Gemini's request
    shape nests them: `{"tools": [{"functionDeclarations": [...]}]}`, or
    `{"functionDeclarations": [...]}` alone."""
    if isinstance(document, list):
        return [(f"/{i}", e) for i, e in enumerate(document)], False
    if not isinstance(document, dict):
        return None
    for key in DECLARATIONS:
        if isinstance(document.get(key), list):
            return [(f"/{key}/{i}", e) for i, e in enumerate(document[key])], True
    tools = document.get("tools")
    if isinstance(tools, list):
        groups = [
            (i, key, t[key])
            for i, t in enumerate(tools)
            if isinstance(t, dict)
            for key in DECLARATIONS
            if isinstance(t.get(key), list)
        ]
        if groups and len(groups) == len(tools):
            return [
                (f"/tools/{i}/{key}/{j}", e)
                for i, key, entries in groups
                for j, e in enumerate(entries)
            ], True
        return [(f"/tools/{i}", e) for i, e in enumerate(tools)], False
    result = document.get("result")
    if isinstance(result, dict) and isinstance(result.get("tools"), list):
        return [(f"/result/tools/{i}", e) for i, e in enumerate(result["tools"])], False
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
