"""The reduce, in SQL: copy removal, per-tool totals, latencies and co-used pairs over the
event tables, run in embedded DuckDB (`toolsel stats --events`), as the usage sums every
engine makes (`replay.stats.UsageSums`). It gives exactly `toolsel stats`'s numbers on
the same transcripts, with one difference: `stats` keeps at most MAX_PAIRS distinct pairs
while it counts (dropping the rarest), the SQL counts them all. Any engine that reads
Parquet can run these statements."""

from __future__ import annotations

from array import array
from pathlib import Path
from typing import Any

from toolsel.registry.model import Registry
from toolsel.replay.stats import (
    PAIR_TOOLS,
    TOP_PAIRS,
    ToolSums,
    UnreadableFile,
    UsageStats,
    UsageSums,
)

#: Each call marked `is_copy`, from the rows alone (the rule in toolsel.events.copies):
#: the first call of its id (in path order) is in an earlier file, with the same tool, and
#: the same message id or a session this file had named by then.
COPIES = """
CREATE TEMP VIEW firsts AS
SELECT call_id, tool AS first_tool, turn AS first_turn, file_no AS first_file
FROM (SELECT call_id, tool, turn, file_no,
             row_number() OVER (PARTITION BY call_id ORDER BY file_no, seq) AS k
      FROM calls)
WHERE k = 1;

CREATE TEMP VIEW file_sessions AS
SELECT file_no, sessions[k] AS session, k - 1 AS ord
FROM (SELECT file_no, sessions, unnest(generate_series(1, len(sessions))) AS k FROM files);

CREATE TEMP VIEW links AS  -- (file, earlier file of a shared session, first such session)
SELECT a.file_no, b.file_no AS earlier, min(a.ord) AS ord
FROM file_sessions a JOIN file_sessions b ON a.session = b.session AND b.file_no < a.file_no
GROUP BY a.file_no, b.file_no;

CREATE TEMP VIEW marked AS
SELECT c.*,
       coalesce(f.first_file < c.file_no AND f.first_tool = c.tool
                AND (coalesce(c.turn = f.first_turn, false)
                     OR coalesce(l.ord < c.sessions_seen, false)), false) AS is_copy
FROM calls c
JOIN firsts f USING (call_id)
LEFT JOIN links l ON l.file_no = c.file_no AND l.earlier = f.first_file;
"""

#: Per file and tool: calls (copies too), copies, and the answered calls and errors that
#: are not copies. A tool whose calls in a file are all copies is not used there.
USED = """
CREATE TEMP VIEW used AS
SELECT file_no, tool,
       count(*) AS calls,
       count(*) FILTER (WHERE is_copy) AS copied,
       count(*) FILTER (WHERE answered AND NOT is_copy) AS answered,
       count(*) FILTER (WHERE is_error AND NOT is_copy) AS errors
FROM marked
GROUP BY file_no, tool
HAVING count(*) > count(*) FILTER (WHERE is_copy);
"""

#: The per-tool sums (`replay.stats.COUNTS`) the tables hold, as SQL over `used`.
SUMS = {
    "calls": "sum(calls - copied)::BIGINT",
    "answered": "sum(answered)::BIGINT",
    "errors": "sum(errors)::BIGINT",
    "units": "count(*)",
}
TOTALS = f"""
SELECT tool, {", ".join(f"{sql} AS {name}" for name, sql in SUMS.items())}
FROM used GROUP BY tool ORDER BY tool
"""

#: The latencies of calls that are not copies, each tool's in order: the percentiles are
#: taken from them as from any other engine's (`ToolSums.quantiles`).
LATENCIES = """
SELECT tool, list(latency_s ORDER BY latency_s)
FROM marked WHERE NOT is_copy AND latency_s IS NOT NULL GROUP BY tool
"""

#: The result and input sizes of answered calls that are not copies (tables exported
#: before these columns existed have none).
SIZES = """
SELECT tool, list(result_bytes) FILTER (WHERE result_bytes IS NOT NULL),
       list(input_bytes) FILTER (WHERE input_bytes IS NOT NULL)
FROM marked WHERE NOT is_copy AND answered GROUP BY tool
"""

#: Transcripts in which both tools were used, among each file's PAIR_TOOLS most called.
PAIRS = f"""
WITH top AS (
  SELECT file_no, tool FROM (
    SELECT file_no, tool, row_number() OVER (PARTITION BY file_no ORDER BY calls DESC, tool) AS k
    FROM used)
  WHERE k <= {PAIR_TOOLS})
SELECT a.tool, b.tool, count(*) AS transcripts
FROM top a JOIN top b ON a.file_no = b.file_no AND a.tool < b.tool
GROUP BY a.tool, b.tool ORDER BY transcripts DESC, a.tool, b.tool LIMIT {TOP_PAIRS}
"""

FILES = """
SELECT count(*) FROM files;
"""

