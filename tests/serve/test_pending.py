"""A value made once on a thread of its own, or by the first to ask; and a service that
answers before its ranking index is made."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT
from toolsel.serve.pending import Pending


def test_a_value_is_made_once_whoever_asks_first() -> None:
    made: list[str] = []
    inline = Pending(lambda: made.append(threading.current_thread().name) or 7)
    assert not inline.done and inline.get() == 7 and inline.get() == 7
    assert made == [threading.current_thread().name]  # nobody started it: made by `get`
    made.clear()
    started = Pending(lambda: made.append(threading.current_thread().name) or 8)
    started.start("maker")
    started.start("maker again")  # once only
    assert started.get() == 8 and made == ["maker"]


def test_get_waits_until_its_deadline_and_raises_what_making_raised() -> None:
    release = threading.Event()
    slow = Pending(lambda: release.wait(10) and 1)
    slow.start("slow")
    began = time.monotonic()
    with pytest.raises(TimeoutError):
        slow.get(time.monotonic() + 0.2)
    assert 0.15 <= time.monotonic() - began < 5 and not slow.done
    release.set()
    assert slow.get() == 1 and slow.error is None

    def fail() -> int:
        raise ValueError("bad bytes")

    broken = Pending(fail)
    broken.start("broken")
    for _ in range(2):  # every caller gets the error
        with pytest.raises(ValueError, match="bad bytes"):
            broken.get()
    assert isinstance(broken.error, ValueError)


def test_a_service_answers_before_its_index_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolsel.ranking.store import RegistryRead
    from toolsel.serve.models import RankRequest
    from toolsel.serve.service import Service
    from toolsel.serve.values import RequestError, read

    release = threading.Event()
    made = RegistryRead.prepared_index

    def slow(self: RegistryRead, *, bulk: bool = True) -> object:
        release.wait(10)
        return made(self, bulk=bulk)

    monkeypatch.setattr(RegistryRead, "prepared_index", slow)
    service = Service([ROOT / "registries"], None, defer_index=True)  # returns at once
    ready, body = service.ready()
    assert not ready and (body["index_ready"], body["tools"]) == (False, 43)
    service.warm()
    from toolsel.deadline import until

    with until(time.monotonic() + 0.2), pytest.raises(RequestError) as caught:
        service.rank(read(RankRequest, {"query": "deploy"}))
    assert (caught.value.status, caught.value.reason) == (503, "starting")
    release.set()
    assert service.rank(read(RankRequest, {"query": "deploy the billing service"}))["results"]
    assert service.ready()[0] and service.ready()[1]["index_ready"]
    service.close()


def test_an_index_that_cannot_be_made_is_a_503_and_shown_at_readyz(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolsel.ranking.store import RegistryRead
    from toolsel.serve.models import RankRequest, SelectRequest
    from toolsel.serve.service import Service
    from toolsel.serve.values import RequestError, read

    def broken(self: RegistryRead, *, bulk: bool = True) -> object:
        raise MemoryError("no room")

    monkeypatch.setattr(RegistryRead, "prepared_index", broken)
    service = Service([ROOT / "registries"], None, defer_index=True)
    with pytest.raises(RequestError) as caught:
        service.rank(read(RankRequest, {"query": "deploy"}))
    assert caught.value.status == 503
    assert str(caught.value) == "the ranking index could not be built: MemoryError: no room"
    ready, body = service.ready()
    assert not ready and body["last_reload_error"] == str(caught.value)
    selected = service.select(read(SelectRequest, {"names": ["read_file"]}))
    assert selected["matches"] == ["read_file"]  # a lookup needs no index
    service.close()


def test_embeddings_that_cannot_be_warmed_never_take_the_index_down(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    from toolsel.ranking.prepared import PreparedIndex
    from toolsel.serve.models import RankRequest
    from toolsel.serve.service import Service
    from toolsel.serve.values import read

    def offline(self: PreparedIndex, *args: object, **kwargs: object) -> object:
        raise OSError("no network to fetch the model")

    monkeypatch.setattr(PreparedIndex, "tool_vectors", offline)
    service = Service([ROOT / "registries"], None, warm_embeddings=True, defer_index=True)
    with caplog.at_level(logging.WARNING, logger="toolsel.serve"):
        service.warm()
        ranked = service.rank(read(RankRequest, {"query": "deploy", "method": "hybrid"}))
    assert ranked["results"] and service.ready()[0]
    assert [r.getMessage() for r in caplog.records] == [
        "embeddings not warmed: OSError: no network to fetch the model"
    ]
    service.close()
