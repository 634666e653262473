"""The deadline of the work in progress, for work whose cost a caller can push up.

`toolsel serve` runs each request under a deadline (`until`); code deep below it, such as
JSON Schema validation, asks `expired()` as it goes and stops cleanly, so one request can
never hold a worker for longer than its time. Outside a deadline nothing expires.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator

_current: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "toolsel_deadline", default=None
)


def current() -> float | None:
    """The `time.monotonic()` by which the current work must end, or None."""
    return _current.get()


def expired() -> bool:
    ends = _current.get()
    return ends is not None and time.monotonic() >= ends


@contextlib.contextmanager
def until(ends: float | None) -> Iterator[None]:
    """Run the block under the deadline `ends` (a `time.monotonic()` value)."""
    token = _current.set(ends)
    try:
        yield
    finally:
        _current.reset(token)
