"""What the usage store keeps of each call, and which of them a query reads."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class UsageRecord:
    """How one call went."""

    tool: str
    ok: bool
    at: str  # ISO 8601, UTC
    latency_ms: float | None = None
    session: str | None = None
    error: str | None = None
    id: str | None = None  # idempotency key: a second record with the same id is ignored


@dataclass(frozen=True, slots=True)
class Window:
    """Which records a query reads: `since <= at < until`, one session or all."""

    since: str | None = None
    until: str | None = None
    session: str | None = None
