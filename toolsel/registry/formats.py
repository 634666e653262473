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

ENTRY_FORMATS = {f.name: f for f in (TOOLSEL, OPENAI_CHAT, OPENAI_RESPONSES, ANTHROPIC, MCP)}
# field pointers split once (none of them needs ~ escaping)
_PATHS = {
    f.name: {field: tuple(pointer[1:].split("/")) for field, pointer in f.fields.items()}
    for f in ENTRY_FORMATS.values()
}


def detect_entry_format(entry: dict[str, Any]) -> EntryFormat:
    if entry.get("type") == "function":
        if isinstance(entry.get("function"), dict):
            return OPENAI_CHAT
        return OPENAI_RESPONSES
    if "input_schema" in entry:
        return ANTHROPIC
    if "inputSchema" in entry:
        return MCP
    return TOOLSEL


def locate_entries(document: Any) -> tuple[str, list[Any]] | None:
    """Find the list of tool entries in a document: (pointer of the list, entries)."""
    if isinstance(document, list):
        return "", document
    if isinstance(document, dict):
        tools = document.get("tools")
        if isinstance(tools, list):
            return "/tools", tools
        result = document.get("result")
        if isinstance(result, dict) and isinstance(result.get("tools"), list):
            return "/result/tools", result["tools"]
    return None


def mcp_permission(annotations: Any) -> str:
    """MCP annotations -> permission: readOnlyHint -> read, destructiveHint -> dangerous."""
    if not isinstance(annotations, dict):
        return "write"
    if annotations.get("readOnlyHint") is True:
        return "read"
    if annotations.get("destructiveHint") is True:
        return "dangerous"
    return "write"
