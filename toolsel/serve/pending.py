"""A value that takes a while to make (a registry's ranking index), made once: on a thread
of its own once `start` is called, or by the first caller of `get` if none was started.
`toolsel serve` and `toolsel mcp` answer `/healthz` and `initialize` while it is made."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Pending(Generic[T]):
    """`make()`, made once; `get` waits for it and raises what making it raised."""

    def __init__(self, make: Callable[[], T]) -> None:
        self._make: Callable[[], T] | None = make
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._value: T | None = None
        self._error: BaseException | None = None
        self._claimed = False

    def start(self, name: str) -> None:
        """Make it on a daemon thread named `name` (nothing, if it is made or being made)."""
        if self._claim():
            threading.Thread(target=self._run, name=name, daemon=True).start()

    def get(self, until: float | None = None) -> T:
        """The value; made here if nobody started it. Waits at most until `until` (a
        `time.monotonic()` value): TimeoutError past it."""
        if self._claim():
            self._run()
        while not self._done.wait(0.05 if until is not None else None):
            if until is not None and time.monotonic() >= until:
                raise TimeoutError("still being made")
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]

    @property
    def done(self) -> bool:
        return self._done.is_set()

    @property
    def error(self) -> BaseException | None:
        """What making it raised (once done), else None."""
        return self._error if self._done.is_set() else None

    def _claim(self) -> bool:
        with self._lock:
            claimed, self._claimed = self._claimed, True
        return not claimed

    def _run(self) -> None:
        make, self._make = self._make, None
        try:
            assert make is not None
            self._value = make()
        except BaseException as error:  # kept, and raised to every caller of `get`
            self._error = error
        finally:
            self._done.set()
