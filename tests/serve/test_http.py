"""The HTTP API through FastAPI's test client: every route, its errors, auth and limits."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.conftest import ROOT
from tests.serve.conftest import local_client
from toolsel.serve.http import create_app
from toolsel.serve.service import Service
from toolsel.serve.store import open_store

JSON = {"Content-Type": "application/json"}


@pytest.fixture
def service(store_url: str) -> Iterator[Service]:
    running = Service([ROOT / "registries"], open_store(store_url))
    yield running
    running.close()


@pytest.fixture
def client(service: Service) -> TestClient:
    return local_client(create_app(service), raise_server_exceptions=False)


def test_rank_returns_the_cli_json_document(client: TestClient, cli) -> None:  # type: ignore[no-untyped-def]
    query = "deploy the billing service to production"
    served = client.post("/v1/rank", json={"query": query, "top": 3}).json()
    printed = json.loads(
        cli("rank", "-r", str(ROOT / "registries"), query, "-n", "3", "-f", "json").stdout
    )
    assert served == printed
    chosen = client.post("/v1/rank", json={"query": "select:read_file,nope"}).json()
    assert chosen["schema"] == "toolsel.select/v1" and chosen["not_found"] == ["nope"]
    limited = client.post(
        "/v1/rank", json={"query": "delete the customer record", "permission": "read"}
    ).json()
    assert all(r["permission"] == "read" for r in limited["results"]) and limited["blocked"]


def test_select_validate_usage_and_analytics(client: TestClient) -> None:
    selected = client.post("/v1/select", json={"names": ["Read_File", "ghost"]}).json()
    assert selected["matches"] == ["read_file"] and selected["not_found"] == ["ghost"]
    assert selected["tool_result"]["type"] == "tool_result"
    bad = client.post("/v1/validate", json={"tool": "deploy_service", "input": {}, "session": "s"})
    rules = {v["rule"] for v in bad.json()["violations"]}
    assert (
        bad.status_code == 200 and not bad.json()["ok"] and {"requires", "invalid-input"} <= rules
    )
    unknown = client.post("/v1/validate", json={"tool": "deploy_servce", "input": {}}).json()
    assert "did you mean 'deploy_service'" in unknown["violations"][0]["message"]
    recorded = client.post(
        "/v1/usage",
        json={
            "records": [
                {"tool": "run_tests", "ok": True, "session": "s", "latency_ms": 40, "id": "1"},
                {"tool": "check_health", "ok": True, "session": "s", "id": "2"},
                {"tool": "check_health", "ok": True, "session": "s", "id": "2"},
            ]
        },
    ).json()
    assert recorded == {"schema": "toolsel.usage/v1", "received": 3, "stored": 2}
    # the session's successes now satisfy `requires`
    good = client.post(
        "/v1/validate",
        json={
            "tool": "deploy_service",
            "session": "s",
            "input": {"service": "billing", "environment": "staging", "image_tag": "v1.2.3"},
        },
    ).json()
    assert good["ok"], good
    stats = client.get("/v1/analytics").json()
    assert stats["schema"] == "toolsel.stats/v2" and stats["tools"]["check_health"]["calls"] == 1
    assert "deploy_service" in stats["never_called"]
    assert client.get("/v1/analytics", params={"session": "other"}).json()["tools"] == {}
    assert client.get("/v1/analytics", params={"since": "soon"}).status_code == 422


def test_tools_in_every_provider_shape(client: TestClient) -> None:
    listed = client.get("/v1/tools").json()
    assert listed["schema"] == "toolsel.tools/v1" and len(listed["tools"]) >= 40
    one = client.get("/v1/tools/patch_file").json()
    assert one["name"] == "patch_file" and one["examples"]
    for emit, key in (("openai", "tools"), ("anthropic", "tools"), ("mcp", "tools")):
        assert client.get("/v1/tools/read_file", params={"emit": emit}).json()[key]
    missing = client.get("/v1/tools/raed_file")
    assert missing.status_code == 404 and "read_file" in missing.json()["error"]
    assert client.get("/v1/tools", params={"emit": "cobol"}).status_code == 422


def test_bad_requests_get_a_clear_4xx_never_a_traceback(client: TestClient) -> None:
    cases = [
        (b"{not json", 400, "not JSON"),
        (b"", 400, "empty request body"),
        (b"[1, 2]", 422, "JSON object"),
        (b'{"query": 7}', 422, "`query` must be a non-empty string"),
        (b'{"query": "x", "top": "many"}', 422, "`top` must be an integer"),
        (b'{"query": "x", "method": "magic"}', 422, "`method` must be one of"),
        (b'{"query": "x", "permission": "root"}', 422, "`permission` must be one of"),
        (b"\xff\xfe garbage", 400, "not JSON"),
    ]
    for body, status, message in cases:
        response = client.post("/v1/rank", content=body, headers=JSON)
        assert response.status_code == status, (body, response.text)
        assert message in response.json()["error"] and "Traceback" not in response.text
    assert client.post("/v1/usage", json={"tool": "x", "ok": "yes"}).status_code == 422
    assert client.post("/v1/usage", json={"tool": "x" * 600, "ok": True}).status_code == 422
    negative = client.post("/v1/rank", json={"query": "x", "min_score": -1})
    assert negative.status_code == 422 and "got -1" in negative.json()["error"]
    deep = b"[" * 5000 + b"]" * 5000
    assert client.post("/v1/rank", content=deep, headers=JSON).status_code == 400
    assert client.post("/v1/usage", json=[]).status_code == 400
    assert client.post("/v1/validate", json={"tool": "read_file"}).status_code == 400


def test_bodies_are_capped(service: Service) -> None:
    client = local_client(create_app(service, max_body=1000), raise_server_exceptions=False)
    big = json.dumps({"query": "x" * 2000})
    assert client.post("/v1/rank", content=big, headers=JSON).status_code == 413

    def chunks() -> Iterator[bytes]:  # no Content-Length: capped while it streams
        yield b'{"query": "'
        for _ in range(100):
            yield b"x" * 100
        yield b'"}'

    response = client.post("/v1/rank", content=chunks(), headers=JSON)
    assert response.status_code == 413 and "over 1000 bytes" in response.json()["error"]


def test_token_guards_every_route_but_healthz(service: Service) -> None:
    client = local_client(create_app(service, token="s3cret"), raise_server_exceptions=False)
    assert client.get("/healthz").status_code == 200
    assert client.get("/readyz").status_code == 401
    assert client.post("/v1/rank", json={"query": "x"}).status_code == 401
    wrong = {"Authorization": "Bearer nope"}
    assert client.get("/v1/tools", headers=wrong).status_code == 401
    right = {"Authorization": "Bearer s3cret"}
    assert client.get("/v1/tools", headers=right).status_code == 200


def test_health_readiness_and_docs(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"ok": True}
    ready = client.get("/readyz").json()
    assert ready["ready"] and ready["tools"] >= 40 and ready["last_reload_error"] is None
    spec = client.get("/openapi.json").json()
    assert {"/v1/rank", "/v1/usage", "/agent/select-tools"} <= set(spec["paths"])
    assert spec["paths"]["/v1/rank"]["post"]["requestBody"]["content"]["application/json"]
    assert client.get("/docs").status_code == 200


def test_the_reference_design_paths(client: TestClient) -> None:
    chosen = client.post(
        "/agent/select-tools",
        json={"message": "Show me all users who signed up last month", "maxTools": 5},
    ).json()
    assert set(chosen) == {"tools", "method", "scores"} and len(chosen["tools"]) <= 5
    assert all(t["type"] == "function" for t in chosen["tools"])
    assert [t["function"]["name"] for t in chosen["tools"]] == [s["name"] for s in chosen["scores"]]
    denied = client.post("/agent/validate", json={"tool": "db_execute", "toolCallHistory": []})
    assert denied.status_code == 403 and denied.json()["allowed"] is False
    blocked = client.post("/agent/validate", json={"tool": "git_commit", "toolCallHistory": []})
    assert blocked.status_code == 400 and blocked.json() == {
        "valid": False,
        "reason": "Tool 'git_commit' requires 'git_status' to succeed first",
    }
    failed = [{"name": "git_status", "success": False}]
    assert (
        client.post(
            "/agent/validate", json={"tool": "git_commit", "toolCallHistory": failed}
        ).status_code
        == 400
    )
    ok = client.post(
        "/agent/validate",
        json={"tool": "git_commit", "toolCallHistory": [{"name": "git_status", "success": True}]},
    )
    assert ok.json() == {"valid": True}
    assert client.post(
        "/agent/record-usage", json={"tool": "db_query", "success": True, "latencyMs": 45}
    ).json() == {"recorded": True}
    client.post("/agent/record-usage", json={"tool": "db_query", "success": False})
    report = client.get("/agent/analytics").json()
    assert report[0]["tool"] == "db_query" and report[0]["calls"] == 2
    assert report[0]["errorRate"] == "50%" and report[0]["lastUsed"]


def test_registry_text_is_served_as_json_data(tmp_path: Path, store_url: str) -> None:
    hostile = tmp_path / "tools.yaml"
    hostile.write_text(
        'tools:\n  - name: evil\n    description: "<script>alert(1)</script> \\u001b[2J [bold]x[/bold]"\n',
        encoding="utf-8",
    )
    running = Service([hostile], open_store(store_url))
    try:
        client = local_client(create_app(running))
        response = client.get("/v1/tools/evil")
        assert response.headers["content-type"].startswith("application/json")
        assert response.json()["description"].startswith("<script>")
    finally:
        running.close()


def test_integers_beyond_64_bits_are_served_exactly(tmp_path: Path, store_url: str) -> None:
    """orjson refuses them; /v1/tools used to answer 500 for the whole registry."""
    from tests.test_emit import BEYOND_64_BITS

    registry = tmp_path / "big.yaml"
    registry.write_text(BEYOND_64_BITS)
    running = Service([registry], open_store(store_url))
    try:
        client = local_client(create_app(running), raise_server_exceptions=False)
        for path, params in [
            ("/v1/tools", {}),
            ("/v1/tools/set_counter", {}),
            *[("/v1/tools", {"emit": emit}) for emit in ("openai", "anthropic", "mcp", "gemini")],
        ]:
            response = client.get(path, params=params)
            assert response.status_code == 200, (path, params, response.text)
            body = response.text
            assert "18446744073709551616" in body and "-9223372036854775809" in body
            assert json.loads(body)  # valid JSON, exact (not 1.8446744073709552e+19)
        ranked = client.post("/v1/rank", json={"query": "set the counter"})
        assert ranked.status_code == 200 and ranked.json()["results"][0]["name"] == "set_counter"
    finally:
        running.close()


def test_service_outputs_match_their_published_schemas(client: TestClient) -> None:
    from jsonschema import Draft202012Validator

    from toolsel.schemas import Output, schema_text

    documents = {
        Output.VALIDATE: client.post(
            "/v1/validate", json={"tool": "read_file", "input": {}}
        ).json(),
        Output.USAGE: client.post("/v1/usage", json={"tool": "read_file", "ok": True}).json(),
        Output.TOOLS: client.get("/v1/tools").json(),
        Output.RANK: client.post("/v1/rank", json={"query": "read a file"}).json(),
        Output.SELECT: client.post("/v1/select", json={"names": ["read_file"]}).json(),
        Output.STATS: client.get("/v1/analytics").json(),
    }
    for output, document in documents.items():
        Draft202012Validator(json.loads(schema_text(output.value))).validate(document)


def test_the_service_names_tools_as_the_cli_does(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    tools = tmp_path / "helpdesk.yaml"
    tools.write_text(
        "tools:\n  - name: issue_refund\n    description: Refund a customer's order.\n"
        "    parameters: {type: object, properties: {order: {type: string}}}\n",
        encoding="utf-8",
    )
    printed = json.loads(cli("rank", "-r", f"helpdesk={tools}", "refund", "-f", "json").stdout)
    name = printed["results"][0]["name"]
    assert name == "mcp__helpdesk__issue_refund"
    for service in (
        Service([Path(f"helpdesk={tools}")], None),
        Service([tools], None, namespace=True),
    ):
        client = local_client(create_app(service))
        ranked = client.post("/v1/rank", json={"query": "refund"}).json()
        assert ranked["results"][0]["name"] == name
        valid = client.post("/v1/validate", json={"tool": name, "input": {"order": "A1"}})
        assert valid.json()["ok"], valid.json()
        assert client.post("/v1/select", json={"names": [name]}).json()["matches"] == [name]
        assert client.get(f"/v1/tools/{name}").status_code == 200
        service.close()


def test_store_bound_text_and_times_are_4xx_not_500(client: TestClient) -> None:
    cases = [
        {"tool": "a\x00b", "ok": True},
        {"tool": "t", "ok": True, "session": "s\x00"},
        {"tool": "t", "ok": True, "error": "\x00"},
        {"tool": "t", "ok": True, "id": "\x00"},
        {"tool": "t", "ok": True, "at": "0001-01-01T00:00:00+05:00"},
        {"tool": "t", "ok": True, "at": "9999-12-31T23:59:59-05:00"},
        {"tool": "t", "ok": True, "at": "0000-01-01T00:00:00Z"},
        {"tool": "t", "ok": True, "at": "2026-13-01"},
        {"tool": "t", "ok": True, "at": "x" * 100_000},
    ]
    for record in cases:
        response = client.post("/v1/usage", json=record)
        assert response.status_code == 422, (record, response.text)
        assert len(response.text) < 400  # the error does not echo a huge value
    for query in ({"since": "9999-12-31T23:59:59-05:00"}, {"until": "0001-01-01T00:00:00+01:00"}):
        assert client.get("/v1/analytics", params=query).status_code == 422


def test_replay_events_obey_the_same_limits_as_records(client: TestClient) -> None:
    event = {"schema": "toolsel.replay-event/v1", "event": "tool_result", "file": "f", "id": "1"}
    long = client.post("/v1/usage", json={**event, "tool": "x" * 600})
    assert long.status_code == 422 and "at most 512" in long.json()["error"]
    nul = client.post("/v1/usage", json={**event, "tool": "a\x00"})
    assert nul.status_code == 422
    odd = client.post("/v1/usage", json={**event, "tool": "t", "is_error": "yes"})
    assert odd.status_code == 422 and "`is_error`" in odd.json()["error"]
    failed = client.post("/v1/usage", json={**event, "tool": "t", "is_error": True, "id": "2"})
    assert failed.status_code == 200
    assert client.get("/v1/analytics").json()["tools"]["t"]["errors"] == 1


def test_answers_stay_small_relative_to_their_requests(client: TestClient) -> None:
    names = [f"n{i}" for i in range(101)]
    too_many = client.post("/v1/select", json={"names": names})
    assert too_many.status_code == 422 and "at most 100 names" in too_many.json()["error"]
    query = "select:" + ",".join(names)
    assert client.post("/v1/rank", json={"query": query}).status_code == 422
    hundred = json.dumps({"names": names[:100]})
    answer = client.post("/v1/select", content=hundred, headers=JSON)
    assert answer.status_code == 200 and len(answer.content) < 64 * 1024
    long = client.post("/v1/rank", json={"query": "deploy " * 3000})
    assert long.status_code == 422 and "at most 16384" in long.json()["error"]
    huge = client.post("/v1/rank", json={"query": "x", "method": "y" * 100_000})
    assert huge.status_code == 422 and len(huge.content) < 1000


def test_a_client_that_disconnects_mid_body_gets_no_500(
    service: Service, caplog: pytest.LogCaptureFixture
) -> None:
    import asyncio
    import logging

    app = create_app(service)
    sent: list[dict[str, object]] = []

    async def scenario() -> None:
        messages = iter(
            [
                {"type": "http.request", "body": b'{"query": "dep', "more_body": True},
                {"type": "http.disconnect"},
            ]
        )

        async def receive() -> dict[str, object]:
            return next(messages)

        async def send(message: dict[str, object]) -> None:
            sent.append(message)

        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": "POST", "scheme": "http", "path": "/v1/rank", "raw_path": b"/v1/rank",
            "query_string": b"", "root_path": "", "client": ("127.0.0.1", 1),
            "server": ("127.0.0.1", 8765),
            "headers": [(b"host", b"localhost:8765"), (b"content-type", b"application/json")],
        }  # fmt: skip
        await app.router.lifespan_context(app).__aenter__()
        await app(scope, receive, send)

    loggers = [logging.getLogger(n) for n in ("toolsel.serve", "toolsel.serve.access")]
    for logger in loggers:  # they may not propagate (serve's own logging set-up)
        logger.addHandler(caplog.handler)
    try:
        with caplog.at_level(logging.INFO, logger="toolsel.serve.access"):
            asyncio.run(scenario())
    finally:
        for logger in loggers:
            logger.removeHandler(caplog.handler)
    start = next(m for m in sent if m["type"] == "http.response.start")
    assert start["status"] == 400
    # one record may reach the capture through several loggers: count each once
    requests = list({id(r): r for r in caplog.records if r.getMessage() == "request"}.values())
    assert [getattr(r, "status", None) for r in requests] == [400]
    assert not any(r.exc_info for r in caplog.records)


def test_integers_beyond_64_bits_in_a_request_are_read_exactly(tmp_path: Path) -> None:
    """orjson reads 18446744073709551617 as the float 2**64, which `maximum: 2**64`
    accepts; read exactly, it is over the maximum."""
    registry = tmp_path / "tools.yaml"
    registry.write_text(
        "tools:\n  - name: count\n    description: Count up to a bound.\n"
        "    parameters:\n      type: object\n      properties:\n"
        "        n: {type: integer, maximum: 18446744073709551616}\n",
        encoding="utf-8",
    )
    client = local_client(create_app(Service([registry], None)))
    body = '{"tool": "count", "input": {"n": %s}}'
    over = client.post("/v1/validate", content=body % (2**64 + 1), headers=JSON).json()
    assert not over["ok"] and "maximum" in over["violations"][0]["message"], over
    at = client.post("/v1/validate", content=body % (2**64), headers=JSON).json()
    assert at["ok"], at
    huge = client.post("/v1/validate", content=body % ("9" * 5000), headers=JSON)
    assert huge.status_code == 400 and "not JSON" in huge.json()["error"]
    assert len(huge.text) < 400


def test_analytics_window_defaults_to_the_last_seven_days(client: TestClient) -> None:
    from toolsel.serve.store import now

    old = {"tool": "run_tests", "ok": True, "at": "2020-01-01T00:00:00Z", "session": "old"}
    fresh = {"tool": "check_health", "ok": True, "session": "new"}
    assert client.post("/v1/usage", json=[old, fresh]).json()["stored"] == 2
    recent = client.get("/v1/analytics").json()
    assert set(recent["tools"]) == {"check_health"} and recent["transcripts"] == 1
    since = recent["window"]["since"]
    assert recent["window"]["until"] is None and since.endswith(":00:00.000Z") and since < now()
    everything = client.get("/v1/analytics", params={"since": "all"}).json()
    assert set(everything["tools"]) == {"run_tests", "check_health"}
    assert everything["window"] == {"since": None, "until": None}
    until = client.get("/v1/analytics", params={"until": "2021-01-01T00:00:00Z"}).json()
    assert set(until["tools"]) == {"run_tests"} and until["window"]["since"] is None


def test_times_beyond_the_date_range_are_422_not_500(client: TestClient) -> None:
    for edge in (
        "0001-01-01T00:00:00+05:00",
        "9999-12-31T23:59:59-05:00",
        "0000-01-01T00:00:00Z",
        "2026-01-01T00:00:00+25:00",
    ):
        usage = client.post("/v1/usage", json={"tool": "run_tests", "ok": True, "at": edge})
        assert usage.status_code == 422 and "record 0: `at`" in usage.json()["error"], edge
        assert client.get("/v1/analytics", params={"since": edge}).status_code == 422
    last = client.post(
        "/v1/usage", json={"tool": "run_tests", "ok": True, "at": "9999-12-31T23:59:59Z"}
    )
    assert last.status_code == 200
    stats = client.get("/v1/analytics", params={"since": "9999-12-31T23:30:00Z"}).json()
    assert stats["tools"]["run_tests"]["calls"] == 1


def test_a_full_store_answers_507_and_still_reads(store_url: str) -> None:
    service = Service([ROOT / "registries"], open_store(store_url, max_bytes=1))
    try:
        client = local_client(create_app(service), raise_server_exceptions=False)
        refused = client.post("/v1/usage", json={"tool": "run_tests", "ok": True})
        assert refused.status_code == 507 and "full" in refused.json()["error"]
        assert "--max-store" in refused.json()["error"]
        assert client.get("/v1/analytics").status_code == 200
        assert client.get("/agent/analytics").status_code == 200
    finally:
        service.close()


def test_a_lost_store_answers_503(service: Service) -> None:
    from toolsel.serve.store import StoreUnavailable

    def lost(*args: object) -> None:
        raise StoreUnavailable("the usage store sqlite:///x is unavailable: gone")

    assert service.store is not None
    client = local_client(create_app(service), raise_server_exceptions=False)
    for name in ("record", "top_totals", "top_summary", "session_tools"):
        setattr(service.store, name, lost)
    assert client.post("/v1/usage", json={"tool": "run_tests", "ok": True}).status_code == 503
    assert client.get("/v1/analytics").status_code == 503
    assert client.get("/agent/analytics").status_code == 503
    body = {"tool": "run_tests", "input": {}, "session": "s"}
    assert client.post("/v1/validate", json=body).status_code == 503


def test_a_nul_character_is_422_on_both_stores(client: TestClient) -> None:
    for field in ("tool", "session", "error", "id"):
        record = {"tool": "run_tests", "ok": True, field: "a\u0000b"}
        answer = client.post("/v1/usage", json=[{"tool": "run_tests", "ok": True}, record])
        assert answer.status_code == 422, answer.text
        assert answer.json()["error"] == f"record 1: `{field}` contains a NUL character"
