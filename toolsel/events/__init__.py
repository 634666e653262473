"""Transcript events as a table: one row per tool call, in Parquet, and the statistics'
reduce as SQL (DuckDB). `pip install 'toolsel[events]'`.

- `map_file(path, file_no)` (the map step): one transcript's calls and its file record.
- `export_events(paths, out_dir)`: every file mapped in path order, copy marks added,
  written as `calls/` and `files/` Parquet tables (`toolsel export`).
- `events_stats(out_dir)` (the reduce): `toolsel stats`'s numbers from those tables, in SQL.

The columns are documented in `toolsel.events.schema` and docs/events.md.
"""
