"""Analytics stay bounded whatever a client recorded: on a store poisoned with 200,000
distinct tool names (SQLite and PostgreSQL), an answer lists the most-called tools and one
`other` row, reads a few hundred rows and takes about a second; past its budget it is a 503
that says so; and `/v1/rank`, which never reads usage, answers 200 while analytics are slow
or failing."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.serve.conftest import POISON, fresh_postgres, local_client, poison
from toolsel.serve import store as store_module
from toolsel.serve.analytics import OVER_BUDGET
from toolsel.serve.compat import OTHER
from toolsel.serve.http import create_app
from toolsel.serve.limits import ANALYTICS_TOOLS
from toolsel.serve.models import AnalyticsQuery
from toolsel.serve.service import Service
from toolsel.serve.store import StoreUnavailable, open_store

#: Yesterday: inside the default window (the last 7 days).
DAY = (datetime.now(UTC) - timedelta(days=1)).strftime("%Y-%m-%d")
#: Registry tools recorded beside the poison: one called most, one lost among the others.
REAL = {"read_file": 1000, "run_tests": 1}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def poisoned(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Service]:
    """One poisoned store per engine for the module: its tests only read it."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('poisoned') / 'usage.sqlite3'}"
    else:
        url = fresh_postgres()
    running = Service([ROOT / "registries"], open_store(url))
    poison(url, DAY)
    assert running.store is not None
    running.store.record(
        [
            store_module.UsageRecord(tool, True, f"{DAY}T06:00:00.000Z")
            for tool, calls in REAL.items()
            for _ in range(calls)
        ]
    )
    yield running
    running.close()


