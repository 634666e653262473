"""The work pool: work runs off the event loop, a full queue answers 503 at once, a request
past its deadline answers 503, and the work is told its deadline."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.serve.conftest import local_client
from toolsel import deadline
from toolsel.serve.http import create_app
from toolsel.serve.service import Service
from toolsel.serve.values import RequestError
from toolsel.serve.work import WorkPool


def test_a_full_pool_refuses_at_once_and_recovers() -> None:
    release = threading.Event()

    async def scenario() -> None:
        pool = WorkPool(workers=1, queue=1, timeout=10)
        first = asyncio.ensure_future(pool.run(release.wait))
        second = asyncio.ensure_future(pool.run(release.wait))  # queued
        await asyncio.sleep(0.05)
        assert pool.pending == 2
        with pytest.raises(RequestError, match="server busy") as refused:
            await pool.run(lambda: None)
        assert refused.value.status == 503
        release.set()
        assert await first and await second
        assert pool.pending == 0
        assert await pool.run(lambda: 7) == 7
        pool.close()

    asyncio.run(scenario())


def test_a_request_past_its_deadline_is_answered_and_its_work_told() -> None:
    seen: list[float | None] = []

    def slow() -> None:
        seen.append(deadline.current())
        while not deadline.expired():
            time.sleep(0.01)
        # then overrun it, as slow work does: had `slow` returned right at the deadline, its
        # result could race the request's own timeout (it did, once in a CI run)
        time.sleep(0.5)

    async def scenario() -> None:
        pool = WorkPool(workers=1, queue=0, timeout=0.2)
        started = time.monotonic()
        with pytest.raises(RequestError, match=r"not answered within 0\.2 s") as late:
            await pool.run(slow)
        assert late.value.status == 503
        pool.close()  # returns: the work saw its deadline and stopped
        # the deadline the work saw is the request's: 0.2 s after it was queued (loose on a
        # loaded machine, where the queueing itself may take a while)
        assert seen[0] is not None and started + 0.2 <= seen[0] <= started + 2.2

    asyncio.run(scenario())
    assert deadline.current() is None  # nothing leaks outside a request


def test_work_queued_past_its_deadline_never_starts() -> None:
    ran: list[str] = []
    release = threading.Event()

    async def scenario() -> None:
        pool = WorkPool(workers=1, queue=1, timeout=0.1)
        blocker = asyncio.ensure_future(pool.run(release.wait))
        await asyncio.sleep(0.02)
        with pytest.raises(RequestError):
            await pool.run(lambda: ran.append("late"))
        release.set()
        with pytest.raises(RequestError):
            await blocker  # the blocker itself outlived its deadline
        pool.close()

    asyncio.run(scenario())
    assert ran == []


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    from toolsel.serve.store import open_store

    running = Service([ROOT / "registries"], open_store(f"sqlite:///{tmp_path / 'u.sqlite3'}"))
    yield running
    running.close()


def test_health_is_answered_while_every_worker_is_busy(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    original = service.rank

    def stuck_rank(body: Any) -> Any:
        release.wait(10)
        return original(body)

    monkeypatch.setattr(service, "rank", stuck_rank)
    pool = WorkPool(workers=1, queue=0, timeout=10)
    client = local_client(create_app(service, pool=pool), raise_server_exceptions=False)
    answers: list[int] = []
    caller = threading.Thread(
        target=lambda: answers.append(client.post("/v1/rank", json={"query": "x"}).status_code)
    )
    caller.start()
    for _ in range(200):
        if pool.pending:
            break
        time.sleep(0.01)
    assert client.get("/healthz").json() == {"ok": True}
    busy = client.post("/v1/usage", json={"tool": "t", "ok": True})
    assert busy.status_code == 503 and busy.headers["retry-after"] == "1"
    assert client.get("/readyz").status_code == 503  # not ready to take more work
    release.set()
    caller.join(10)
    assert answers == [200]
    assert client.get("/readyz").status_code == 200
    pool.close()
