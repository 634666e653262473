"""Importing transcripts: `replay --format jsonl` posted to /v1/usage whole, each call at its
own time, and never counted twice."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import ROOT, Cli
from tests.serve.conftest import local_client
from tests.serve.week import DAYS, day_calls, expected_calls, stamp, write_week
from toolsel.serve.http import create_app
from toolsel.serve.service import Service
from toolsel.serve.store import open_store

NDJSON = {"Content-Type": "application/x-ndjson"}


@pytest.fixture
def client(store_url: str) -> Iterator[TestClient]:
    service = Service([ROOT / "registries"], open_store(store_url))
    yield local_client(create_app(service), raise_server_exceptions=False)
    service.close()


def replay_lines(cli: Cli, folder: Path) -> str:
    return cli("replay", "--no-registry", "-f", "jsonl", str(folder)).stdout


def events(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def test_a_replay_stream_is_taken_whole_and_counted_once(
    client: TestClient, cli: Cli, tmp_path: Path
) -> None:
    write_week(tmp_path / "week")
    stream = events(replay_lines(cli, tmp_path / "week"))
    starts = [e for e in stream if e["event"] == "tool_start"]
    copies = [e for e in stream if e["copied"]]
    assert starts and copies  # the stream holds what must be taken and not recorded
    answer = client.post("/v1/usage", json=stream)
    assert answer.status_code == 200, answer.text
    calls = sum(expected_calls().values())
    assert answer.json() == {"schema": "toolsel.usage/v1", "received": len(stream), "stored": calls}
    assert client.post("/v1/usage", json=stream).json()["stored"] == 0
    tools = client.get("/v1/analytics", params={"since": "all"}).json()["tools"]
    assert {name: tool["calls"] for name, tool in tools.items()} == expected_calls()
    assert tools["run_tests"]["errors"] == sum(1 for day in range(DAYS) if day % 2 == 0)
    assert tools["read_file"]["median_latency_s"] == pytest.approx(2.0, rel=0.02)  # a sketch


def test_the_same_calls_read_from_elsewhere_are_not_stored_again(
    client: TestClient, cli: Cli, tmp_path: Path
) -> None:
    write_week(tmp_path / "week")
    first = client.post("/v1/usage", content=replay_lines(cli, tmp_path / "week"), headers=NDJSON)
    assert first.status_code == 200 and first.json()["stored"] == sum(expected_calls().values())
    shutil.copytree(tmp_path / "week", tmp_path / "moved")  # the archive moved, or a backup
    again = client.post("/v1/usage", content=replay_lines(cli, tmp_path / "moved"), headers=NDJSON)
    assert again.status_code == 200 and again.json()["stored"] == 0


def test_each_call_is_recorded_on_its_own_day(client: TestClient, cli: Cli, tmp_path: Path) -> None:
    first = write_week(tmp_path / "week")
    client.post("/v1/usage", content=replay_lines(cli, tmp_path / "week"), headers=NDJSON)
    for day in range(DAYS):
        start = first + timedelta(days=day, minutes=-1)
        window = {"since": stamp(start), "until": stamp(start + timedelta(hours=1))}
        tools = client.get("/v1/analytics", params=window).json()["tools"]
        counted = {name: tool["calls"] for name, tool in tools.items()}
        wanted: dict[str, int] = {}
        for tool, _ in day_calls(day):
            wanted[tool] = wanted.get(tool, 0) + 1
        assert counted == wanted, (day, window)


def test_a_json_lines_body_that_is_not_json_names_its_line(client: TestClient) -> None:
    body = '{"tool": "t", "ok": true}\n\n{"tool": \n'
    answer = client.post("/v1/usage", content=body, headers=NDJSON)
    assert answer.status_code == 400 and answer.json()["error"].startswith(
        "line 3: request body is not JSON"
    )
    blank = client.post("/v1/usage", content="\n \n", headers=NDJSON)
    assert blank.status_code == 400 and "one JSON object a line" in blank.json()["error"]
    other_route = client.post("/v1/rank", content='{"query": "x"}\n', headers=NDJSON)
    assert other_route.status_code == 415 and "x-ndjson" not in other_route.json()["error"]
    plain = client.post("/v1/usage", content="{}", headers={"Content-Type": "text/plain"})
    assert plain.status_code == 415 and "application/x-ndjson" in plain.json()["error"]
