"""A latency sketch: a log-bucket histogram (DDSketch's) whose quantiles are within 1% of
the exact ones, that merges by adding counts and is stored in a few bytes per bucket.

A value x > 0 falls in bucket i = ceil(log_gamma(x)), which holds (gamma^(i-1), gamma^i];
the bucket answers 2 * gamma^i / (gamma + 1), within (gamma - 1) / (gamma + 1) = 1% of every
value in it. Zero (and anything below it) has a bucket of its own, answered exactly as 0.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable, Mapping

#: Relative accuracy of every quantile.
ACCURACY = 0.01
GAMMA = (1 + ACCURACY) / (1 - ACCURACY)
_LOG_GAMMA = math.log(GAMMA)
#: The bucket of 0 (and of negative values, which latencies never are).
ZERO = -(2**31)
_PAIR = struct.Struct("<iq")


def bucket(value: float) -> int:
    """The bucket a value falls in."""
    if not value > 0:  # 0, negatives and NaN
        return ZERO
    return math.ceil(math.log(value) / _LOG_GAMMA)


def bucket_value(index: int) -> float:
    """The value a bucket answers for: within 1% of every value in it."""
    if index == ZERO:
        return 0.0
    return 2 * GAMMA**index / (GAMMA + 1)


def add(counts: dict[int, int], values: Iterable[float]) -> None:
    for value in values:
        index = bucket(value)
        counts[index] = counts.get(index, 0) + 1


def merge(into: dict[int, int], other: Mapping[int, int], sign: int = 1) -> None:
    """Add (or, with sign -1, take away) another sketch's counts; empty buckets go."""
    for index, count in other.items():
        total = into.get(index, 0) + sign * count
        if total:
            into[index] = total
        else:
            into.pop(index, None)


def encode(counts: Mapping[int, int]) -> bytes:
    """12 bytes a bucket: index (int32) and count (int64), little-endian, by index."""
    return b"".join(_PAIR.pack(i, counts[i]) for i in sorted(counts))


def decode(data: bytes | None) -> dict[int, int]:
    if not data:
        return {}
    return dict(_PAIR.iter_unpack(bytes(data)))


def quantiles(counts: Mapping[int, int]) -> tuple[float | None, float | None]:
    """(median, nearest-rank 95th percentile), as `statistics.median` and `stats.p95` give
    them on the values (the median of an even count is the mean of the two middle ones),
    each within 1%. (None, None) for an empty sketch."""
    total = sum(counts.values())
    if total <= 0:
        return None, None
    ranks = {(total - 1) // 2, total // 2, max(0, -(-95 * total // 100) - 1)}
    found: dict[int, float] = {}
    seen = 0
    for index in sorted(counts):
        seen += counts[index]
        for rank in ranks - found.keys():
            if rank < seen:
                found[rank] = bucket_value(index)
        if len(found) == len(ranks):
            break
    median = (found[(total - 1) // 2] + found[total // 2]) / 2
    return median, found[max(0, -(-95 * total // 100) - 1)]


def merge_encoded(blobs: list[bytes]) -> dict[int, int]:
    """The sum of many encoded sketches (numpy: a month of daily roll-ups is ~10^5 buckets)."""
    import numpy as np

    data = b"".join(bytes(b) for b in blobs if b)
    if not data:
        return {}
    pairs = np.frombuffer(data, dtype=np.dtype([("i", "<i4"), ("c", "<i8")]))
    indexes, where = np.unique(pairs["i"], return_inverse=True)
    counts = np.zeros(len(indexes), dtype=np.int64)
    np.add.at(counts, where, pairs["c"])
    return {int(i): int(c) for i, c in zip(indexes, counts, strict=True) if c}
