"""List a live MCP server's tools with the official MCP SDK's client session: `initialize`,
then `tools/list` page by page, each step under its own deadline. A stdio server runs
through toolsel's own transport (`toolsel.live.stdio`). What the server's own words show
(its stderr, its errors) is masked of the values toolsel handed it (`toolsel.redact`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from toolsel.live.sources import Server
from toolsel.live.timeouts import Timeouts

#: Most pages a list may have: a server whose cursor never ends is stopped, not followed.
MAX_PAGES = 1000
#: Most tools one server may list: a server that lists more is refused, not held in memory.
MAX_TOOLS = 50_000


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
    except ImportError:  # anyio comes with the mcp SDK
        return [Failed(s, _NO_SDK) for s in servers]
    results: list[Listed | Failed | None] = [None] * len(servers)

    async def store(index: int, server: Server) -> None:
        results[index] = await list_one(server, timeouts)

    async def run_all() -> None:
        async with anyio.create_task_group() as group:
            for index, server in enumerate(servers):
                group.start_soon(store, index, server)

    anyio.run(run_all)
    return [
        r if r is not None else Failed(s, "not listed")
        for r, s in zip(results, servers, strict=True)
    ]


_NO_SDK = "listing a live MCP server needs the MCP SDK: pip install 'toolsel[mcp]'"


async def list_one(server: Server, timeouts: Timeouts) -> Listed | Failed:
    """One server's tools, or why not; never raises for what the server does."""
    try:
        from mcp.client.session import ClientSession  # noqa: F401 - checked here, used below
    except ImportError:
        return Failed(server, _NO_SDK)
    import anyio

    from toolsel.live.stdio import StderrTail

    _quiet_sdk_logs()
    started = server.expanded()
    tail = StderrTail()
    phase = ["start"]
    unparsed: list[str] = []
    with anyio.CancelScope() as scope:
        scope.deadline = anyio.current_time() + timeouts.connect
        try:
            listed = await _session(started, tail, scope, timeouts, phase, unparsed)
        except Exception as error:
            return _failed(server, _reason(error, phase, tail, server))
    if unparsed:
        return _failed(server, f"{_step(phase)}: {unparsed[0]}{tail.shown()}")
    if scope.cancelled_caught:
        limit = timeouts.connect if phase[0] in {"start", "initialize"} else timeouts.list
        what = {"start": "to start", "initialize": "to answer initialize"}.get(
            phase[0], "to answer tools/list"
        )
        return _failed(server, f"took longer than {limit:g} s {what} (--mcp-timeout){tail.shown()}")
    return replace(listed, server=server)


def _failed(server: Server, reason: str) -> Failed:
    """Why a server failed, with every value toolsel handed it masked."""
    from toolsel.redact import mask_known

    return Failed(server, mask_known(reason, server.secrets()))


def _quiet_sdk_logs() -> None:
    """The SDK logs a reply it cannot parse with a traceback; toolsel says it in one line
    (the session's message handler sees the same error), so its log records go nowhere."""
    import logging

    logger = logging.getLogger("mcp")
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())
    logger.propagate = False


async def _session(
    server: Server,
    tail: Any,
    scope: Any,
    timeouts: Timeouts,
    phase: list[str],
    unparsed: list[str],
) -> Listed:
    import contextlib

    import anyio
    from mcp import types
    from mcp.client.session import ClientSession

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):  # a reply the SDK cannot parse
            text = _one_line(_parse_error(str(message))) or type(message).__name__
            unparsed.append(
                f"the server's reply is not a JSON-RPC message the MCP SDK can parse ({text})"
            )
            scope.cancel()

    async with contextlib.AsyncExitStack() as stack:
        if server.transport == "stdio":
            from toolsel.live.stdio import stdio_streams

            read, write = await stack.enter_async_context(stdio_streams(server, tail))
        else:
            read, write = await _http_streams(stack, server, phase)
        session = await stack.enter_async_context(
            ClientSession(read, write, message_handler=on_message)
        )
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


async def _http_streams(stack: Any, server: Server, phase: list[str]) -> tuple[Any, Any]:
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    http = await stack.enter_async_context(
        create_mcp_http_client(headers=dict(server.headers) or None)
    )

    async def note_status(response: Any) -> None:
        if response.status_code >= 400:  # the SDK's error does not say which
            phase.append(f"HTTP {response.status_code} {response.reason_phrase}")

    http.event_hooks["response"].append(note_status)
    streams = await stack.enter_async_context(streamable_http_client(server.url, http_client=http))
    return streams[0], streams[1]


class _Protocol(Exception):
    pass


def _step(phase: list[str]) -> str:
    step = {"start": "starting", "initialize": "during initialize", "list": "during tools/list"}
    return step.get(phase[0], phase[0])


def _reason(error: BaseException, phase: list[str], tail: Any, server: Server) -> str:
    leaves = _leaves(error)
    causes = [e for e in leaves if "Connection closed" not in str(e)]
    leaves = causes or leaves  # a closed connection follows the error that closed it
    if len(leaves) == 1:
        error = leaves[0]
    if isinstance(error, FileNotFoundError) and server.transport == "stdio":
        return f"cannot start {server.target.split()[0]!r}: no such command"
    if isinstance(error, PermissionError) and server.transport == "stdio":
        return f"cannot start {server.target.split()[0]!r}: permission denied"
    text = str(error).strip() or type(error).__name__
    if isinstance(error, BaseExceptionGroup):
        text = "; ".join(sorted({str(e).strip() or type(e).__name__ for e in leaves}))
    if len(phase) > 1:  # the HTTP status the server answered
        text = f"{phase[-1]} ({text})"
    if "Connection closed" in text and server.transport == "stdio":
        text = "the server exited"
    if "Failed to parse" in text:  # the SDK's McpError for a reply it cannot read
        text = f"the server's reply is not a JSON-RPC message the MCP SDK can parse ({_parse_error(text)})"
    return f"{_step(phase)}: {_one_line(text)}{tail.shown()}"


def _leaves(error: BaseException) -> list[BaseException]:
    """The errors inside `error`'s exception groups, however deeply nested (the SDK's
    transport runs a task group inside the session's): a group's own text says nothing."""
    if not isinstance(error, BaseExceptionGroup):
        return [error]
    found = {(type(leaf), str(leaf)): leaf for inner in error.exceptions for leaf in _leaves(inner)}
    return list(found.values())


def _parse_error(text: str) -> str:
    """The one line of a pydantic parse error that says what is wrong."""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(("Invalid JSON", "Input should", "Field required")) or "[type=" in line:
            return line.split(" [type=")[0]
    return next(iter(text.splitlines()), "").strip()


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]
