"""How long `-r 'mcp:CMD'` takes: connecting to a local stdio MCP server (written with the
SDK) and listing its tools, then the same command with the list cached.

    python benchmarks/live_bench.py [--runs 5] [--tools 50]

Targets (issue 21): connect and list in under 1.5 s; cached, 0.3 s. The first and cached
figures are the whole `toolsel rank` command, from process start to exit (a new list also
builds a new ranking index); "connect + list alone" is the listing in a fresh process,
from importing the SDK client to the server's shutdown. `lock --check` on a client config
naming three such servers (issue 31) lists all three anew, at the same time, and compares
every field. Best of --runs."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

SERVER = textwrap.dedent(
    """
    import sys, anyio
    import mcp.types as t
    from mcp.server.lowlevel import Server
    N = int(sys.argv[1])
    TOOLS = [t.Tool(name=f"tool_{i}", description=f"Does thing number {i} to a file.",
                    input_schema={"type": "object", "properties": {"path": {"type": "string"}}})
             for i in range(N)]
    async def on_list(ctx, params):
        return t.ListToolsResult(tools=TOOLS)
    server = Server("bench", version="1", on_list_tools=on_list)
    async def main():
        from mcp.server.stdio import stdio_server
        async with stdio_server() as (r, w):
            await server.run(r, w, server.create_initialization_options())
    anyio.run(main)
    """
)


def run(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def _list_only(script: Path, tools: int) -> float:
    """Connecting and listing alone, as toolsel does it, in a fresh process: importing the
    SDK client, starting the server, initialize, tools/list, shutdown."""
    code = (
        "import sys, time; t = time.perf_counter()\n"
        "from toolsel.live.fetch import Timeouts, list_servers\n"
        "from toolsel.live.sources import command_server\n"
        f"server = command_server(sys.executable + ' {script} {tools}', 'b', {{}})\n"
        "[listed] = list_servers([server], Timeouts())\n"
        "assert len(listed.tools) == " + str(tools) + ", listed\n"
        "print(time.perf_counter() - t)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tools", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "server.py"
        script.write_text(SERVER)
        env = {**os.environ, "TOOLSEL_CACHE_DIR": str(Path(folder) / "cache")}
        source = f"bench=mcp:{sys.executable} {script} {args.tools}"
        command = [sys.executable, "-m", "toolsel", "rank", "-r", source, "change a file"]
        fresh = min(run([*command, "--refresh"], env) for _ in range(args.runs))
        cached = min(run(command, env) for _ in range(args.runs))
        listing = min(_list_only(script, args.tools) for _ in range(args.runs))
        server_alone = min(
            run([sys.executable, "-c", "import mcp.server.lowlevel, mcp.server.stdio"], env)
            for _ in range(args.runs)
        )
        lock_check = _lock_check(Path(folder), script, args, env)
    print(f"connect + list ({args.tools} tools), whole command: {fresh:.2f} s (target 1.5 s)")
    print(f"cached, whole command:                 {cached:.2f} s (target 0.3 s)")
    print(f"connect + list alone, in a fresh process: {listing:.2f} s (target 1.5 s)")
    print(f"the server's own start (python + import mcp): {server_alone:.2f} s")
    print(f"lock --check, a config with 3 servers ({args.tools} tools each): {lock_check:.2f} s")


def _lock_check(folder: Path, script: Path, args: argparse.Namespace, env: dict[str, str]) -> float:
    import json

    config = folder / ".mcp.json"
    servers = {
        name: {"command": sys.executable, "args": [str(script), str(args.tools)]}
        for name in ("one", "two", "three")
    }
    config.write_text(json.dumps({"mcpServers": servers}))
    lock = ["-r", str(config), "--connect", "--lock-file", str(folder / "toolsel.lock")]
    run([sys.executable, "-m", "toolsel", "lock", *lock], env)
    return min(
        run([sys.executable, "-m", "toolsel", "lock", "--check", *lock], env)
        for _ in range(args.runs)
    )


if __name__ == "__main__":
    main()
