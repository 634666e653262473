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
