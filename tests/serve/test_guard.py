"""The guard in front of every route, tested with the requests a browser page would send:
a cross-site form or `text/plain` POST, a DNS-rebinding page's same-origin requests, and a
local page's own requests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.conftest import ROOT
from tests.serve.conftest import local_client
from toolsel.serve.guard import HostPolicy, is_json_media_type, parse_origin
from toolsel.serve.http import create_app
from toolsel.serve.service import Service
from toolsel.serve.store import open_store

BODY = b'{"tool": "run_tests", "ok": true, "session": "victim"}'
VALIDATE = {"tool": "deploy_service", "input": {}, "session": "victim"}


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    running = Service([ROOT / "registries"], open_store(f"sqlite:///{tmp_path / 'u.sqlite3'}"))
    yield running
    running.close()


@pytest.fixture
def client(service: Service) -> TestClient:
    return local_client(create_app(service), raise_server_exceptions=False)


def _requires_rules(client: TestClient) -> set[str]:
    response = client.post("/v1/validate", json=VALIDATE)
    return {v["rule"] for v in response.json()["violations"]}


def test_a_cross_site_text_plain_post_records_nothing(client: TestClient) -> None:
    """What `fetch(url, {method: "POST", mode: "no-cors", body})` sends from another site:
    a CORS-safelisted content type and the page's Origin; no preflight is made."""
    assert "requires" in _requires_rules(client)
    for headers in (
        {"Origin": "https://evil.example", "Content-Type": "text/plain;charset=UTF-8"},
        {"Origin": "null", "Content-Type": "application/x-www-form-urlencoded"},
        {"Origin": "https://evil.example", "Content-Type": "multipart/form-data; boundary=x"},
        {"Content-Type": "text/plain"},  # no Origin at all (an old browser, a plugin)
    ):
        response = client.post("/v1/usage", content=BODY, headers=headers)
        assert response.status_code in (403, 415), (headers, response.text)
        assert "error" in response.json()
    assert "requires" in _requires_rules(client)  # the forged success never landed


