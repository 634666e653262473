"""How long a live MCP server is given: apart from `fetch`, so that every command can set
them (`toolsel.live.LiveSettings`) without importing the client."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Timeouts:
    connect: float = 30.0  # start (or reach) the server and `initialize`
    list: float = 30.0  # every page of `tools/list`
