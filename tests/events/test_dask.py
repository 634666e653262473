"""The map step on a Dask cluster (two local workers): the same tables, so the same
totals, as mapping in this process."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Cli
from toolsel.events.export import export_events, read_table
from toolsel.events.reduce import events_stats

pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")
pytest.importorskip("distributed", reason="distributed (toolsel[dask]) is not installed")


def test_the_engine_run_equals_the_local_run(archive: Path, tmp_path: Path, cli: Cli) -> None:
    from toolsel.events.dask import export_on_dask

    local = export_events([str(archive)], str(tmp_path / "local"))
    # small chunks: many tasks, results taken back in path order across workers
    engine = export_on_dask([str(archive)], str(tmp_path / "dask"), chunk=7)
    assert (engine.files, engine.calls, engine.copied) == (local.files, local.calls, local.copied)
    for table in ("calls", "files"):
        assert read_table(str(tmp_path / "dask"), table).equals(
            read_table(str(tmp_path / "local"), table)
        )
    assert events_stats(str(tmp_path / "dask")) == events_stats(str(tmp_path / "local"))


def test_an_unreachable_scheduler_is_one_line(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    monkeypatch.setattr("toolsel.events.dask.CONNECT_TIMEOUT", "1s")

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    (tmp_path / "t.jsonl").write_text("{}\n")
    run = cli("export", str(tmp_path / "t.jsonl"), "-o", str(tmp_path / "ev"), "--engine", "dask", "--scheduler", f"tcp://127.0.0.1:{port}")  # fmt: skip
    assert run.exit_code == 2 and run.stderr.count("\n") == 1
    assert run.stderr.startswith(f"toolsel: error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port}")  # fmt: skip
