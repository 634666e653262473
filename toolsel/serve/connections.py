"""Connections of `toolsel serve`, bounded before any request reaches the application.

uvicorn keeps a socket that never sends a request open for ever, and accepts connections
until `accept()` fails with EMFILE (a traceback each time). Here a connection must send a
request's headers within `--header-timeout` (of opening, or of its last response); at most
`--max-connections` are open, the longest idle one closed to make room (or the new one
refused when none is idle), logged once per interval with counts; and the open-file limit
is raised to its hard limit at start, so the cap, not the kernel, decides.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("toolsel.serve")

#: Seconds between two log lines about refused or dropped connections.
LOG_EVERY = 10.0


class ConnectionNotes:
    """Counts refused and dropped connections and logs them at most once per interval."""

    def __init__(self) -> None:
        self.counts = dict.fromkeys(("refused", "evicted", "timed_out"), 0)
        self._logged = 0.0

    def note(self, what: str, open_now: int, limit: int) -> None:
        self.counts[what] += 1
        now = time.monotonic()
        if now - self._logged >= LOG_EVERY:
            self._logged = now
            log.warning(
                "connections: %s open (limit %s); so far %s refused at the limit, %s idle "
                "closed to make room, %s closed for not sending a request within the header "
                "timeout",
                open_now,
                limit,
                *self.counts.values(),
            )


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the limits above; `guarded_protocol` sets them."""

    max_connections: int
    header_timeout: float
    notes: ConnectionNotes
    _waiting_since: float = 0.0
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        if len(self.connections) >= self.max_connections and not self._evict_idle():
            self.notes.note("refused", len(self.connections), self.max_connections)
            transport.abort()
            return
        super().connection_made(transport)
        self._wait_for_request()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        if self.transport is None:  # refused in connection_made
            return
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.cycle is not None and not self.cycle.response_complete:
            self._cancel_header_timer()  # a request is in; the deadline is the app's

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._wait_for_request()

    def _wait_for_request(self) -> None:
        self._cancel_header_timer()
        self._waiting_since = time.monotonic()
        self._header_timer = self.loop.call_later(self.header_timeout, self._header_timed_out)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_timed_out(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.notes.note("timed_out", len(self.connections), self.max_connections)
            self.transport.close()

    def _evict_idle(self) -> bool:
        idle: list[Any] = [
            c for c in self.connections if getattr(c, "_header_timer", None) is not None
        ]
        if not idle:
            return False
        oldest = min(idle, key=lambda c: c._waiting_since)
        oldest._cancel_header_timer()
        oldest.transport.abort()
        oldest.connections.discard(oldest)
        self.notes.note("evicted", len(self.connections), self.max_connections)
        return True


def guarded_protocol(max_connections: int, header_timeout: float) -> type[H11Protocol]:
    """`GuardedH11Protocol` with these limits, for `uvicorn.Config(http=...)`."""
    limits = {
        "max_connections": max_connections,
        "header_timeout": header_timeout,
        "notes": ConnectionNotes(),
    }
    return type("GuardedH11Protocol", (GuardedH11Protocol,), limits)


def raise_open_file_limit() -> int:
    """Raise the soft limit on open files to the hard limit; the soft limit now in force."""
    try:
        import resource
    except ImportError:  # not POSIX
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return int(soft)


def quiet_loop_errors(loop: asyncio.AbstractEventLoop) -> None:
    """Log the event loop's own errors (an `accept()` that ran out of descriptors, a reset
    socket) as one line each, at most once per interval, instead of a traceback each."""
    last = {"at": 0.0, "skipped": 0}

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        now = time.monotonic()
        if now - last["at"] < LOG_EVERY:
            last["skipped"] += 1
            return
        error = context.get("exception")
        reason = f": {type(error).__name__}: {error}" if error is not None else ""
        skipped = f" ({last['skipped']} more since the last note)" if last["skipped"] else ""
        log.warning("event loop: %s%s%s", context.get("message", "error"), reason, skipped)
        last["at"], last["skipped"] = now, 0

    loop.set_exception_handler(handler)
