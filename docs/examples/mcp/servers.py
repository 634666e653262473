"""Three small MCP servers, written with the MCP SDK, for the README's client-config example:

    python docs/examples/mcp/servers.py tickets|docs|deploy

Each answers `tools/list` over stdio with a few tools (their MCP annotations say which only
read); nothing they list does anything."""

from __future__ import annotations

import sys

import anyio
import mcp.types as t
from mcp.server.lowlevel import Server


def tool(name: str, description: str, properties: dict[str, str], read_only: bool) -> t.Tool:
    schema = {
        "type": "object",
        "properties": {
            key: {"type": "string", "description": text} for key, text in properties.items()
        },
        "required": list(properties),
    }
    hints = t.ToolAnnotations(read_only_hint=read_only, destructive_hint=not read_only)
    return t.Tool(name=name, description=description, input_schema=schema, annotations=hints)


SERVERS = {
    "tickets": [
        tool(
            "create_ticket",
            "Files a new ticket in the tracker with a title and a body. "
            "Use it to report a bug or ask for work. Returns the ticket's key.",
            {"title": "One-line summary.", "body": "What happened and how to reproduce it."},
            False,
        ),
        tool(
            "search_tickets",
            "Finds tickets whose title or body match a query. Use it before "
            "filing, to avoid duplicates. Returns keys and titles, newest first.",
            {"query": "Words to look for."},
            True,
        ),
    ],
    "docs": [
        tool(
            "search_docs",
            "Searches the team's documentation pages. Use it for how-to "
            "questions. Returns page titles and links, best first.",
            {"query": "What to look for."},
            True,
        ),
        tool(
            "read_page",
            "Returns one documentation page as Markdown, by its link.",
            {"link": "The page's link, from search_docs."},
            True,
        ),
    ],
    "deploy": [
        tool(
            "deploy_service",
            "Deploys a service's latest build to an environment. Use it "
            "only after the tests passed. Cannot be undone; roll back instead.",
            {"service": "Service name.", "environment": "staging or production."},
            False,
        ),
        tool(
            "service_status",
            "Says which build each environment of a service runs, and whether it is healthy.",
            {"service": "Service name."},
            True,
        ),
    ],
}


def main() -> None:
    tools = SERVERS[sys.argv[1]]

    async def on_list(ctx: object, params: object) -> t.ListToolsResult:
        return t.ListToolsResult(tools=tools)

    server = Server(sys.argv[1], version="1.0", on_list_tools=on_list)

    async def run() -> None:
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


if __name__ == "__main__":
    main()
