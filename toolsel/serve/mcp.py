"""The MCP server: toolsel's search over a registry, as three small tools an MCP client loads
instead of hundreds (progressive disclosure).

- `search_tools(query, top?, category?)`: the best matches' names, descriptions and input
  schemas, in the MCP tool shape;
- `select_tools(names)`: the full definitions of named tools;
- `validate_call(tool, input)`: the registry checks replay runs on a call;
- and each tool as a resource, `toolsel://tools/{name}` (a resource template).

`toolsel mcp` serves it over stdio; `toolsel serve --mcp` over streamable HTTP at `/mcp`.
Built on the official MCP Python SDK (`mcp`, v2: `MCPServer`).
"""

from __future__ import annotations

from typing import Any

from toolsel import __version__
from toolsel.serve.service import Service

INSTRUCTIONS = (
    "This server knows a registry of tools. Call search_tools with what you want to do to "
    "find the tools that fit; call select_tools with their names to get their full "
    "definitions; call validate_call before making a call to check it."
)


def create_mcp(service: Service) -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(name="toolsel", version=__version__, instructions=INSTRUCTIONS)

    @server.tool()
    def search_tools(query: str, top: int = 5, category: str | None = None) -> dict[str, Any]:
        """Find the registry's tools that fit a task, best first: each tool's name,
        description and input schema. `top` caps how many (1-50); `category` keeps one
        category."""
        from toolsel.emit import EMITTERS

        body: dict[str, Any] = {"query": query, "top": max(1, min(top, 50))}
        if category:
            body["categories"] = [category]
        ranked = service.rank(body)
        registry = service.snapshot.registry
        names = [r["name"] for r in ranked.get("results", [])]
        tools = [t for n in names if (t := registry.get(n)) is not None]
        found = EMITTERS["mcp"](tools)["tools"]
        return {
            "tools": [
                {
                    "name": t["name"],
                    "description": t["description"],
                    "inputSchema": t["inputSchema"],
                }
                for t in found
            ],
            "strong_match": ranked.get("strong_match", False),
        }

    @server.tool()
    def select_tools(names: list[str]) -> dict[str, Any]:
        """The full definitions (MCP tool shape) of tools named exactly or by alias; names
        that match nothing are listed in `not_found`."""
        from toolsel.emit import EMITTERS

        selected = service.select({"names": names})
        registry = service.snapshot.registry
        tools = [t for n in selected["matches"] if (t := registry.get(n)) is not None]
        return {"tools": EMITTERS["mcp"](tools)["tools"], "not_found": selected["not_found"]}

    @server.tool()
    def validate_call(tool: str, input: dict[str, Any]) -> dict[str, Any]:
        """Check a call before making it: unknown tool, deprecated, and its input against
        the tool's JSON Schema (with the failing path). Returns {ok, violations}."""
        return service.validate({"tool": tool, "input": input})

    @server.resource(
        "toolsel://tools/{name}",
        name="tool",
        description="One registry tool's full definition (MCP tool shape), by name.",
        mime_type="application/json",
    )
    def tool_resource(name: str) -> str:
        import json

        from toolsel.emit import EMITTERS

        tool = service.snapshot.registry.get(name)
        if tool is None:
            raise ValueError(f"no tool named {name!r}")
        return json.dumps(EMITTERS["mcp"]([tool])["tools"][0], ensure_ascii=False)

    return server
