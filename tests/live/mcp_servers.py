"""Real MCP servers, written with the MCP SDK, for the live-source tests.

    python mcp_servers.py MODE [stdio | http PORT]

MODE: `pager` (five tools, two per page), `hang` (answers initialize, never tools/list),
`crash` (writes to stderr and exits 1 before answering), `changing FILE` (the tools named
in FILE, one per line, read at each tools/list), `echo-env` (one tool whose description is
$GREETING), `chatty MB` (writes MB megabytes to stderr, then serves as `pager`),
`spawner FILE` (starts a child that sleeps in its process group, writes the child's pid to
FILE, then serves as `pager`), `banner` (prints a line that is not JSON-RPC on stdout
first), `leaky` (crashes with $SECRET_VALUE in its stderr), `changing-json FILE` (the
tools/list result's tools, as JSON, read from FILE at each call), `endless` (one tool a page,
a new cursor every page), `loop` (the same cursor on every page), `where`
(one tool whose description is its working folder), `long-banner` (a line of 122
characters that is not JSON-RPC), `blank` (serves as `pager`, writing blank
lines before each message in the same write), `stubborn` (ignores SIGTERM and the end of its stdin once
listed: only SIGKILL stops it), `stderr N` (writes N numbered lines to stderr, then serves
as `pager`), `mute` (never answers initialize), `lingering FILE` (leaves a process in its
group that outlives it and takes 0.1 s to exit on SIGTERM; the process's parent waits for it
from a group of its own, so it is reaped as soon as it exits; FILE gets `started`, `ready`
and, on SIGTERM, `terminated`; then serves as `pager`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import mcp.types as t
from mcp.server.lowlevel import Server


def tool(name: str, description: str, **extra: object) -> t.Tool:
    schema = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
    return t.Tool(name=name, description=description, input_schema=schema, **extra)  # type: ignore[arg-type]


PAGER = [
    tool("create_issue", "Create an issue in a repository."),
    tool(
        "list_issues",
        "List the issues of a repository.",
        annotations=t.ToolAnnotations(read_only_hint=True),
    ),
    tool("delete_branch", "Delete a branch.", annotations=t.ToolAnnotations(destructive_hint=True)),
    tool(
        "get_file",
        "Read one file of a repository.",
        output_schema={"type": "object", "properties": {"text": {"type": "string"}}},
        annotations=t.ToolAnnotations(read_only_hint=True),
    ),
    tool("merge_pull_request", "Merge a pull request."),
]


def main() -> None:
    mode = sys.argv[1]
    rest = sys.argv[2:]
    if mode in {"linger-parent", "linger-child"}:
        return _linger(mode, Path(rest[0]))
    if mode == "crash":
        print("fatal: GITHUB_TOKEN is not set", file=sys.stderr, flush=True)
        sys.exit(1)
    if mode == "leaky":
        print(f"fatal: bad token {os.environ.get('SECRET_VALUE')}", file=sys.stderr, flush=True)
        sys.exit(1)
    if mode == "chatty":
        line = b"x" * 1023 + b"\n"
        for _ in range(int(rest.pop(0)) * 1024):
            sys.stderr.buffer.write(line)
        sys.stderr.buffer.write(b"the last line of a chatty server\n")
        sys.stderr.flush()
    if mode == "spawner":
        import subprocess

        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        Path(rest.pop(0)).write_text(str(child.pid))
    if mode == "lingering":
        import subprocess
        import time

        marker = Path(rest.pop(0))
        marker.write_text("")
        quiet = {
            "stdin": subprocess.DEVNULL,
            "stdout": subprocess.DEVNULL,
            "stderr": subprocess.DEVNULL,
        }
        subprocess.Popen([sys.executable, __file__, "linger-parent", str(marker)], **quiet)  # type: ignore[call-overload]
        while "ready" not in marker.read_text():
            time.sleep(0.01)
    if mode == "banner":
        print("Server started on stdio, ready!", flush=True)
    if mode == "long-banner":
        print("a" * 119 + "bcd", flush=True)
    if mode == "stderr":
        for number in range(int(rest.pop(0))):
            print(f"  line {number} of the server's log  ", file=sys.stderr, flush=True)
        print("", file=sys.stderr, flush=True)
    if mode == "mute":
        sys.stdin.read()
        return
    if mode == "stubborn":
        import signal

        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    changing = Path(rest.pop(0)) if mode in {"changing", "changing-json"} else None

    async def on_list(ctx: object, params: t.PaginatedRequestParams | None) -> t.ListToolsResult:
        if mode == "hang":
            await anyio.sleep(3600)
        if changing is not None and mode == "changing-json":
            import json

            return t.ListToolsResult.model_validate({"tools": json.loads(changing.read_text())})
        if changing is not None:
            names = changing.read_text().split()
            return t.ListToolsResult(tools=[tool(n, f"The {n} tool.") for n in names])
        if mode == "echo-env":
            return t.ListToolsResult(tools=[tool("greet", os.environ.get("GREETING", "none"))])
        if mode == "where":
            return t.ListToolsResult(tools=[tool("here", str(Path.cwd()))])
        if mode == "endless":
            page = int(params.cursor) if params and params.cursor else 0
            return t.ListToolsResult(
                tools=[tool(f"t{page}", "One more.")], next_cursor=str(page + 1)
            )
        if mode == "loop":
            return t.ListToolsResult(tools=[tool("t", "Again.")], next_cursor="again")
        start = int(params.cursor) if params and params.cursor else 0
        following = str(start + 2) if start + 2 < len(PAGER) else None
        return t.ListToolsResult(tools=PAGER[start : start + 2], next_cursor=following)

    server = Server(f"test-{mode}", version="1.0", on_list_tools=on_list)
    transport = rest[0] if rest else "stdio"
    if transport == "http":
        import uvicorn

        app = server.streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
        token = os.environ.get("REQUIRE_TOKEN")
        if token:
            app = _requiring(app, f"Bearer {token}")
        uvicorn.run(app, host="127.0.0.1", port=int(rest[1]), log_level="warning")
        return

    async def run() -> None:
        from mcp.server.stdio import stdio_server

        stdout = anyio.wrap_file(_BlankLines()) if mode == "blank" else None
        async with stdio_server(stdout=stdout) as (read, write):  # type: ignore[arg-type]
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
    if mode == "stubborn":
        import time

        time.sleep(600)


def _linger(mode: str, marker: Path) -> None:
    """`lingering`'s helpers: the parent starts the child in the server's group, leaves the
    group and waits for the child; the child exits 0.1 s after SIGTERM, noting when."""
    import signal
    import subprocess
    import time

    def note(word: str) -> None:
        with marker.open("a") as out:
            out.write(word + "\n")

    if mode == "linger-parent":
        child = subprocess.Popen([sys.executable, __file__, "linger-child", str(marker)])
        os.setpgid(0, 0)
        while "started" not in marker.read_text():
            time.sleep(0.01)
        note("ready")
        child.wait()
        return

    def stop(*args: object) -> None:
        note("terminated")
        time.sleep(0.1)
        note(f"exiting {time.monotonic()}")  # the clock every process shares
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    note("started")
    time.sleep(600)


class _BlankLines:
    """stdout that writes blank lines before each message, in the same write."""

    def write(self, text: str) -> int:
        return sys.stdout.write("\n  \n" + text)

    def flush(self) -> None:
        sys.stdout.flush()


def _requiring(app: object, expected: str) -> object:
    """`app`, answering 401 to a request without `Authorization: expected`."""

    async def guarded(scope: dict, receive: object, send: object) -> None:  # type: ignore[type-arg]
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            if headers.get(b"authorization", b"").decode() != expected:
                await send({"type": "http.response.start", "status": 401, "headers": []})  # type: ignore[operator]
                await send({"type": "http.response.body", "body": b"unauthorized"})  # type: ignore[operator]
                return
        await app(scope, receive, send)  # type: ignore[operator]

    return guarded


if __name__ == "__main__":
    main()
