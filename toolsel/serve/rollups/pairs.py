"""Co-used pairs in the roll-ups: one row per period, its pairs' counts in a blob. A pair
is keyed by its tools' ids in `usage_tools` (first tool's id << 32 | second's)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolsel.serve.rollups.sql import SESSION_KEY_SQL, Executor, chunks, marks, pair_tools


def encode_pairs(counts: dict[int, int]) -> bytes:
    """Pair keys (int64), then counts (int64), by key; pairs counted 0 are left out."""
    import numpy as np

    keys = np.fromiter(counts.keys(), np.int64, len(counts))
    values = np.fromiter(counts.values(), np.int64, len(counts))
    return _pack_pairs(keys, values)


def _pack_pairs(keys: Any, values: Any) -> bytes:
    import numpy as np

    order = np.argsort(keys, kind="stable")
    kept = values[order] != 0
    return bytes(
        keys[order][kept].astype("<i8").tobytes() + values[order][kept].astype("<i8").tobytes()
    )


def pair_arrays(blobs: Sequence[bytes]) -> tuple[Any, Any]:
    """The summed (keys, counts) of encoded pair blobs, by key."""
    import numpy as np

    parts = [bytes(b) for b in blobs if b]
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    keys = np.concatenate([np.frombuffer(p, "<i8", len(p) // 16) for p in parts])
    values = np.concatenate([np.frombuffer(p, "<i8", offset=len(p) // 2) for p in parts])
    firsts, seconds = keys >> 32, keys & 0xFFFFFFFF
    side = int(max(firsts.max(), seconds.max())) + 1
    if side <= 2048:  # few tools: count in a dense table, without sorting
        totals = np.bincount(firsts * side + seconds, weights=values, minlength=side * side)
        found = np.flatnonzero(totals)
        return (found // side) << 32 | found % side, totals[found].round().astype(np.int64)
    unique, where = np.unique(keys, return_inverse=True)
    summed = np.zeros(len(unique), dtype=np.int64)
    np.add.at(summed, where, values)
    return unique, summed


def pair_counts(blobs: Sequence[bytes]) -> dict[int, int]:
    """The summed counts of encoded pair blobs."""
    keys, totals = pair_arrays(blobs)
    return {int(k): int(n) for k, n in zip(keys.tolist(), totals.tolist(), strict=True) if n}


def add_pairs(blob: bytes | None, counts: dict[int, int]) -> bytes:
    """An encoded pair blob plus a batch's counts, in numpy."""
    return _pack_pairs(*pair_arrays([blob or b"", encode_pairs(counts)]))


def record_pairs(
    db: Executor, where: str, values: Sequence[Any], sign: int = 1
) -> dict[tuple[str, str], int]:
    """The pairs the records `where` says complete (a session's first use of a tool, among
    its first PAIR_TOOLS, with each of its tools used before), each counted `sign` times.
    Each session's first tools are read once (an index on a session's tools by ordinal
    would be a new migration), and paired here."""
    limit = pair_tools()
    later = db.run(
        f"SELECT {SESSION_KEY_SQL}, r.tool, r.ordinal FROM usage_records r WHERE {where}"
        " AND r.first_use AND r.ordinal > 0 AND r.ordinal < ?",
        [*values, limit],
    )
    earlier: dict[str, list[tuple[int, str]]] = {}
    for chunk in chunks(sorted({key for key, _, _ in later})):
        for key, tool, ordinal in db.run(
            "SELECT skey, tool, ordinal FROM usage_session_tools"
            f" WHERE skey IN ({marks(len(chunk))}) AND ordinal < ?",
            [*chunk, limit],
        ):
            earlier.setdefault(key, []).append((ordinal, tool))
    counts: dict[tuple[str, str], int] = {}
    for key, tool, ordinal in later:
        for before, other in earlier.get(key, ()):
            if before < ordinal:
                pair = (other, tool) if other < tool else (tool, other)
                counts[pair] = counts.get(pair, 0) + sign
    return counts


def tool_ids(db: Executor, names: set[str]) -> dict[str, int]:
    """Each tool's id in `usage_tools` (given one when new)."""
    wanted = sorted(names)
    found = ids_of(db, wanted)
    missing = [(name,) for name in wanted if name not in found]
    if missing:
        db.many("INSERT INTO usage_tools (tool) VALUES (?) ON CONFLICT (tool) DO NOTHING", missing)
        return tool_ids(db, names)
    return found


def ids_of(db: Executor, names: Sequence[str]) -> dict[str, int]:
    """The ids of some tools in `usage_tools` (those it has)."""
    return dict(_lookup(db, "tool", "id", names))


def names_of(db: Executor, ids: Sequence[int]) -> dict[int, str]:
    """The tools of some ids in `usage_tools`."""
    return dict(_lookup(db, "id", "tool", ids))


def _lookup(db: Executor, key: str, value: str, keys: Sequence[Any]) -> list[tuple[Any, ...]]:
    found = []
    for chunk in chunks(keys):
        sql = f"SELECT {key}, {value} FROM usage_tools WHERE {key} IN ({marks(len(chunk))})"
        found.extend(db.run(sql, chunk))
    return found


def write_pairs(db: Executor, pairs: dict[tuple[str, str, str, str], int]) -> None:
    """Add a batch's pairs, keyed (grain, period, tool, tool), to each period's blob (its
    row locked on PostgreSQL)."""
    if not pairs:
        return
    ids = tool_ids(db, {name for key in pairs for name in key[2:]})
    periods: dict[tuple[str, str], dict[int, int]] = {}
    for (grain, period, a, b), count in pairs.items():
        found = periods.setdefault((grain, period), {})
        key = ids[a] << 32 | ids[b]
        found[key] = found.get(key, 0) + count
    keys = sorted(periods)
    db.many(
        "INSERT INTO usage_pairs_rollup (grain, period, pairs) VALUES (?, ?, ?)"
        " ON CONFLICT (grain, period) DO NOTHING",
        [(*key, b"") for key in keys],
    )
    lock = " FOR UPDATE" if db.pg else ""
    updates = []
    for grain in sorted({grain for grain, _ in keys}):
        for chunk in chunks([period for g, period in keys if g == grain]):
            rows = db.run(
                "SELECT period, pairs FROM usage_pairs_rollup WHERE grain = ?"
                f" AND period IN ({marks(len(chunk))}) ORDER BY period{lock}",
                [grain, *chunk],
            )
            for period, blob in rows:
                updates.append((add_pairs(blob, periods[grain, period]), grain, period))
    db.many("UPDATE usage_pairs_rollup SET pairs = ? WHERE grain = ? AND period = ?", updates)
