"""toolsel's stdio transport for the MCP SDK's client session: the server in a process group
of its own, JSON-RPC lines on its stdin and stdout, its stderr kept as a bounded tail in
memory, and the whole group stopped when the session ends (stdin closed, then SIGTERM to
the group, then SIGKILL), so a server's children never outlive the listing."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from collections.abc import AsyncIterator
from typing import Any

from toolsel.live.sources import Server

#: The most of a server's stderr kept (its end): what a failure shows is its last lines.
TAIL_BYTES = 64 * 1024
#: The longest line a server may write on stdout (a tools/list of 50,000 tools fits).
MAX_LINE_BYTES = 64 * 1024 * 1024
#: How long a server has to exit once its stdin is closed, then once it is sent SIGTERM.
EXIT_WAIT = 2.0


class StderrTail:
    """The last `TAIL_BYTES` of a stream, and how much it wrote in all."""

    def __init__(self, limit: int = TAIL_BYTES) -> None:
        self.limit = limit
        self.data = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self.data += chunk
        if len(self.data) > 2 * self.limit:  # trimmed in steps: amortised O(1) a byte
            del self.data[: len(self.data) - self.limit]

    def lines(self, count: int = 3) -> list[str]:
        text = bytes(self.data[-self.limit :]).decode("utf-8", "replace")
        return [line.strip() for line in text.splitlines() if line.strip()][-count:]

    def shown(self, count: int = 3, width: int = 300) -> str:
        """`; its stderr: "..."` with its last lines, or nothing when it wrote none."""
        tail = self.lines(count)
        if not tail:
            return ""
        shown = " | ".join(tail)
        if len(shown) > width:
            shown = "..." + shown[-width:]
        return f"; its stderr: {json.dumps(shown, ensure_ascii=False)}"


class NotJsonRpc(Exception):
    """The server wrote a line on stdout that is not a JSON-RPC message."""


def environment(server: Server) -> dict[str, str]:
    """What the SDK passes a server (its safe default set: HOME, PATH, ...) and the
    server's own variables on top, as clients do."""
    from mcp.client.stdio import get_default_environment

    return {**get_default_environment(), **dict(server.env)}


@contextlib.asynccontextmanager
async def stdio_streams(server: Server, tail: StderrTail) -> AsyncIterator[tuple[Any, Any]]:
    """The (read, write) streams a `ClientSession` takes, for `server` started now."""
    import anyio
    from mcp.shared.message import SessionMessage

    process = await anyio.open_process(
        list(server.command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment(server),
        cwd=server.cwd,
        start_new_session=True,
    )
    read_send, read_receive = anyio.create_memory_object_stream[Any](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(_read_stdout, process, read_send)
            group.start_soon(_write_stdin, process, write_receive)
            group.start_soon(_read_stderr, process, tail)
            try:
                yield read_receive, write_send
            finally:
                group.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await stop_group(process)
            for stream in (read_send, read_receive, write_send, write_receive):
                await stream.aclose()


async def _read_stdout(process: Any, out: Any) -> None:
    from mcp import types
    from mcp.shared.message import SessionMessage

    buffer = b""
    async with out:
        async for chunk in process.stdout:
            buffer += chunk
            if len(buffer) > MAX_LINE_BYTES:
                raise NotJsonRpc(f"the server wrote a line of over {MAX_LINE_BYTES:,} bytes")
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                if not line.strip():
                    continue
                try:
                    message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                except ValueError:
                    text = line.decode("utf-8", "replace").strip()
                    shown = json.dumps(text[:120] + ("..." if len(text) > 120 else ""))
                    raise NotJsonRpc(
                        f"the server wrote a line on stdout that is not a JSON-RPC message: "
                        f"{shown} (an MCP server over stdio writes only JSON-RPC there; logs "
                        "go to stderr)"
                    ) from None
                await out.send(SessionMessage(message))


async def _write_stdin(process: Any, messages: Any) -> None:
    import anyio

    async with messages:
        async for message in messages:
            data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
            try:
                await process.stdin.send(data.encode("utf-8"))
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                return  # the server is gone: its stdout's end says so


async def _read_stderr(process: Any, tail: StderrTail) -> None:
    import anyio

    with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, OSError):
        async for chunk in process.stderr:
            tail.feed(chunk)


async def stop_group(process: Any) -> None:
    """Close the server's stdin, give it `EXIT_WAIT` to exit, then SIGTERM its whole
    group, and SIGKILL what is left after another `EXIT_WAIT`. The group goes even when
    its leader exited on its own (a launcher's children stay in the group)."""
    import anyio

    with contextlib.suppress(Exception):
        await process.stdin.aclose()
    with anyio.move_on_after(EXIT_WAIT):
        await process.wait()
    pgid = process.pid  # start_new_session: the leader's pid is the group's
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if not _signal_group(pgid, sig):
            break
        with anyio.move_on_after(EXIT_WAIT):
            await process.wait()  # reaps the leader: a zombie would keep the group alive
            while _group_alive(pgid):
                await anyio.sleep(0.02)
        if not _group_alive(pgid):
            break
    for stream in (process.stdout, process.stderr):
        with contextlib.suppress(Exception):
            await stream.aclose()


def _signal_group(pgid: int, sig: int) -> bool:
    """Send `sig` to the group; False when the group is gone."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
