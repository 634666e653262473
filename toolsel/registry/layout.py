"""Where a document keeps its tools: the layouts of a registry file (a list, `tools:`, Gemini's
declarations, a `tools/list` response, one tool), what sets apart an overlay, a provider's
built-in tools, and the shapes that are not tool lists (MCP server catalogues, foreign
schemas)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

#: Top-level keys of a toolsel registry.
TOP_LEVEL_KEYS = ("version", "categories", "tools", "$schema")
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
