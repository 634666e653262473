"""The usage store's roll-ups: per-tool sums per hour (`YYYY-MM-DDTHH`, grain `h`) and day
(`YYYY-MM-DD`, grain `d`), written in the transaction that stores the records, so analytics
costs periods and tools, not records. Periods are prefixes of the stored ISO time and
compare as strings. Sessions count by first use, as `toolsel.replay.stats.records_stats`
(the exact reference these sums must equal) counts them: each record carries whether it
starts its session, whether it is its tool's first use there, and that tool's ordinal.

Everything runs through an `Executor` (one open transaction) on SQLite or PostgreSQL:
`write` stores, `read` sums a window, `top` its most-called tools, `prune` forgets.
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
