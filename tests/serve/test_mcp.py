"""The MCP server through the SDK's own client, over stdio, as a real MCP client runs it."""

from __future__ import annotations

import json
import sys

import anyio
import pytest

from tests.conftest import ROOT

pytest.importorskip("mcp", reason="needs the serve extra")


async def _session_calls() -> dict[str, object]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolsel", "mcp", "-r", str(ROOT / "registries")],
    )
    out: dict[str, object] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        out["tools"] = sorted(t.name for t in listed.tools)
        for name, arguments in (
            ("search_tools", {"query": "roll back the bad release", "top": 3}),
            ("select_tools", {"names": ["read_file", "ghost"]}),
            ("validate_call", {"tool": "read_file", "input": {"path": 7}}),
        ):
            result = await session.call_tool(name, arguments)
            out[name] = result.structured_content or json.loads(result.content[0].text)  # type: ignore[union-attr]
        templates = await session.list_resource_templates()
        out["templates"] = [t.uri_template for t in templates.resource_templates]
        resource = await session.read_resource("toolsel://tools/patch_file")
        out["resource"] = json.loads(resource.contents[0].text)  # type: ignore[union-attr]
        try:
            await session.read_resource("toolsel://tools/patch_fil")
        except Exception as error:  # the SDK raises its MCPError with the server's reason
            out["missing"] = (getattr(getattr(error, "error", None), "code", None), str(error))
    return out


def test_mcp_server_over_stdio_with_the_sdk_client() -> None:
    out = anyio.run(_session_calls)
    assert out["tools"] == ["search_tools", "select_tools", "validate_call"]
    search = out["search_tools"]
    assert isinstance(search, dict)
    assert search["tools"][0]["name"] == "rollback_deployment" and len(search["tools"]) <= 3
    assert set(search["tools"][0]) == {"name", "description", "inputSchema"}
    select = out["select_tools"]
    assert isinstance(select, dict)
    assert [t["name"] for t in select["tools"]] == ["read_file"] and select["not_found"] == [
        "ghost"
    ]
    validate = out["validate_call"]
    assert isinstance(validate, dict) and validate["ok"] is False
    assert validate["violations"][0]["rule"] == "invalid-input"
    assert out["templates"] == ["toolsel://tools/{name}"]
    resource = out["resource"]
    assert isinstance(resource, dict) and resource["name"] == "patch_file"
    assert "inputSchema" in resource
    code, reason = out["missing"]  # type: ignore[misc]
    assert code == -32602 and "did you mean 'patch_file'" in reason


def test_mcp_stdio_answers_lines_it_cannot_read() -> None:
    """JSON-RPC 2.0: a parse error or an invalid request gets an error reply with id null,
    and the session goes on."""
    import subprocess

    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        "{not json",
        {"no": "jsonrpc"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]  # fmt: skip
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    replies = []
    with subprocess.Popen(
        [sys.executable, "-m", "toolsel", "mcp", "-r", str(ROOT / "registries")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    ) as process:  # fmt: skip
        assert process.stdin and process.stdout and process.stderr
        process.stdin.write(text)
        process.stdin.flush()  # and keep stdin open, as a client does, until the last answer
        while not any(r.get("id") == 2 for r in replies):
            line = process.stdout.readline()
            if not line:
                break
            replies.append(json.loads(line))
        process.stdin.close()
        process.wait(60)
        stderr = process.stderr.read()
    errors = [r["error"]["code"] for r in replies if "error" in r and r["id"] is None]
    assert errors == [-32700, -32600], replies
    assert any(r.get("id") == 2 and r["result"]["tools"] for r in replies)
    assert "Traceback" not in stderr


def test_mcp_over_streamable_http_behind_the_token(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`toolsel serve --mcp`: the same tools at /mcp, with the SDK's streamable HTTP client."""
    import os
    import signal
    import socket
    import subprocess
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "toolsel", "serve", "-r", str(ROOT / "registries"), "--mcp",
         "--port", str(port), "--db", f"sqlite:///{tmp_path / 'u.db'}", "--token", "t0ken", "--no-embed"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={**os.environ, "TOOLSEL_CACHE_DIR": str(tmp_path / "cache")},
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(url + "/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.05)

        async def calls() -> tuple[list[str], object]:
            import httpx
            from mcp.client.session import ClientSession
            from mcp.client.streamable_http import streamable_http_client

            headers = {"Authorization": "Bearer t0ken"}
            async with (
                httpx.AsyncClient(headers=headers, timeout=30) as http,
                streamable_http_client(url + "/mcp", http_client=http) as streams,
                ClientSession(streams[0], streams[1]) as session,
            ):
                await session.initialize()
                names = sorted(t.name for t in (await session.list_tools()).tools)
                found = await session.call_tool("search_tools", {"query": "read a file", "top": 2})
                return names, found.structured_content

        names, found = anyio.run(calls)
        assert names == ["search_tools", "select_tools", "validate_call"]
        assert isinstance(found, dict) and found["tools"][0]["name"] == "read_file"
        # without the token, /mcp is refused like every other route
        request = urllib.request.Request(url + "/mcp", data=b"{}", method="POST")
        try:
            urllib.request.urlopen(request, timeout=5)
            raise AssertionError("expected 401")
        except urllib.error.HTTPError as error:
            assert error.code == 401
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)
