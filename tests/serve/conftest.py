"""Fixtures for the service: stores on SQLite and, where a server is given, PostgreSQL.

`.ci/run` starts a PostgreSQL on 127.0.0.1 and sets TOOLSEL_TEST_POSTGRES (a database URL)
and TOOLSEL_REQUIRE_POSTGRES=1, so CI never skips the PostgreSQL tests; elsewhere they are
skipped with the reason when no URL is set.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="needs the serve extra: pip install 'toolsel[serve]'")

from fastapi.testclient import TestClient

from toolsel.serve.store import UsageStore, open_store

POSTGRES = os.environ.get("TOOLSEL_TEST_POSTGRES")


def postgres_url() -> str:
    if not POSTGRES:
        if os.environ.get("TOOLSEL_REQUIRE_POSTGRES") == "1":
            pytest.fail("TOOLSEL_REQUIRE_POSTGRES=1 but TOOLSEL_TEST_POSTGRES is not set")
        pytest.skip("no PostgreSQL: set TOOLSEL_TEST_POSTGRES=postgresql://... (CI does)")
    return POSTGRES


def fresh_postgres() -> str:
    """A new, empty database on the test server (so tests never see each other's rows)."""
    import psycopg

    base = postgres_url()
    name = f"toolsel_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
    return base.rsplit("/", 1)[0] + "/" + name


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'usage.sqlite3'}"
    return fresh_postgres()


@pytest.fixture
def store(store_url: str) -> Iterator[UsageStore]:
    opened = open_store(store_url)
    yield opened
    opened.close()


def local_client(app: Any, **options: Any) -> TestClient:
    """A test client that talks to the app as a local client does: `Host: localhost:8765`
    (the guard refuses the test client's default `testserver`, as any foreign Host)."""
    return TestClient(app, base_url="http://localhost:8765", **options)
