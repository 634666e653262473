"""`toolsel export`: transcripts to the event tables, `calls/` and `files/` Parquet under
one directory. Files are mapped here (or on a Dask cluster) and written in path order, so
the copy marks are the ones `replay` computes."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from toolsel.errors import UsageError
from toolsel.events.copies import CopyMarks
from toolsel.events.rows import FileEvents, calls_batch, files_batch, map_file
from toolsel.events.schema import CALL_COLUMNS, FILE_COLUMNS, arrow_schema, require

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from toolsel.replay.lines import Progress

#: Rows in a row group (large groups read fast), gathered as Arrow batches of BATCH_ROWS
#: rows: memory stays bounded by these, not by the archive (a row as Python objects takes
#: about 1.7 kB, as Arrow columns about 0.1 kB).
ROW_GROUP_ROWS = 65_536
BATCH_ROWS = 8_192
PART = "part-00000.parquet"


@dataclass(frozen=True, slots=True)
class ExportSummary:
    directory: str
    files: int
    calls: int
    copied: int


def export_events(
    paths: list[str],
    out_dir: str,
    *,
    input_format: str | None = None,
    mapped: Iterable[FileEvents] | None = None,
    since: float | None = None,
    jobs: int = 1,
    progress: Progress | None = None,
) -> ExportSummary:
    """Map every transcript under `paths` (or take `mapped`, the same files mapped
    elsewhere, in path order) and write the tables to `out_dir`, which must be new or empty.
    `since` (a POSIX time) skips files last modified before it, as `replay` does. `jobs`
    processes map files at once (`replay.parallel.parallel_rows`); this one marks the copies
    and writes, in path order, so the tables are the same for any number. `progress` is
    told the bytes read (a file at a time with `jobs`)."""
    require("pyarrow")
    target = Path(out_dir)
    check_target(target)
    if mapped is None:
        from toolsel.replay.lines import expand_since
        from toolsel.replay.parallel import parallel_rows, use_pool

        inputs = expand_since(paths, since)
        if use_pool(inputs, jobs):
            mapped = parallel_rows(inputs, input_format, jobs=jobs, progress=progress)
        else:
            mapped = (
                map_file(path, number, input_format=input_format, progress=progress)
                for number, path in enumerate(inputs)
            )
    return write_tables(mapped, target)


def check_target(target: Path) -> None:
    """The output directory must be new or empty: old parts would be read as new rows."""
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise UsageError(
            f"{target}: already exists and is not an empty directory",
            hint="give a new directory, or remove this one",
        )


def write_tables(mapped: Iterable[FileEvents], target: Path) -> ExportSummary:
    """Mark copies in path order and write both tables, a row group every ROW_GROUP_ROWS,
    into a temporary directory beside `target`, renamed to it once complete (an interrupted
    export leaves no half-written tables)."""
    import shutil
    import tempfile

    from toolsel.inputs import os_reason

    temporary: Path | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
        summary = _write(mapped, temporary)
        if target.exists():
            target.rmdir()  # empty (checked before): replaced whole
        temporary.replace(target)
    except OSError as error:
        raise UsageError(f"{target}: cannot write: {os_reason(error)}") from None
    finally:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
    return replace(summary, directory=str(target))


def _write(mapped: Iterable[FileEvents], target: Path) -> ExportSummary:
    pq = require("pyarrow.parquet")
    (target / "calls").mkdir()
    (target / "files").mkdir()
    marks = CopyMarks()
    files = calls = copied = 0
    with (
        pq.ParquetWriter(target / "calls" / PART, arrow_schema(CALL_COLUMNS)) as call_writer,
        pq.ParquetWriter(target / "files" / PART, arrow_schema(FILE_COLUMNS)) as file_writer,
    ):
        call_groups, file_groups = _RowGroups(call_writer), _RowGroups(file_writer)
        for group in _groups(marks.mark(m) for m in mapped):
            call_groups.add(calls_batch(group))
            file_groups.add(files_batch(group))
            files += len(group)
            calls += sum(m.rows for m in group)
            copied += sum(sum(m.calls["copied"]) for m in group)
        call_groups.flush()
        file_groups.flush()
    return ExportSummary(str(target), files, calls, copied)


def _groups(mapped: Iterable[FileEvents]) -> Iterator[list[FileEvents]]:
    """The files in groups of about BATCH_ROWS calls (or files)."""
    group: list[FileEvents] = []
    rows = 0
    for events in mapped:
        group.append(events)
        rows += events.rows
        if rows >= BATCH_ROWS or len(group) >= BATCH_ROWS:
            yield group
            group, rows = [], 0
    if group:
        yield group


class _RowGroups:
    """Arrow batches held until they make a row group of ROW_GROUP_ROWS rows, then written
    as one."""

    def __init__(self, writer: pq.ParquetWriter) -> None:
        self.writer = writer
        self.batches: list[pa.RecordBatch] = []
        self.rows = 0

    def add(self, batch: pa.RecordBatch) -> None:
        self.batches.append(batch)
        self.rows += batch.num_rows
        if self.rows >= ROW_GROUP_ROWS:
            self.flush()

    def flush(self) -> None:
        if self.batches:
            pa = require("pyarrow")
            table = pa.Table.from_batches(self.batches)
            self.writer.write_table(table, row_group_size=max(ROW_GROUP_ROWS, table.num_rows))
            self.batches, self.rows = [], 0


def read_table(directory: str, name: str) -> pa.Table:
    """One table of an export, its schema version checked (tests and recipes)."""
    pq = require("pyarrow.parquet")
    check_events_dir(Path(directory))
    return pq.read_table(Path(directory) / name)


def check_events_dir(directory: Path) -> None:
    """A directory `toolsel export` wrote, of this schema version; else one clear error."""
    from toolsel.events.schema import SCHEMA_KEY, SCHEMA_VERSION

    pq = require("pyarrow.parquet")
    for table in ("calls", "files"):
        parts = sorted((directory / table).glob("*.parquet"))
        if not parts:
            raise UsageError(
                f"{directory}: not an events directory (no {table}/*.parquet)",
                hint="write one with: toolsel export TRANSCRIPTS -o DIR",
            )
        for part in parts:
            try:
                metadata = pq.read_schema(part).metadata or {}
            except Exception as error:  # pyarrow raises ArrowInvalid, OSError, ...
                raise UsageError(f"{part}: not a Parquet file ({error})") from None
            version = metadata.get(SCHEMA_KEY, b"").decode(errors="replace")
            if version != SCHEMA_VERSION:
                raise UsageError(
                    f"{part}: schema {version or 'unknown'!r}, but this toolsel reads "
                    f"{SCHEMA_VERSION!r}",
                    hint="export the transcripts again with this toolsel",
                )
