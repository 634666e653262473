"""Tool definitions in each provider's request shape, ready to paste into an API call."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from toolsel.registry.model import Tool


def _openai(tools: Sequence[Tool]) -> dict[str, Any]:
    """Chat Completions: {"tools": [{"type": "function", "function": {...}}]}."""
    out = []
    for tool in tools:
        function: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        }
        if tool.strict:
            function["strict"] = True
        out.append({"type": "function", "function": function})
    return {"tools": out}


def _anthropic(tools: Sequence[Tool]) -> dict[str, Any]:
    """Messages API: {"tools": [{"name", "description", "input_schema"}]}."""
    out = []
    for tool in tools:
        entry: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "input_schema": tool.parameters,
        }
        if tool.defer_loading:
            entry["defer_loading"] = True
        if tool.strict:
            entry["strict"] = True
        out.append(entry)
    return {"tools": out}


def _mcp(tools: Sequence[Tool]) -> dict[str, Any]:
    """A tools/list result: {"tools": [{"name", "title", "description", "inputSchema", "annotations"}]}."""
    out = []
    for tool in tools:
        entry: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "inputSchema": tool.parameters,
        }
        if tool.display_name:
            entry["title"] = tool.display_name
        entry["annotations"] = {
            "readOnlyHint": tool.permission.value == "read",
            "destructiveHint": tool.permission.value == "dangerous",
            **(tool.annotations or {}),
        }
        if tool.output_schema:
            entry["outputSchema"] = tool.output_schema
        out.append(entry)
    return {"tools": out}


def _gemini(tools: Sequence[Tool]) -> dict[str, Any]:
    """generateContent REST: {"tools": [{"functionDeclarations": [{name, description, parameters}]}]}."""
    declarations = [
        {"name": t.name, "description": t.description, "parameters": t.parameters} for t in tools
    ]
    return {"tools": [{"functionDeclarations": declarations}]}


EMITTERS: dict[str, Callable[[Sequence[Tool]], dict[str, Any]]] = {
    "openai": _openai,
    "anthropic": _anthropic,
    "mcp": _mcp,
    "gemini": _gemini,
}
