"""Tool definitions in each provider's request shape, ready to paste into an API call."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from toolsel.registry.formats import MCP_PERMISSION_META
from toolsel.registry.model import Tool


def _definition(tool: Tool, schema_key: str, **flags: bool) -> dict[str, Any]:
    """Name, description and parameters under `schema_key`, then each flag that is set."""
    entry: dict[str, Any] = {"name": tool.name, "description": tool.description}
    entry[schema_key] = tool.parameters
    entry.update((flag, True) for flag, on in flags.items() if on)
    return entry


def _openai(tools: Sequence[Tool]) -> dict[str, Any]:
    """Chat Completions: {"tools": [{"type": "function", "function": {...}}]}."""
    return {
        "tools": [
            {"type": "function", "function": _definition(t, "parameters", strict=t.strict)}
            for t in tools
        ]
    }


def _openai_responses(tools: Sequence[Tool]) -> dict[str, Any]:
    """Responses API: {"tools": [{"type": "function", "name", "description", "parameters"}]}."""
    return {
        "tools": [
            {"type": "function", **_definition(t, "parameters", strict=t.strict)} for t in tools
        ]
    }


def _anthropic(tools: Sequence[Tool]) -> dict[str, Any]:
    """Messages API: {"tools": [{"name", "description", "input_schema"}]}."""
    return {
        "tools": [
            _definition(t, "input_schema", defer_loading=t.defer_loading, strict=t.strict)
            for t in tools
        ]
    }


def _mcp(tools: Sequence[Tool]) -> dict[str, Any]:
    """A tools/list result: {"tools": [{"name", "title", "description", "inputSchema", "annotations"}]}."""
    out = []
    for tool in tools:
        entry = _definition(tool, "inputSchema")
        if tool.display_name:
            entry["title"] = tool.display_name
        # the spec's defaults are readOnlyHint false and destructiveHint true, so both are
        # written out: a `write` tool must say it is not destructive. `admin` has no hint of
        # its own; toolsel's permission travels in `_meta` and is read back from there
        entry["annotations"] = {
            **(tool.annotations or {}),
            "readOnlyHint": tool.permission.value == "read",
            "destructiveHint": tool.permission.value == "dangerous",
        }
        entry["_meta"] = {MCP_PERMISSION_META: tool.permission.value}
        if tool.output_schema:
            entry["outputSchema"] = tool.output_schema
        out.append(entry)
    return {"tools": out}


def _gemini(tools: Sequence[Tool]) -> dict[str, Any]:
    """generateContent REST: {"tools": [{"functionDeclarations": [{name, description,
    parameters}]}]}. `parameters` takes the OpenAPI 3.0 subset, so the root `$schema` (which
    Gemini answers with 'Unknown name "$schema"') is dropped; a schema that needs more than
    the subset (oneOf, const, ...) goes in `parametersJsonSchema`, which takes JSON Schema."""
    declarations = []
    for tool in tools:
        schema = gemini_parameters(tool)
        key = "parametersJsonSchema" if beyond_gemini_subset(schema) else "parameters"
        declarations.append({"name": tool.name, "description": tool.description, key: schema})
    return {"tools": [{"functionDeclarations": declarations}]}


def gemini_parameters(tool: Tool) -> dict[str, Any]:
    """The tool's parameters without the root `$schema`, which Gemini refuses."""
    return {k: v for k, v in tool.parameters.items() if k != "$schema"}


def beyond_gemini_subset(schema: dict[str, Any]) -> bool:
    from toolsel.lint.schema import walk_schema
    from toolsel.registry.formats import GEMINI_UNSUPPORTED

    return any(k in node.schema for node in walk_schema(schema) for k in GEMINI_UNSUPPORTED)


EMITTERS: dict[str, Callable[[Sequence[Tool]], dict[str, Any]]] = {
    "openai": _openai,
    "openai-responses": _openai_responses,
    "anthropic": _anthropic,
    "mcp": _mcp,
    "gemini": _gemini,
}
