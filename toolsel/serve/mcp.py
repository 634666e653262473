"""The MCP server: three small tools an MCP client loads instead of hundreds (progressive
disclosure) — `search_tools`, `select_tools`, `validate_call` — and each registry tool as
a resource, `toolsel://tools/{name}`. `toolsel mcp` serves it over stdio (`run_stdio`),
`toolsel serve --mcp` over streamable HTTP at `/mcp`; built on the MCP Python SDK (v2).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolsel import __version__
from toolsel.serve.service import Service
from toolsel.serve.values import read, shown

INSTRUCTIONS = (
    "This server knows a registry of tools. Call search_tools with what you want to do to "
    "find the tools that fit; call select_tools with their names to get their full "
    "definitions; call validate_call before making a call to check it."
)


def create_mcp(service: Service) -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver import server as sdk

    # The SDK's MCPServer configures the root logger with Rich, which costs 0.1-0.3 s of
    # import before `initialize` can be answered; toolsel configures its own logging
    # (`toolsel.serve.logs`), so that step is skipped.
    configure = sdk.configure_logging  # type: ignore[attr-defined]
    sdk.configure_logging = lambda *args, **kwargs: None  # type: ignore[attr-defined]
    try:
        server = MCPServer(name="toolsel", version=__version__, instructions=INSTRUCTIONS)
    finally:
        sdk.configure_logging = configure  # type: ignore[attr-defined]
    tools = Tools(service)
    for tool in (tools.search_tools, tools.select_tools, tools.validate_call):
        server.tool()(tool)
    server.resource(
        "toolsel://tools/{name}",
        name="tool",
        description="One registry tool's full definition (MCP tool shape), by name.",
        mime_type="application/json",
    )(tools.tool_resource)
    return server


class Tools:
    """The MCP tools and resource, answered by one service; each call within a deadline."""

    def __init__(self, service: Service) -> None:
        self.service = service

    def search_tools(self, query: str, top: int = 5, category: str | None = None) -> dict[str, Any]:
        """Find the registry's tools that fit a task, best first: each tool's name,
        description and input schema. `top` caps how many (1-50); `category` keeps one
        category."""
        from toolsel.serve.models import RankRequest

        body: dict[str, Any] = {"query": query, "top": max(1, min(top, 50))}
        if category:
            body["categories"] = [category]
        with _deadline():
            ranked = self.service.rank(read(RankRequest, body))
        names = [r["name"] for r in ranked.get("results", [])]
        keys = ("name", "description", "inputSchema")
        found = [{key: t[key] for key in keys} for t in self._mcp_tools(names)]
        return {"tools": found, "strong_match": ranked.get("strong_match", False)}

    def select_tools(self, names: list[str]) -> dict[str, Any]:
        """The full definitions (MCP tool shape) of tools named exactly or by alias; names
        that match nothing are listed in `not_found`."""
        from toolsel.serve.models import SelectRequest

        with _deadline():
            selected = self.service.select(read(SelectRequest, {"names": names}))
        return {"tools": self._mcp_tools(selected["matches"]), "not_found": selected["not_found"]}

    def validate_call(self, tool: str, input: dict[str, Any]) -> dict[str, Any]:
        """Check a call before making it: unknown tool, deprecated, and its input against
        the tool's JSON Schema (with the failing path). Returns {ok, violations}."""
        from toolsel.serve.models import ValidateRequest

        with _deadline():
            return self.service.validate(read(ValidateRequest, {"tool": tool, "input": input}))

    def tool_resource(self, name: str) -> str:
        import json

        from mcp.server.mcpserver.exceptions import ResourceNotFoundError

        from toolsel.suggest import did_you_mean

        registry = self.service.snapshot.registry
        if registry.get(name) is None:  # the client gets the reason; the server logs one line
            raise ResourceNotFoundError(
                f"no tool named {shown(name)}{did_you_mean(name, registry.names)}"
            )
        return json.dumps(self._mcp_tools([name])[0], ensure_ascii=False)

    def _mcp_tools(self, names: list[str]) -> list[dict[str, Any]]:
        """The named tools of the live registry, in the MCP tool shape."""
        from toolsel.emit import EMITTERS

        registry = self.service.snapshot.registry
        tools = [t for name in names if (t := registry.get(name)) is not None]
        found: list[dict[str, Any]] = EMITTERS["mcp"](tools)["tools"]
        return found


def _deadline() -> Any:
    """A tool call's deadline, as an HTTP request's (`--request-timeout`'s default)."""
    import time

    from toolsel.deadline import until
    from toolsel.serve.limits import REQUEST_TIMEOUT

    return until(time.monotonic() + REQUEST_TIMEOUT)


async def run_stdio(server: Any, warm: Callable[[], None] | None = None) -> None:
    """Serve `server` over stdin and stdout, as `MCPServer.run_stdio_async` does, except
    that a line that is not JSON, or not a JSON-RPC message, gets a JSON-RPC error reply
    (-32700 parse error, -32600 invalid request; `id` null, as JSON-RPC 2.0 asks) instead
    of silence. `warm` runs when the second message arrives (the client's `initialized`,
    once `initialize` is answered), so that it does not slow the first answer."""
    import anyio
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage

    lowlevel = server._lowlevel_server  # what run_stdio_async runs (mcp v2)
    async with stdio_server() as (read_stream, write_stream):
        forward, received = anyio.create_memory_object_stream[Any](0)

        async def relay() -> None:
            seen = 0
            async with forward:
                async for item in read_stream:
                    seen += 1
                    if seen == 2 and warm is not None:
                        warm()
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
    code, message = (
        (-32700, "Parse error: the line is not JSON")
        if "json_invalid" in kinds
        else (-32600, "Invalid Request: not a JSON-RPC 2.0 request, notification or response")
    )
    return types.JSONRPCError(
        jsonrpc="2.0", id=None, error=types.ErrorData(code=code, message=message)
    )
