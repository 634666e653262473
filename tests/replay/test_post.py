"""`replay --post URL`: a folder's calls sent to /v1/usage in bounded batches, retried a
bounded number of times, refused with one line, and never counted twice."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli
from tests.serve.week import expected_calls, write_week
from toolsel.errors import PostError
from toolsel.replay.post import ATTEMPTS, EventPoster
from toolsel.replay.report import ToolEvent

URL = "http://localhost:8765/v1/usage"


def result(number: int, **fields: object) -> ToolEvent:
    values: dict[str, object] = {
        "event": "tool_result", "id": f"c{number}", "tool": "read_file", "parent": None,
        "parent_rule": None, "turn_id": None, "file": "s.jsonl", "line": number, "is_error": False,
        "at": "2026-01-01T00:00:00.000Z",
    }  # fmt: skip
    values.update(fields)
    return ToolEvent(**values)  # type: ignore[arg-type]


class FakeServer:
    """Answers each POST with the next status (200 once they run out), storing every line."""

    def __init__(self, *statuses: int, retry_after: str | None = None) -> None:
        self.statuses = list(statuses)
        self.retry_after = retry_after
        self.bodies: list[list[dict[str, object]]] = []
        self.headers: list[dict[str, str]] = []

    def __call__(
        self, url: str, body: bytes, headers: dict[str, str]
    ) -> tuple[int, bytes, str | None]:
        assert url == URL
        self.headers.append(headers)
        status = self.statuses.pop(0) if self.statuses else 200
        if status == -1:
            raise OSError("[Errno 111] Connection refused")
        if status != 200:
            return (
                status,
                json.dumps({"error": f"no ({status})", "status": status}).encode(),
                self.retry_after,
            )
        lines = [json.loads(line) for line in body.decode().splitlines()]
        self.bodies.append(lines)
        return 200, json.dumps({"schema": "toolsel.usage/v1", "received": len(lines), "stored": len(lines)}).encode(), None  # fmt: skip


def test_batches_are_bounded_in_events_and_in_bytes() -> None:
    server = FakeServer()
    poster = EventPoster(URL, token="", batch_events=3, send=server)
    for number in range(7):
        poster(result(number))
    poster(result(99, event="tool_start"))  # records nothing: not sent
    poster(result(98, copied=True))  # a resumed session's copy: not sent
    done = poster.finish()
    assert [len(body) for body in server.bodies] == [3, 3, 1]
    assert (done.events, done.batches, done.stored, done.retries) == (7, 3, 7, 0)
    assert [line["id"] for body in server.bodies for line in body] == [f"c{n}" for n in range(7)]
    assert server.bodies[0][0]["at"] == "2026-01-01T00:00:00.000Z"
    assert server.headers[0]["Content-Type"] == "application/x-ndjson"
    assert "Authorization" not in server.headers[0]
    small = FakeServer()
    by_size = EventPoster(URL, token="t", batch_bytes=700, send=small)
    for number in range(5):
        by_size(result(number))
    by_size.finish()
    sizes = [len("\n".join(json.dumps(line) for line in body)) for body in small.bodies]
    assert len(small.bodies) > 1 and all(size <= 700 for size in sizes), sizes
    assert small.headers[0]["Authorization"] == "Bearer t"


def test_a_busy_or_unreachable_server_is_tried_again_a_bounded_number_of_times() -> None:
    waits: list[float] = []
    server = FakeServer(503, -1, 429, retry_after="3")
    poster = EventPoster(URL, token="", send=server, sleep=waits.append)
    poster(result(1))
    done = poster.finish()
    assert (done.stored, done.retries) == (1, 3) and waits == [
        3.0,
        1.0,
        3.0,
    ]  # Retry-After, or doubled
    waits.clear()
    down = FakeServer(*[-1] * ATTEMPTS)
    poster = EventPoster(URL, token="", send=down, sleep=waits.append)
    poster(result(1))
    with pytest.raises(PostError) as caught:
        poster.finish()
    assert str(caught.value).startswith(
        f"could not post batch 1 (1 events from s.jsonl:1 on) to {URL} after {ATTEMPTS} tries: "
        "[Errno 111] Connection refused"
    )
    assert waits == [0.5, 1.0, 2.0] and "\n" not in str(caught.value)


def test_a_refused_batch_is_one_line_at_once() -> None:
    waits: list[float] = []
    poster = EventPoster(URL, token="", send=FakeServer(422), sleep=waits.append)
    poster(result(1, line=7))
    with pytest.raises(PostError) as caught:
        poster.finish()
    assert (
        str(caught.value)
        == f"{URL} refused batch 1 (1 events from s.jsonl:7 on): HTTP 422: no (422)"
    )
    assert waits == []  # a refusal is not retried
    wrong = EventPoster(URL, token="", send=lambda *_: (200, b"<html>hello</html>", None))
    wrong(result(1))
    with pytest.raises(PostError, match=r"not a toolsel\.usage document: <html>hello</html>"):
        wrong.finish()


@pytest.fixture
def served(store_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """`toolsel serve`'s app, in-process, answering the posts the CLI makes."""
    pytest.importorskip("fastapi")
    from tests.serve.conftest import local_client
    from toolsel.serve.http import create_app
    from toolsel.serve.service import Service
    from toolsel.serve.store import open_store

    service = Service([ROOT / "registries"], open_store(store_url))
    client = local_client(create_app(service), raise_server_exceptions=False)

    def send(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes, str | None]:
        assert url.startswith("http://localhost:8765/")
        answer = client.post(
            url.removeprefix("http://localhost:8765"), content=body, headers=headers
        )
        return answer.status_code, answer.content, answer.headers.get("Retry-After")

    monkeypatch.setattr("toolsel.replay.post.http_post", send)
    import logging

    for name in ("toolsel.serve", "toolsel.serve.access"):  # not an earlier test's handler,
        monkeypatch.setattr(logging.getLogger(name), "handlers", [])  # on a stream now closed
    yield client
    service.close()


