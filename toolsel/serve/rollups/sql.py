"""What every roll-up statement shares: the `Executor` it runs through, the session key,
statements cut into chunks, and the per-tool columns, written from the usage sums'
definition (`replay.stats.COUNTS`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from toolsel.replay.stats import ToolSums

#: Rows of one statement's IN list.
CHUNK = 300

#: The session key of a record: "" for records without a session, "." + session otherwise
#: (so that no session, and a session named "", stay apart, as they always were).
SESSION_KEY_SQL = "CASE WHEN r.session IS NULL THEN '' ELSE '.' || r.session END"

#: The roll-ups' per-tool columns and the `ToolSums` count each holds (a record is an
#: answered call: `answered` is `calls`).
COLUMNS = {
    "calls": "calls",
    "errors": "errors",
    "sessions": "units",
    "latency_count": "latency_count",
    "latency_sum": "latency_sum",
}
#: Each column summed over records, as the roll-ups sum it on write.
RECORD_SQL = {
    "calls": "COUNT(*)",
    "errors": "SUM(CASE WHEN ok THEN 0 ELSE 1 END)",
    "sessions": "SUM(CASE WHEN first_use THEN 1 ELSE 0 END)",
    "latency_count": "COUNT(latency_ms)",
    "latency_sum": "COALESCE(SUM(latency_ms), 0)",
}
LISTED = ", ".join(COLUMNS)


def session_key(session: str | None) -> str:
    return "" if session is None else "." + session


class Executor(Protocol):
    """One open transaction on either engine; SQL is written with `?` marks."""

    pg: bool

    def run(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> int: ...


def chunks(items: Sequence[Any], size: int = CHUNK) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def marks(count: int, width: int = 1) -> str:
    one = "?" if width == 1 else "(" + ", ".join("?" * width) + ")"
    return ", ".join([one] * count)


def pair_tools() -> int:
    from toolsel.replay import stats

    return stats.PAIR_TOOLS


def column_values(sums: ToolSums) -> tuple[Any, ...]:
    """A tool's sums in the order of COLUMNS."""
    return tuple(getattr(sums, field) for field in COLUMNS.values())


def add_columns(sums: ToolSums, row: Sequence[Any], sign: int = 1) -> ToolSums:
    """Add (sign -1: take away) one row of COLUMNS (sums as the database gives them)."""
    calls, errors, sessions, count, total = row
    sums.calls += sign * int(calls)
    sums.answered += sign * int(calls)
    sums.errors += sign * int(errors or 0)
    sums.units += sign * int(sessions or 0)
    sums.latency_count += sign * int(count)
    sums.latency_sum += sign * float(total or 0)
    return sums
