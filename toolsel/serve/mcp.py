"""The MCP server: toolsel's search over a registry, as three small tools an MCP client loads
instead of hundreds (progressive disclosure).

- `search_tools(query, top?, category?)`: the best matches' names, descriptions and input
  schemas, in the MCP tool shape;
- `select_tools(names)`: the full definitions of named tools;
- `validate_call(tool, input)`: the registry checks replay runs on a call;
- and each tool as a resource, `toolsel://tools/{name}` (a resource template).

`toolsel mcp` serves it over stdio (`run_stdio`); `toolsel serve --mcp` over streamable
HTTP at `/mcp`. Built on the official MCP Python SDK (`mcp`, v2: `MCPServer`).
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
        with _deadline():
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

        with _deadline():
            selected = service.select({"names": names})
        registry = service.snapshot.registry
        tools = [t for n in selected["matches"] if (t := registry.get(n)) is not None]
        return {"tools": EMITTERS["mcp"](tools)["tools"], "not_found": selected["not_found"]}

    @server.tool()
    def validate_call(tool: str, input: dict[str, Any]) -> dict[str, Any]:
        """Check a call before making it: unknown tool, deprecated, and its input against
        the tool's JSON Schema (with the failing path). Returns {ok, violations}."""
        with _deadline():
            return service.validate({"tool": tool, "input": input})

    @server.resource(
        "toolsel://tools/{name}",
        name="tool",
        description="One registry tool's full definition (MCP tool shape), by name.",
        mime_type="application/json",
    )
    def tool_resource(name: str) -> str:
        import json

        from mcp.server.mcpserver.exceptions import ResourceNotFoundError

        from toolsel.emit import EMITTERS
        from toolsel.serve.service import shown
        from toolsel.suggest import did_you_mean

        registry = service.snapshot.registry
        tool = registry.get(name)
        if tool is None:  # the client gets the reason; the server logs one line
            raise ResourceNotFoundError(
                f"no tool named {shown(name)}{did_you_mean(name, registry.names)}"
            )
        return json.dumps(EMITTERS["mcp"]([tool])["tools"][0], ensure_ascii=False)

    return server


def _deadline() -> Any:
    """A tool call's deadline, as an HTTP request's (`--request-timeout`'s default)."""
    import time

    from toolsel.deadline import until
    from toolsel.serve.limits import REQUEST_TIMEOUT

    return until(time.monotonic() + REQUEST_TIMEOUT)


async def run_stdio(server: Any) -> None:
    """Serve `server` over stdin and stdout, as `MCPServer.run_stdio_async` does, except
    that a line that is not JSON, or not a JSON-RPC message, gets a JSON-RPC error reply
    (-32700 parse error, -32600 invalid request; `id` null, as JSON-RPC 2.0 asks) instead
    of silence."""
    import anyio
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage

    lowlevel = server._lowlevel_server  # what run_stdio_async runs (mcp v2)
    async with stdio_server() as (read_stream, write_stream):
        forward, received = anyio.create_memory_object_stream[Any](0)

        async def relay() -> None:
            async with forward:
                async for item in read_stream:
                    if isinstance(item, Exception):
                        await write_stream.send(SessionMessage(rpc_error(item)))
                    else:
                        await forward.send(item)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(relay)
            await lowlevel.run(received, write_stream, lowlevel.create_initialization_options())
            tasks.cancel_scope.cancel()


def rpc_error(error: Exception) -> Any:
    """The JSON-RPC error answering a line the transport could not read."""
    import mcp_types as types

    errors = getattr(error, "errors", None)
    kinds = {e.get("type") for e in errors()} if callable(errors) else set()
    if "json_invalid" in kinds:
        code, message = -32700, "Parse error: the line is not JSON"
    else:
        code, message = (
            -32600,
            "Invalid Request: not a JSON-RPC 2.0 request, notification or response",
        )
    return types.JSONRPCError(
        jsonrpc="2.0", id=None, error=types.ErrorData(code=code, message=message)
    )