@pytest.fixture(params=["sqlite"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'usage.sqlite3'}"


def test_posting_a_folder_twice_counts_each_call_once(
    served: object, cli: Cli, tmp_path: Path
) -> None:
    write_week(tmp_path / "week")
    calls = sum(expected_calls().values())
    first = cli("replay", "--no-registry", str(tmp_path / "week"), "--post", URL)
    assert first.exit_code == 0
    assert first.stderr == (
        f"toolsel: posted {calls} calls to {URL} in 1 batch: {calls} stored, 0 already there\n"
    )
    again = cli("replay", "--no-registry", "-f", "jsonl", str(tmp_path / "week"), "--post", URL, "--jobs", "2")  # fmt: skip
    assert again.exit_code == 0 and again.stdout.count("\n") > calls  # the events, as ever
    assert again.stderr.endswith(f": 0 stored, {calls} already there\n")
    tools = served.get("/v1/analytics", params={"since": "all"}).json()["tools"]  # type: ignore[attr-defined]
    assert {name: tool["calls"] for name, tool in tools.items()} == expected_calls()


def test_a_bad_url_or_a_refusal_is_one_line(served: object, cli: Cli, tmp_path: Path) -> None:
    write_week(tmp_path / "week")
    bad = cli("replay", "--no-registry", str(tmp_path / "week"), "--post", "localhost:8765")
    assert bad.exit_code == 2 and bad.stderr.startswith(
        "toolsel: error: --post: expected an http:// or https:// URL, got 'localhost:8765'"
    )
    wrong = cli("replay", "--no-registry", str(tmp_path / "week"), "--post", URL.replace("usage", "rank"))  # fmt: skip
    assert wrong.exit_code == 2 and wrong.stderr.count("\n") == 1
    assert "refused batch 1" in wrong.stderr and "HTTP 415" in wrong.stderr


def test_a_refusal_mid_run_stops_it_with_one_line(
    served: object, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_week(tmp_path / "week")
    monkeypatch.setattr("toolsel.replay.post.BATCH_EVENTS", 4)
    sent: list[int] = []
    real = __import__("toolsel.replay.post").replay.post.http_post

    def refuse_the_third(
        url: str, body: bytes, headers: dict[str, str]
    ) -> tuple[int, bytes, str | None]:
        sent.append(body.count(b"\n"))
        if len(sent) == 3:
            return (
                422,
                b'{"error": "record 1: `tool` contains a NUL character", "status": 422}',
                None,
            )
        return real(url, body, headers)

    monkeypatch.setattr("toolsel.replay.post.http_post", refuse_the_third)
    run = cli("replay", "--no-registry", str(tmp_path / "week"), "--post", URL)
    assert run.exit_code == 2 and sent == [4, 4, 4]  # stopped at the refused batch
    assert run.stderr == (
        f"toolsel: error: {URL} refused batch 3 (4 events from {tmp_path / 'week' / 'day-2.jsonl'}:8 on): "
        "HTTP 422: record 1: `tool` contains a NUL character\n"
    )
    monkeypatch.setattr("toolsel.replay.post.http_post", real)
    # run again: the two batches stored before the refusal are not stored twice
    done = cli("replay", "--no-registry", str(tmp_path / "week"), "--post", URL)
    calls = sum(expected_calls().values())
    assert done.exit_code == 0 and done.stderr.endswith(f": {calls - 8} stored, 8 already there\n")