UNREADABLE = """
SELECT file, unreadable_lines, first_unreadable_line FROM files
WHERE unreadable_lines > 0 ORDER BY file_no
"""

NOTES = """
SELECT notes[k] FROM (
  SELECT file_no, notes, unnest(generate_series(1, len(notes))) AS k FROM files)
ORDER BY file_no, k
"""


#: Results whose call is in no transcript, and how many are errors (under no tool).
ORPHANS = """
SELECT coalesce(sum(orphan_results), 0)::BIGINT, coalesce(sum(orphan_errors), 0)::BIGINT
FROM files
"""

#: Each call, in path order, for the charts over time (`stats --events DIR --format html`).
TIMELINE = """
SELECT file, call_id, tool, started_at, answered, is_error, latency_s, is_copy
FROM marked ORDER BY file_no, seq
"""


def events_stats(
    directory: str, registry: Registry | None = None, *, series: Any = None
) -> UsageStats:
    """`toolsel stats`'s statistics from the tables `toolsel export` wrote to `directory`;
    `series` (a `replay.series.SeriesRecorder`), when given, is told of every call, as
    replaying the transcripts would tell it."""
    from toolsel.events.export import check_events_dir
    from toolsel.events.schema import require

    check_events_dir(Path(directory))
    duckdb = require("duckdb")
    with duckdb.connect() as con:
        for table in ("calls", "files"):
            pattern = str(Path(directory) / table / "*.parquet").replace("'", "''")
            con.execute(f"CREATE TEMP VIEW {table} AS SELECT * FROM read_parquet('{pattern}')")
        stats = reduce(con, registry)
        if series is not None:
            _replay_timeline(con, series)
        return stats


def _replay_timeline(con: Any, sink: Any) -> None:
    from toolsel.replay.report import ToolEvent

    cursor = con.execute(TIMELINE)
    while rows := cursor.fetchmany(10_000):
        for file, call_id, tool, at, answered, is_error, latency, copy in rows:
            common = {"id": call_id, "parent": None, "parent_rule": None, "turn_id": None}
            sink(ToolEvent(event="tool_start", tool=tool, file=file, line=0, copied=bool(copy),
                           at=at, **common))  # fmt: skip
            if answered:
                sink(ToolEvent(event="tool_result", tool=tool, file=file, line=0,
                               is_error=bool(is_error), latency_ms=None if latency is None
                               else round(latency * 1000, 3), **common))  # fmt: skip


#: Each tool's error texts and how many counted calls said each (not copies; tables
#: written before error_text existed have none).
ERROR_TEXTS = """
SELECT tool, error_text, count(*) FROM marked
WHERE is_error AND NOT is_copy AND error_text IS NOT NULL GROUP BY tool, error_text
"""


def _error_messages(con: Any, sums: UsageSums) -> None:
    """Each tool's normalised error messages, as replaying the transcripts counts them."""
    from toolsel.replay.failures import message_key
    from toolsel.replay.stats import add_messages

    if "error_text" not in _columns(con, "calls"):
        return
    for tool, text, count in con.execute(ERROR_TEXTS).fetchall():
        if tool in sums.tools:
            add_messages(sums.tools[tool].messages, ((message_key(text), count),))


def reduce(con: Any, registry: Registry | None = None) -> UsageStats:
    """The statistics of the `calls` and `files` relations of a DuckDB connection."""
    return usage_sums(con).stats(registry)


def usage_sums(con: Any) -> UsageSums:
    """The usage sums of the `calls` and `files` relations of a DuckDB connection."""
    con.execute(COPIES)
    con.execute(USED)
    sums = UsageSums(units=con.execute(FILES).fetchone()[0])
    for tool, *counts in con.execute(TOTALS).fetchall():
        sums.tools[tool] = ToolSums(**dict(zip(SUMS, counts, strict=True)))
    for tool, latencies in con.execute(LATENCIES).fetchall():
        sums.tools[tool].exact = array("d", latencies)
    _error_messages(con, sums)
    if "result_bytes" in _columns(con, "calls"):
        for tool, results, inputs in con.execute(SIZES).fetchall():
            if tool in sums.tools:
                sums.tools[tool].result_sizes = array("d", results or ())
                sums.tools[tool].input_sizes = array("d", inputs or ())
    sums.pairs = {(a, b): n for a, b, n in con.execute(PAIRS).fetchall()}
    sums.unreadable = [UnreadableFile(*row) for row in con.execute(UNREADABLE).fetchall()]
    sums.notes = [note for (note,) in con.execute(NOTES).fetchall()]
    if "orphan_results" in _columns(con, "files"):  # exports before the column have none
        sums.orphans, sums.orphan_errors = con.execute(ORPHANS).fetchone()
    return sums


def _columns(con: Any, table: str) -> set[str]:
    """The columns of a table (an older export lacks the ones added since)."""
    return {row[0] for row in con.execute(f"DESCRIBE {table}").fetchall()}
