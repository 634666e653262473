"""The dashboard at `/`: a static page and its assets, served without the token (they hold
no data) under the Host and Origin rules, with a strict Content-Security-Policy; its data
stays behind the token."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.conftest import ROOT
from tests.serve.conftest import local_client
from toolsel.serve.dashboard import ASSETS, CSP
from toolsel.serve.http import create_app
from toolsel.serve.service import Service
from toolsel.serve.store import open_store

AUTH = {"Authorization": "Bearer s3cret"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    service = Service([ROOT / "registries"], open_store(f"sqlite:///{tmp_path / 'u.sqlite3'}"))
    yield local_client(create_app(service, token="s3cret"), raise_server_exceptions=False)
    service.close()


def test_the_page_and_its_assets_are_served_without_the_token_and_hold_no_data(
    client: TestClient,
) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert page.headers["content-security-policy"] == CSP
    assert "script-src 'self'" in CSP and "unsafe" not in CSP and "connect-src 'self'" in CSP
    assert page.headers["x-frame-options"] == "DENY"
    assert "<script>" not in page.text  # every script is a file: no inline script at all
    for name in ASSETS:
        asset = client.get(f"/assets/{name}")
        assert asset.status_code == 200, name
        assert asset.headers["x-content-type-options"] == "nosniff"
    assert client.get("/assets/../registries").status_code in (401, 404)
    assert client.get("/assets/secret.js").status_code == 401  # not an asset: token rules
    for path in ("/assets/vendor/secret.js", "/assets/vendor/%2e%2e/%2e%2e/pyproject.toml"):
        assert client.get(path).status_code == 401, path  # only the listed files are public


def test_the_data_stays_behind_the_token(client: TestClient) -> None:
    assert client.get("/v1/analytics").status_code == 401
    assert client.get("/readyz").status_code == 401
    assert client.get("/v1/analytics", headers=AUTH).status_code == 200
    ready = client.get("/readyz", headers=AUTH)
    assert ready.status_code == 200
    assert ready.json()["last_reload"].endswith("Z")  # the dashboard's "last reload"


def test_a_foreign_host_or_origin_gets_no_page(client: TestClient) -> None:
    assert client.get("/", headers={"Host": "evil.example"}).status_code == 421
    assert client.get("/", headers={"Origin": "https://evil.example"}).status_code == 403
