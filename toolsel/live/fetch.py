"""List a live MCP server's tools with the official MCP SDK's client: `initialize`, then
`tools/list` page by page, each step under its own deadline. A stdio server's stderr is
kept and its last lines shown when it fails; the SDK stops the process (stdin closed,
then the process tree killed after 2 s)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any, TextIO

from toolsel.live.sources import Server

#: Most pages a list may have: a server whose cursor never ends is stopped, not followed.
MAX_PAGES = 1000
#: Most tools one server may list: a server that lists more is refused, not held in memory.
MAX_TOOLS = 50_000


@dataclass(frozen=True, slots=True)
class Timeouts:
    connect: float = 30.0  # start (or reach) the server and `initialize`
    list: float = 30.0  # every page of `tools/list`


@dataclass(frozen=True, slots=True)
class Listed:
    """A server's tools, as `tools/list` gave them (JSON objects, by their wire names)."""

    server: Server
    tools: tuple[dict[str, Any], ...]
    server_info: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Failed:
    server: Server
    reason: str


def list_servers(servers: Sequence[Server], timeouts: Timeouts) -> list[Listed | Failed]:
    """Each server's tools, fetched at the same time, in `servers`' order. A server that
    fails is a `Failed` with its reason; the others are still listed."""
    if not servers:
        return []
    try:
        import anyio
    except ImportError:  # pragma: no cover - anyio comes with the mcp SDK
        return [Failed(s, _NO_SDK) for s in servers]
    results: list[Listed | Failed | None] = [None] * len(servers)

    async def run_all() -> None:
        async with anyio.create_task_group() as group:
            for index, server in enumerate(servers):
                group.start_soon(_store, results, index, server, timeouts)

    anyio.run(run_all)
    return [
        r if r is not None else Failed(s, "not listed")
        for r, s in zip(results, servers, strict=True)
    ]


_NO_SDK = "listing a live MCP server needs the MCP SDK: pip install 'toolsel[mcp]'"


async def _store(
    results: list[Listed | Failed | None], index: int, server: Server, timeouts: Timeouts
) -> None:
    results[index] = await list_one(server, timeouts)


async def list_one(server: Server, timeouts: Timeouts) -> Listed | Failed:
    """One server's tools, or why not; never raises for what the server does."""
    try:
        from mcp.client.session import ClientSession  # noqa: F401 - checked here, used below
    except ImportError:
        return Failed(server, _NO_SDK)
    import tempfile  # here, not at the top: with shutil, 10 ms of every command's start-up

    import anyio

    errlog: TextIO = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
    phase = ["start"]
    try:
        with anyio.CancelScope() as scope:
            scope.deadline = anyio.current_time() + timeouts.connect
            try:
                listed = await _session(server, errlog, scope, timeouts, phase)
            except Exception as error:
                return Failed(server, _reason(error, phase, errlog, server))
        if scope.cancelled_caught:
            limit = timeouts.connect if phase[0] in {"start", "initialize"} else timeouts.list
            what = {"start": "to start", "initialize": "to answer initialize"}.get(
                phase[0], "to answer tools/list"
            )
            return Failed(
                server,
                f"took longer than {limit:g} s {what} (--mcp-timeout){_stderr_tail(errlog)}",
            )
        return listed
    finally:
        errlog.close()


async def _session(
    server: Server, errlog: TextIO, scope: Any, timeouts: Timeouts, phase: list[str]
) -> Listed:
    import contextlib

    import anyio
    from mcp import types
    from mcp.client.session import ClientSession

    async with contextlib.AsyncExitStack() as stack:
        if server.transport == "stdio":
            from mcp.client.stdio import StdioServerParameters, stdio_client

            params = StdioServerParameters(
                command=server.command[0],
                args=list(server.command[1:]),
                env=_environment(server),
                cwd=server.cwd,
            )
            read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
        else:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            http = await stack.enter_async_context(
                create_mcp_http_client(headers=dict(server.headers) or None)
            )

            async def note_status(response: Any) -> None:
                if response.status_code >= 400:  # the SDK's error does not say which
                    phase.append(f"HTTP {response.status_code} {response.reason_phrase}")

            http.event_hooks["response"].append(note_status)
            streams = await stack.enter_async_context(
                streamable_http_client(server.url, http_client=http)
            )
            read, write = streams[0], streams[1]
        session = await stack.enter_async_context(ClientSession(read, write))
        phase[0] = "initialize"  # phase[1:]: HTTP error statuses seen
        initialized = await session.initialize()
        phase[0] = "list"
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            scope.deadline = anyio.current_time() + timeouts.list
            page = await session.list_tools(
                params=types.PaginatedRequestParams(cursor=cursor) if cursor else None
            )
            tools.extend(
                tool.model_dump(mode="json", by_alias=True, exclude_none=True)
                for tool in page.tools
            )
            if len(tools) > MAX_TOOLS:
                raise _Protocol(f"tools/list gave more than {MAX_TOOLS:,} tools")
            cursor = page.next_cursor
            if not cursor:
                break
            if cursor in seen:
                raise _Protocol(f"tools/list repeated its cursor {cursor!r} (a loop)")
            seen.add(cursor)
        else:
            raise _Protocol(f"tools/list had more than {MAX_PAGES} pages")
        phase[0] = "shutdown"
        info = initialized.server_info.model_dump(mode="json", exclude_none=True)
        return Listed(server, tuple(tools), info)


class _Protocol(Exception):
    pass


def _environment(server: Server) -> dict[str, str] | None:
    """The server's own variables on top of what the SDK passes on (its safe default set:
    HOME, PATH, ...), as clients do; None when it names none."""
    if not server.env:
        return None
    from mcp.client.stdio import get_default_environment

    return {**get_default_environment(), **dict(server.env)}


def _reason(error: BaseException, phase: list[str], errlog: IO[str], server: Server) -> str:
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    if isinstance(error, FileNotFoundError) and server.transport == "stdio":
        return f"cannot start {server.command[0]!r}: no such command"
    if isinstance(error, PermissionError) and server.transport == "stdio":
        return f"cannot start {server.command[0]!r}: permission denied"
    text = str(error).strip() or type(error).__name__
    if isinstance(error, BaseExceptionGroup):
        text = "; ".join(sorted({str(e).strip() or type(e).__name__ for e in error.exceptions}))
    step = {"start": "starting", "initialize": "during initialize", "list": "during tools/list"}
    where = step.get(phase[0], phase[0])
    if len(phase) > 1:  # the HTTP status the server answered
        text = f"{phase[-1]} ({text})"
    if "Connection closed" in text and server.transport == "stdio":
        text = "the server exited"
    return f"{where}: {_one_line(text)}{_stderr_tail(errlog)}"


def _stderr_tail(errlog: IO[str], lines: int = 3, width: int = 300) -> str:
    try:
        errlog.seek(0)
        text = errlog.read()[-20000:]
    except (OSError, ValueError):
        return ""
    tail = [line.strip() for line in text.splitlines() if line.strip()][-lines:]
    if not tail:
        return ""
    shown = " | ".join(tail)
    if len(shown) > width:
        shown = "..." + shown[-width:]
    return f"; its stderr: {json.dumps(shown, ensure_ascii=False)}"


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]
