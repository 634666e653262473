"""Hot reload: a changed registry is swapped in whole; a bad edit keeps the last good one."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from tests.serve.conftest import local_client
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
    client = local_client(create_app(service))
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
    client = local_client(create_app(service))
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
    from toolsel.ranking.store import read_registry_for_index

    registry_file = tmp_path / "tools.yaml"
    registry_file.write_text(TOOLS, encoding="utf-8")
    for extra in ("", "  - name: tool_more\n    description: One more.\n"):
        _touch(registry_file, TOOLS + extra)
        read = read_registry_for_index([tmp_path])
        registry, index = read.registry, read.prepared_index(bulk=True)
        assert [t.name for t in registry.tools] == [t.name for t in index.tools]


def test_a_file_added_to_a_registry_directory_is_loaded(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(TOOLS, encoding="utf-8")
    service = Service([tmp_path], None)
    _touch(tmp_path / "b.yaml", "tools:\n  - name: late_tool\n    description: Came later.\n")
    assert service.reload_if_changed()
    assert service.snapshot.registry.get("late_tool") is not None
    (tmp_path / "b.yaml").unlink()
    assert service.reload_if_changed() and service.snapshot.registry.get("late_tool") is None
    service.close()


def test_a_pipe_in_the_registry_never_blocks_the_reloader(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(TOOLS, encoding="utf-8")
    service = Service([tmp_path], None)
    os.mkfifo(tmp_path / "b.yaml")  # nobody ever writes to it
    done = threading.Event()
    threading.Thread(target=lambda: (service.reload_if_changed(), done.set()), daemon=True).start()
    assert done.wait(10), "the reloader blocked on a pipe"
    ready = local_client(create_app(service)).get("/readyz").json()
    assert ready["tools"] == 5 and "b.yaml: not a regular file" in ready["last_reload_error"]
    service.close()


def test_a_pipe_at_start_is_refused_with_one_line(tmp_path: Path) -> None:
    import pytest

    from toolsel.errors import RegistryError

    os.mkfifo(tmp_path / "tools.yaml")
    with pytest.raises(RegistryError, match="not a regular file"):
        Service([tmp_path / "tools.yaml"], None)


def test_any_reload_failure_is_shown_at_readyz_and_logged_once(
    tmp_path: Path, caplog: object, monkeypatch: object
) -> None:
    import logging

    import pytest

    assert isinstance(caplog, pytest.LogCaptureFixture)
    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    registry = tmp_path / "tools.yaml"
    registry.write_text(TOOLS, encoding="utf-8")
    service = Service([registry], None)

    def broken(*args: object, **kwargs: object) -> object:
        raise TypeError("Integer exceeds 64-bit range")

    monkeypatch.setattr("toolsel.ranking.store.read_registry_for_index", broken)
    _touch(registry, TOOLS + "  - name: tool_x\n    description: X.\n")
    with caplog.at_level(logging.ERROR, logger="toolsel.serve"):
        for _ in range(5):  # every poll: still failing, logged once
            assert not service.reload_if_changed()
            _touch(registry, TOOLS + "  - name: tool_x\n    description: X.\n")
    failures = [r for r in caplog.records if "reload failed" in r.getMessage()]
    assert len(failures) == 1 and not any(r.exc_info for r in caplog.records)
    ready = local_client(create_app(service)).get("/readyz").json()
    assert ready["last_reload_error"] == "TypeError: Integer exceeds 64-bit range"
    service.close()


def test_a_requires_cycle_names_each_tool_once(tmp_path: Path) -> None:
    import pytest

    from toolsel.errors import RegistryError

    registry = tmp_path / "tools.yaml"
    registry.write_text(
        "tools:\n  - name: a\n    description: A.\n    requires: [b]\n"
        "  - name: b\n    description: B.\n    requires: [a]\n",
        encoding="utf-8",
    )
    with pytest.raises(RegistryError) as refused:
        Service([registry], None)
    assert "requires cycle: a -> b -> a (" in str(refused.value)
    assert "tools.yaml:" in str(refused.value)


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
    client = local_client(create_app(service), raise_server_exceptions=False)
    _touch(registry, huge % ("9" * 5000))
    assert not service.reload_if_changed()
    error = client.get("/readyz").json()["last_reload_error"]
    assert "tools.yaml:14:" in error and "5,000 digits" in error
    _touch(registry, huge % "18446744073709551616")
    assert service.reload_if_changed()
    served = client.get("/v1/tools/n")
    assert served.status_code == 200 and '"maximum":18446744073709551616' in served.text
    service.close()
