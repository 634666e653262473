"""Where `toolsel serve` does its work: a bounded pool of threads, off the event loop, so
`/healthz` and other connections stay answered while ranking or a store query runs.

A full pool and queue refuse at once (503, `Retry-After`). A request past its deadline is
answered 503, and its work is told the deadline (`toolsel.deadline`). Abandoned work
counts against the queue until it ends, so refused clients cannot pile more on. Workers
are daemon threads, so a request still running after the drain cannot keep the process up.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from queue import Empty, SimpleQueue
from typing import Any, TypeVar

from toolsel.serve.limits import QUEUE, REQUEST_TIMEOUT, WORKERS
from toolsel.serve.values import RequestError

T = TypeVar("T")


class WorkPool:
    """`timeout` is named `deadline` in answers past it, which carry `reason` (if any)."""

    def __init__(
        self,
        workers: int = WORKERS,
        queue: int = QUEUE,
        timeout: float = REQUEST_TIMEOUT,
        *,
        deadline: str = "--request-timeout",
        reason: str | None = None,
    ) -> None:
        self.workers = workers
        self.limit = workers + queue
        self.timeout = timeout
        self.deadline = deadline
        self.reason = reason
        self._jobs: SimpleQueue[tuple[Future[Any], float, Callable[..., Any], Any] | None]
        self._jobs = SimpleQueue()
        self._lock = threading.Lock()
        self._pending = 0
        self._closed = False
        self._threads = [
            threading.Thread(target=self._work, name=f"toolsel-work-{n}", daemon=True)
            for n in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    @property
    def pending(self) -> int:
        """Requests running or queued (including those whose client gave up)."""
        return self._pending

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """`function(*args)` on a worker thread, within the deadline."""
        with self._lock:
            if self._closed:
                raise RequestError("server shutting down", 503)
            if self._pending >= self.limit:
                raise RequestError(
                    f"server busy: {self._pending} requests running or queued; retry shortly",
                    503,
                )
            self._pending += 1
        ends = time.monotonic() + self.timeout
        future: Future[T] = Future()
        future.add_done_callback(self._release)
        self._jobs.put((future, ends, function, args))
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), self.timeout)
        except TimeoutError:
            future.cancel()  # if it is still queued, it never starts
            raise self._late(f"request not answered within {self.timeout:g} s") from None

    def _work(self) -> None:
        from toolsel.deadline import until

        while (job := self._jobs.get()) is not None:
            future, ends, function, args = job
            if not future.set_running_or_notify_cancel():
                continue  # its client gave up while it was queued
            if time.monotonic() >= ends:
                future.set_exception(self._late("request waited past its deadline in the queue"))
                continue
            try:
                with until(ends):
                    result = function(*args)
            except BaseException as error:
                future.set_exception(error)
            else:
                future.set_result(result)

    def _late(self, message: str) -> RequestError:
        return RequestError(f"{message} ({self.deadline})", 503, reason=self.reason)

    def _release(self, _: object = None) -> None:
        with self._lock:
            self._pending -= 1

    def close(self, wait: float = 5.0) -> None:
        """Refuse new work, drop what is queued, and give what runs `wait` seconds."""
        with self._lock:
            self._closed = True
        while True:  # queued jobs never start
            try:
                job = self._jobs.get_nowait()
            except Empty:
                break
            if job is not None:
                job[0].cancel()
        for _ in self._threads:
            self._jobs.put(None)
        ends = time.monotonic() + wait
        for thread in self._threads:
            thread.join(max(0.0, ends - time.monotonic()))
