"""Bounded reading (`toolsel serve`'s analytics): a window's top N tools, the others
summed; picked by the database, so what is read grows with N, never with the number of
distinct tools stored."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolsel.replay.stats import TOP_PAIRS, ToolSums
from toolsel.serve.rollups.pairs import names_of
from toolsel.serve.rollups.read import (
    Part,
    Rest,
    Totals,
    add_latencies,
    pair_sums,
    parts_of,
    started,
)
from toolsel.serve.rollups.sql import COLUMNS, Executor, add_columns, chunks

#: Co-used pairs (the most counted, and those tied with them) whose tools' names a bounded
#: read looks up, to order ties by name as the exact statistics do.
PAIR_CANDIDATES = 1000


def bounded_totals(
    db: Executor,
    since: str | None,
    until: str | None,
    *,
    top: int,
    session: str | None = None,
    among: Sequence[str] = (),
) -> Totals:
    """The window's sums for its `top` most-called tools (ties by name), the others summed
    in `rest`, picked by the database: the cost never grows with the tools stored. Those
    of `among` (the registry's names) called but not listed go in `called`. A session's
    window is read from its records, its latencies exactly."""
    found = parts_of(since, until, session)
    totals = Totals()
    if not found:  # an empty window
        return totals
    listed, totals.rest = top_and_rest(db, found, top)
    for tool, *sums in listed:
        totals.tools[tool] = add_columns(ToolSums(), sums)
    for chunk in chunks(list(totals.tools)):
        for part in found:
            add_latencies(db, totals, part, chunk, exact=session is not None)
    for part in found:
        totals.sessions += started(db, part)
    totals.pairs = _top_pairs(db, found)
    if totals.rest.tools:  # else every tool called is listed
        unlisted = [name for name in dict.fromkeys(among) if name not in totals.tools]
        totals.called = _called(db, found, unlisted)
    return totals


def _called(db: Executor, parts: Sequence[Part], names: Sequence[str]) -> set[str]:
    """Those of `names` with calls in the parts (looked up by name, a chunk at a time)."""
    found: set[str] = set()
    for chunk in chunks(names):
        sums = [part.sums(chunk) for part in parts]
        found.update(
            row[0]
            for row in db.run(
                f"SELECT tool FROM ({' UNION ALL '.join(sql for sql, _ in sums)}) AS source"
                " GROUP BY tool HAVING SUM(calls) > 0",
                [value for _, values in sums for value in values],
            )
        )
    return found


def top_and_rest(
    db: Executor, parts: Sequence[Part], top: int
) -> tuple[list[tuple[Any, ...]], Rest]:
    """The parts' sums per tool: the `top` tools with most calls (ties by name), most
    first, and the others summed. One query: the database groups every tool and hands
    back `top` + 1 rows."""
    sums = [part.sums() for part in parts]
    source = " UNION ALL ".join(sql for sql, _ in sums)
    values = [value for _, values in sums for value in values]
    rows, rest = _ranked(db, source, values, [("SUM", c) for c in COLUMNS], top)
    count, calls, errors, sessions, latency_count, latency_sum = rest
    return rows, Rest(count, calls, errors, sessions, latency_count, latency_sum)


def top_summary(db: Executor, top: int) -> tuple[list[tuple[Any, ...]], Rest]:
    """Every day's sums per tool, (tool, calls, errors, latency sum, latency count, last
    use), for the `top` most-called tools, and the others summed."""
    columns = [("SUM", "calls"), ("SUM", "errors"), ("SUM", "latency_sum")]
    columns += [("SUM", "latency_count"), ("MAX", "last_at")]
    source = "SELECT * FROM usage_rollup WHERE grain = 'd'"
    rows, rest = _ranked(db, source, [], columns, top)
    count, calls, errors, latency_sum, latency_count, last = rest
    return rows, Rest(count, calls, errors, 0, latency_count, latency_sum, last)


def _ranked(
    db: Executor,
    source: str,
    values: Sequence[Any],
    columns: Sequence[tuple[str, str]],
    top: int,
) -> tuple[list[tuple[Any, ...]], tuple[Any, ...]]:
    """`source`'s rows grouped by tool, each column aggregated (`("SUM", "calls")` first),
    tools without calls left out: the `top` with most calls (ties by name), most first,
    and (how many others, their columns aggregated again). One grouping, in the database."""
    named = ", ".join(f"{how}({column}) AS c{n}" for n, (how, column) in enumerate(columns))
    listed = ", ".join(f"c{n}" for n in range(len(columns)))
    again = ", ".join(f"{how}(c{n})" for n, (how, _) in enumerate(columns))
    collate = ' COLLATE "C"' if db.pg else ""  # ties in code point order, as Python sorts
    found = db.run(
        f"WITH grouped AS (SELECT tool, {named} FROM ({source}) AS source"
        " GROUP BY tool HAVING SUM(calls) > 0),"
        f" listed AS (SELECT * FROM grouped ORDER BY c0 DESC, tool{collate} LIMIT ?)"
        f" SELECT tool, {listed}, 1 FROM listed"
        f" UNION ALL SELECT NULL, {again}, COUNT(*) FROM grouped"
        " WHERE tool NOT IN (SELECT tool FROM listed)",
        [*values, top],
    )
    numeric = [how == "SUM" for how, _ in columns]

    def read(row: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(_number(v) if sums else v for v, sums in zip(row, numeric, strict=True))

    rows = [(row[0], *read(row[1:-1])) for row in found if row[0] is not None]
    rows.sort(key=lambda row: (-row[1], row[0]))
    (rest,) = [row for row in found if row[0] is None]
    return rows, (int(rest[-1]), *read(rest[1:-1]))


def _number(value: Any) -> int | float:
    """A sum as Python reads it: PostgreSQL sums integers as decimals, and nothing as null."""
    from decimal import Decimal

    if value is None:
        return 0
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value  # type: ignore[no-any-return]


def _top_pairs(db: Executor, parts: Sequence[Part]) -> dict[tuple[str, str], int]:
    """The most counted co-used pairs (and those tied with the last that counts), summed in
    numpy by tool ids; only their tools' names are read."""
    import numpy as np

    keys, counts = pair_sums(db, parts)
    if not len(keys):
        return {}
    order = np.lexsort((keys, -counts))[:PAIR_CANDIDATES]
    last = counts[order[min(TOP_PAIRS, len(order)) - 1]]
    order = order[counts[order] >= last]
    chosen = [(int(k), int(n)) for k, n in zip(keys[order], counts[order], strict=True)]
    names = names_of(db, sorted({k >> 32 for k, _ in chosen} | {k & 0xFFFFFFFF for k, _ in chosen}))
    return {(names[k >> 32], names[k & 0xFFFFFFFF]): n for k, n in chosen}
