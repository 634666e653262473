"""The usage store's roll-ups: per-tool, per-period sums (`replay.stats.UsageSums`) kept up
to date as records are written (in the same transaction), so that analytics costs hours,
days and tools, not records.

Periods are the first characters of the stored ISO time: `YYYY-MM-DDTHH` for an hour
(grain `h`), `YYYY-MM-DD` for a day (grain `d`); they compare as strings. Sessions are
counted by first use (see `toolsel.replay.stats.records_stats`, the exact reference these sums
must equal): each record carries whether it is its session's first record, whether it is the
first use of its tool in its session, and the tool's ordinal (order of first use) in the
session; `usage_session_tools` keeps each session's tools with their ordinals.

Everything here runs through an `Executor` (one open transaction), on SQLite or PostgreSQL:
`write` stores and sums records, `read` sums a window, `top` its most-called tools,
`prune` forgets old periods, `pairs` keeps co-used pairs, `periods` cuts windows.
"""

from toolsel.serve.rollups.prune import forget_hour, forget_sessions
from toolsel.serve.rollups.read import Rest, Totals, default_since, period_start, window_totals
from toolsel.serve.rollups.sql import Executor, session_key
from toolsel.serve.rollups.top import bounded_totals, top_summary
from toolsel.serve.rollups.write import ROLLUP_TABLES, SCHEMA, Race, backfill, store_records

__all__ = [
    "ROLLUP_TABLES",
    "SCHEMA",
    "Executor",
    "Race",
    "Rest",
    "Totals",
    "backfill",
    "bounded_totals",
    "default_since",
    "forget_hour",
    "forget_sessions",
    "period_start",
    "session_key",
    "store_records",
    "top_summary",
    "window_totals",
]