def test_a_foreign_origin_is_refused_even_with_json(client: TestClient) -> None:
    """A page that sends JSON triggers a preflight the server never approves; and if a
    request gets through anyway (a misbehaving client), its Origin still refuses it."""
    response = client.post(
        "/v1/rank",
        json={"query": "x"},
        headers={"Origin": "https://evil.example"},
    )
    assert response.status_code == 403 and "--allow-origin" in response.json()["error"]
    preflight = client.options(
        "/v1/rank",
        headers={
            "Origin": "https://evil.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
    )
    assert "access-control-allow-origin" not in preflight.headers


def test_dns_rebinding_pages_cannot_read_anything(service: Service) -> None:
    """evil.example re-resolved to 127.0.0.1: the page's requests are same-origin for the
    browser, so they carry Host (and for a POST, Origin) evil.example."""
    rebound = TestClient(
        create_app(service), base_url="http://evil.example:8765", raise_server_exceptions=False
    )
    for path in ("/v1/analytics", "/v1/tools", "/readyz", "/healthz", "/docs", "/openapi.json"):
        response = rebound.get(path)
        assert response.status_code == 421, path
        assert "tools" not in response.json()
    posted = rebound.post("/v1/usage", content=BODY, headers={"Origin": "http://evil.example:8765"})
    assert posted.status_code == 421


def test_local_clients_and_same_origin_pages_are_served(service: Service) -> None:
    for base in ("http://localhost:8765", "http://127.0.0.1:8765", "http://[::1]:8765"):
        client = TestClient(create_app(service), base_url=base)
        assert client.get("/v1/tools").status_code == 200, base
    # the /docs page posting to its own server sends its own origin
    client = local_client(create_app(service))
    own = client.post(
        "/v1/rank", json={"query": "read a file"}, headers={"Origin": "http://localhost:8765"}
    )
    assert own.status_code == 200
    assert client.post("/v1/rank", content=b'{"query": "x"}', headers={
        "Content-Type": "application/vnd.api+json"
    }).status_code == 200  # fmt: skip


def test_allowed_hosts_and_origins_are_added_by_option(service: Service) -> None:
    policy = HostPolicy.for_bind("127.0.0.1", ["toolsel.internal"], ["http://localhost:3000"])
    named = TestClient(create_app(service, policy=policy), base_url="http://toolsel.internal")
    assert named.get("/v1/tools").status_code == 200
    page = local_client(create_app(service, policy=policy))
    response = page.post(
        "/v1/rank", json={"query": "x"}, headers={"Origin": "http://localhost:3000"}
    )
    assert response.status_code == 200
    other = page.post("/v1/rank", json={"query": "x"}, headers={"Origin": "http://localhost:3001"})
    assert other.status_code == 403


def test_a_server_on_every_interface_answers_any_host_but_checks_origins(
    service: Service,
) -> None:
    policy = HostPolicy.for_bind("0.0.0.0")
    app = create_app(service, token="t0ken", policy=policy)
    client = TestClient(app, base_url="http://10.1.2.3:8765", raise_server_exceptions=False)
    auth = {"Authorization": "Bearer t0ken"}
    assert client.get("/v1/tools", headers=auth).status_code == 200
    foreign = client.post(
        "/v1/rank", json={"query": "x"}, headers={**auth, "Origin": "https://evil.example"}
    )
    assert foreign.status_code == 403


@pytest.mark.parametrize(
    ("bind", "host", "allowed"),
    [
        ("127.0.0.1", b"localhost:8765", True),
        ("127.0.0.1", b"LOCALHOST", True),
        ("127.0.0.1", b"[::1]:1", True),
        ("127.0.0.1", b"localhost.evil.example", False),
        ("127.0.0.1", b"127.0.0.1.nip.io:8765", False),
        ("127.0.0.1", b"", False),
        ("127.0.0.1", None, False),
        ("::1", b"[::1]:8765", True),
        ("10.0.0.5", b"10.0.0.5:8765", True),
        ("10.0.0.5", b"localhost:8765", False),
        ("0.0.0.0", b"anything:1", True),
    ],
)
def test_host_policy(bind: str, host: bytes | None, allowed: bool) -> None:
    assert HostPolicy.for_bind(bind).host_allowed(host) is allowed


@pytest.mark.parametrize(
    ("origin", "host", "allowed"),
    [
        (b"http://localhost:8765", b"localhost:8765", True),
        (b"http://localhost:8765", b"localhost:9999", False),
        (b"https://localhost:8765", b"localhost:8765", True),
        (b"http://localhost", b"localhost:80", True),
        (b"null", b"localhost:8765", False),
        (b"file://", b"localhost:8765", False),
        (b"http://evil.example:8765", b"evil.example:8765", False),  # a foreign Host too
        (b"not an origin", b"localhost", False),
    ],
)
def test_origin_policy(origin: bytes, host: bytes, allowed: bool) -> None:
    assert HostPolicy.for_bind("127.0.0.1").origin_allowed(origin, host) is allowed


def test_origins_given_by_option_are_checked() -> None:
    assert parse_origin("HTTP://Example.com") == ("http", "example.com", 80)
    for bad in ("example.com", "ftp://example.com", "http://example.com/path", "null"):
        with pytest.raises(ValueError, match="not an origin"):
            parse_origin(bad)


@pytest.mark.parametrize(
    ("value", "json"),
    [
        (b"application/json", True),
        (b"Application/JSON; charset=utf-8", True),
        (b"application/merge-patch+json", True),
        (b"text/plain", False),
        (b"text/json", False),
        (b"application/jsonx", False),
        (b"", False),
        (None, False),
    ],
)
def test_json_media_types(value: bytes | None, json: bool) -> None:
    assert is_json_media_type(value) is json