@pytest.fixture
def fetched(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many rows each statement hands back, on either engine."""
    counts: list[int] = []
    from toolsel.serve.store.postgres import PgExecutor
    from toolsel.serve.store.sqlite import SqliteExecutor

    for executor in (SqliteExecutor, PgExecutor):
        original = executor.run

        def run(self: Any, sql: str, params: Any = (), original: Any = original) -> Any:
            rows = original(self, sql, params)
            counts.append(len(rows))
            return rows

        monkeypatch.setattr(executor, "run", run)
    return counts


def expected_split() -> tuple[list[tuple[str, int]], dict[str, Any]]:
    """The top tools (name, calls) and `other`, computed here from how the store was filled."""
    rows = [(f"p{i}", 1 + i % 7, i % 2, float(i % 100)) for i in range(POISON)]
    rows += [(tool, calls, 0, None) for tool, calls in REAL.items()]  # type: ignore[misc]
    rows.sort(key=lambda row: (-row[1], row[0]))
    others = rows[ANALYTICS_TOOLS:]
    calls, errors = sum(row[1] for row in others), sum(row[2] for row in others)
    latencies = [row[3] for row in others if row[3] is not None]
    other = {
        "tools": len(others),
        "calls": calls,
        "errors": errors,
        "error_rate": round(errors / calls, 4),
        "mean_latency_s": round(sum(latencies) / len(latencies) / 1000.0, 6),
    }
    return [(row[0], row[1]) for row in rows[:ANALYTICS_TOOLS]], other


def test_analytics_list_the_top_tools_and_sum_the_others(
    poisoned: Service, fetched: list[int]
) -> None:
    started = time.monotonic()
    payload = poisoned.analytics(AnalyticsQuery())
    elapsed = time.monotonic() - started
    top, other = expected_split()
    assert [(name, t["calls"]) for name, t in payload["tools"].items()] == top
    assert payload["other"] == other
    assert f"{other['tools']} less-called tools" in payload["notes"][0]
    # run_tests is summed in `other`, not never called; deploy_service was never called
    assert "run_tests" not in payload["never_called"]
    assert "deploy_service" in payload["never_called"]
    assert sum(fetched) < 4 * ANALYTICS_TOOLS  # the database picked them: no row per name
    assert elapsed < 10, elapsed  # about 1 s here; 18-20 s when every name was read
    assert poisoned.analytics(AnalyticsQuery(since="all"))["other"] == other


def test_a_poisoned_session_is_bounded_too(poisoned: Service, fetched: list[int]) -> None:
    payload = poisoned.analytics(AnalyticsQuery(session="big"))
    assert len(payload["tools"]) == ANALYTICS_TOOLS and payload["transcripts"] == 1
    assert payload["other"]["tools"] == POISON - ANALYTICS_TOOLS
    assert payload["other"]["calls"] == POISON - ANALYTICS_TOOLS
    assert sum(fetched) < 4 * ANALYTICS_TOOLS


def test_the_reference_analytics_end_with_one_other_row(poisoned: Service) -> None:
    client = local_client(create_app(poisoned))
    report = client.get("/agent/analytics").json()
    top, other = expected_split()
    assert [(row["tool"], row["calls"]) for row in report[:-1]] == top
    assert report[-1]["tool"] == OTHER
    assert (report[-1]["tools"], report[-1]["calls"]) == (other["tools"], other["calls"])


def test_past_its_budget_a_poisoned_read_is_a_503_that_says_so(poisoned: Service) -> None:
    client = local_client(create_app(poisoned, analytics_budget=0.05))
    started = time.monotonic()
    answer = client.get("/v1/analytics")
    assert answer.status_code == 503, answer.text
    assert answer.json()["reason"] == OVER_BUDGET
    assert time.monotonic() - started < 5


def test_a_read_past_its_deadline_stops_in_the_database(poisoned: Service) -> None:
    """The store is told the budget: the read itself stops, so the worker is free again."""
    from toolsel.deadline import until
    from toolsel.serve.store import StoreTimeout, Window

    assert poisoned.store is not None
    started = time.monotonic()
    with until(started + 0.05), pytest.raises(StoreTimeout):
        poisoned.store.top_totals(Window(), ANALYTICS_TOOLS)
    assert time.monotonic() - started < 2
    assert poisoned.store.top_totals(Window(), 1).rest.tools  # the connection still reads


@pytest.fixture
def service(store_url: str) -> Iterator[Service]:
    running = Service([ROOT / "registries"], open_store(store_url))
    yield running
    running.close()


QUERY = {"query": "roll back the bad release", "top": 3}


def test_rank_answers_from_the_registry_while_analytics_are_slow(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolsel.serve.work import WorkPool

    release, entered = threading.Event(), threading.Event()

    def slow(*args: object) -> Any:
        entered.set()
        release.wait(10)
        raise StoreUnavailable("too late")

    assert service.store is not None
    pool = WorkPool(workers=1, queue=0, timeout=5)  # one worker: analytics on it would block
    client = local_client(
        create_app(service, pool=pool, analytics_budget=0.3), raise_server_exceptions=False
    )
    ranked = client.post("/v1/rank", json=QUERY).json()
    monkeypatch.setattr(service.store, "top_totals", slow)
    monkeypatch.setattr(service.store, "top_summary", slow)
    answers: list[Any] = []
    callers = [
        threading.Thread(target=lambda path=path: answers.append(client.get(path)))
        for path in ("/v1/analytics", "/agent/analytics", "/v1/analytics")
    ]
    try:
        for caller in callers:
            caller.start()
        assert entered.wait(5)
        started = time.monotonic()
        answer = client.post("/v1/rank", json=QUERY)
        assert answer.status_code == 200 and answer.json() == ranked
        assert time.monotonic() - started < 2
        for caller in callers:
            caller.join(5)
        # each analytics request answered within its budget, never left hanging
        assert [a.status_code for a in answers] == [503, 503, 503]
        assert {a.json().get("reason") for a in answers} == {OVER_BUDGET}
    finally:
        release.set()
        pool.close()


@pytest.mark.parametrize("failure", [StoreUnavailable("the store is gone"), RuntimeError("bug")])
def test_rank_answers_from_the_registry_while_analytics_fail(
    service: Service, monkeypatch: pytest.MonkeyPatch, failure: Exception
) -> None:
    def failing(*args: object) -> Any:
        raise failure

    client = local_client(create_app(service), raise_server_exceptions=False)
    ranked = client.post("/v1/rank", json=QUERY).json()
    assert service.store is not None
    monkeypatch.setattr(service.store, "top_totals", failing)
    monkeypatch.setattr(service.store, "top_summary", failing)
    status = 503 if isinstance(failure, StoreUnavailable) else 500
    assert client.get("/v1/analytics").status_code == status
    assert client.get("/agent/analytics").status_code == status
    answer = client.post("/v1/rank", json=QUERY)
    assert answer.status_code == 200 and answer.json() == ranked
