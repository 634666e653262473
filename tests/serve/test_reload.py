"""Hot reload: a changed registry is swapped in whole; a bad edit keeps the last good one."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from fastapi.testclient import TestClient

from toolsel.serve.http import create_app
from toolsel.serve.service import Service

TOOLS = "tools:\n" + "".join(
    f"  - name: tool_{i}\n    description: Does thing number {i} with files.\n" for i in range(5)
)


def _touch(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    later = time.time_ns() + 1_000_000_000  # a new mtime even within the same clock tick
    os.utime(path, ns=(later, later))


def test_reload_swaps_and_bad_edits_keep_the_last_good_registry(tmp_path: Path) -> None:
    registry = tmp_path / "tools.yaml"
    registry.write_text(TOOLS, encoding="utf-8")
    service = Service([tmp_path], None)
    client = TestClient(create_app(service))
    assert not service.reload_if_changed()  # nothing changed
    _touch(registry, TOOLS + "  - name: tool_new\n    description: Brand new.\n")
    assert service.reload_if_changed() and client.get("/readyz").json()["tools"] == 6
    _touch(registry, TOOLS + "  - name: [broken\n")  # unreadable YAML
    assert not service.reload_if_changed()
    ready = client.get("/readyz").json()
    assert ready["tools"] == 6 and "tools.yaml:" in ready["last_reload_error"]
    assert (
        client.post("/v1/rank", json={"query": "brand new"}).json()["results"][0]["name"]
        == "tool_new"
    )
    _touch(  # a requires cycle is a bad edit too
        registry,
        TOOLS + "  - name: a\n    description: A.\n    requires: [b]\n"
        "  - name: b\n    description: B.\n    requires: [a]\n",
    )
    assert not service.reload_if_changed()
    assert "cycle" in client.get("/readyz").json()["last_reload_error"]
    _touch(registry, TOOLS)
    assert service.reload_if_changed()
    ready = client.get("/readyz").json()
    assert ready["tools"] == 5 and ready["last_reload_error"] is None
    service.close()


def test_requests_during_reloads_see_a_whole_registry(tmp_path: Path) -> None:
    """Ranking continuously while the registry flips between 5 and 6 tools: every answer
    comes from one complete registry, old or new."""
    registry = tmp_path / "tools.yaml"
    registry.write_text(TOOLS, encoding="utf-8")
    service = Service([tmp_path], None)
    client = TestClient(create_app(service))
    stop = threading.Event()
    seen: list[int] = []
    failures: list[str] = []

    def rank() -> None:
        while not stop.is_set():
            response = client.post("/v1/rank", json={"query": "thing files", "top": 50})
            if response.status_code != 200:
                failures.append(response.text)
                continue
            names = {r["name"] for r in response.json()["results"]}
            seen.append(len(names))

    worker = threading.Thread(target=rank)
    worker.start()
    try:
        for i in range(30):
            extra = "  - name: tool_extra\n    description: Does the extra thing with files.\n"
            _touch(registry, TOOLS + (extra if i % 2 == 0 else ""))
            service.reload_if_changed()
    finally:
        stop.set()
        worker.join()
        service.close()
    assert not failures and seen and set(seen) <= {5, 6}


def test_a_snapshot_pairs_a_registry_with_its_own_index(tmp_path: Path) -> None:
    from toolsel.ranking.store import load_registry_and_index

    registry_file = tmp_path / "tools.yaml"
    registry_file.write_text(TOOLS, encoding="utf-8")
    for extra in ("", "  - name: tool_more\n    description: One more.\n"):
        _touch(registry_file, TOOLS + extra)
        registry, index = load_registry_and_index([tmp_path])
        assert [t.name for t in registry.tools] == [t.name for t in index.tools]


def test_numbers_in_a_reloaded_registry(tmp_path: Path) -> None:
    """A 5,000-digit integer is a load error with its position (kept for /readyz), never an
    exception the reloader logs as a traceback; a 2^64 bound reloads and is served."""
    import pytest

    from toolsel.errors import RegistryError

    registry = tmp_path / "tools.yaml"
    huge = TOOLS + "  - name: n\n    description: N.\n    parameters: {maximum: %s}\n"
    registry.write_text(huge % ("9" * 5000), encoding="utf-8")
    with pytest.raises(RegistryError, match=r"tools.yaml:14:\d+: cannot parse: an integer"):
        Service([tmp_path], None)  # at start: `toolsel serve` says it in one line
    _touch(registry, TOOLS)
    service = Service([tmp_path], None)
    client = TestClient(create_app(service), raise_server_exceptions=False)
    _touch(registry, huge % ("9" * 5000))
    assert not service.reload_if_changed()
    error = client.get("/readyz").json()["last_reload_error"]
    assert "tools.yaml:14:" in error and "5,000 digits" in error
    _touch(registry, huge % "18446744073709551616")
    assert service.reload_if_changed()
    served = client.get("/v1/tools/n")
    assert served.status_code == 200 and '"maximum":18446744073709551616' in served.text
    service.close()
