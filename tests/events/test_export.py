"""The export's tables: whole row groups, written from bounded batches, with the same rows
whatever the batch and group sizes."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolsel.events import export
from toolsel.events.export import export_events, read_table

pq = pytest.importorskip("pyarrow.parquet")


def row_groups(directory: Path, table: str) -> list[int]:
    metadata = pq.ParquetFile(next((directory / table).glob("*.parquet"))).metadata
    return [metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)]


def test_small_batches_make_whole_row_groups_of_the_same_rows(
    archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    export_events([str(archive)], str(tmp_path / "whole"))
    monkeypatch.setattr(export, "BATCH_ROWS", 7)
    monkeypatch.setattr(export, "ROW_GROUP_ROWS", 60)
    export_events([str(archive)], str(tmp_path / "small"))
    for table in ("calls", "files"):
        whole, small = (read_table(str(tmp_path / d), table) for d in ("whole", "small"))
        assert whole.num_rows > 120 and whole.equals(small)
        groups = row_groups(tmp_path / "small", table)
        assert len(groups) > 1 and sum(groups) == whole.num_rows
        # every group but the last is ROW_GROUP_ROWS or more, and less than a batch over it
        # (a batch ends after the file that reaches BATCH_ROWS rows)
        assert all(60 <= rows < 60 + 7 + 40 for rows in groups[:-1])
        assert groups[-1] > 0
    assert row_groups(tmp_path / "whole", "calls") == [
        read_table(str(tmp_path / "whole"), "calls").num_rows
    ]


@pytest.mark.parametrize("jobs", [1, 2])
def test_progress_is_told_every_byte(
    archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    """What the progress bar of `toolsel export` shows (on a terminal): every file's bytes,
    read in this process or in the workers."""
    from toolsel.replay import parallel

    monkeypatch.setattr(parallel, "MIN_FILES", 2)
    told: list[int] = []
    summary = export_events([str(archive)], str(tmp_path / "ev"), jobs=jobs, progress=told.append)
    files = list(archive.rglob("*.jsonl"))
    assert summary.files == len(files) and len(told) > 1
    assert sum(told) == sum(f.stat().st_size for f in files)
