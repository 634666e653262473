"""A latency sketch: a log-bucket histogram (DDSketch's) whose quantiles are within 1% of
the exact ones, that merges by adding counts and is stored in a few bytes per bucket.

A value x > 0 falls in bucket i = ceil(log_gamma(x)), which holds (gamma^(i-1), gamma^i];
the bucket answers 2 * gamma^i / (gamma + 1), within (gamma - 1) / (gamma + 1) = 1% of every
value in it. Zero (and anything below it) has a bucket of its own, answered exactly as 0.
"""

from __future__ import annotations

import math
import struct
import sys
from array import array
from collections.abc import Iterable, Mapping
from typing import Any

#: Relative accuracy of every quantile.
ACCURACY = 0.01
GAMMA = (1 + ACCURACY) / (1 - ACCURACY)
_LOG_GAMMA = math.log(GAMMA)
#: The bucket of 0 (and of negative values, which latencies never are).
ZERO = -(2**31)
#: Values (ms) outside this range are counted at its ends, so that one absurd latency cannot
#: make a stored sketch large: it spans at most ~2,100 buckets (17 kB).
LOWEST, HIGHEST = 1e-6, 1e12


def bucket(value: float) -> int:
    """The bucket a value falls in."""
    if not value > 0:  # 0, negatives and NaN
        return ZERO
    return math.ceil(math.log(min(max(value, LOWEST), HIGHEST)) / _LOG_GAMMA)


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


#: An encoded sketch starts with its lowest bucket (int32), its count of zeros (int64) and
#: the width of its counts (1 byte: 2, 4 or 8), then the counts (unsigned, that wide) of
#: every bucket from the lowest to the highest; all little-endian. An hour's counts fit in
#: 2 bytes, so a sketch is about 1 kB.
_HEAD = struct.Struct("<iqB")
_TYPES = {2: "H", 4: "I", 8: "Q"}
_NUMPY = {2: "<u2", 4: "<u4", 8: "<u8"}


def _head(data: bytes) -> tuple[int, int, int]:
    low, zeros, width = _HEAD.unpack_from(data)
    return low, zeros, width


def _dense(data: bytes) -> array[int]:
    width = _head(data)[2]
    counts = array(_TYPES[width])
    counts.frombytes(data[_HEAD.size :])
    if sys.byteorder == "big":
        counts.byteswap()
    return array("q", counts)


def _pack(low: int, zeros: int, counts: array[int]) -> bytes:
    top = max(counts, default=0)
    width = 2 if top < 2**16 else 4 if top < 2**32 else 8
    narrow = array(_TYPES[width], counts)
    if sys.byteorder == "big":
        narrow.byteswap()
    return _HEAD.pack(low, zeros, width) + narrow.tobytes()


def _counts_in(data: bytes) -> Any:
    """The dense counts of an encoded sketch, as a numpy array."""
    import numpy as np

    return np.frombuffer(data, _NUMPY[data[_HEAD.size - 1]], offset=_HEAD.size)


def encode(counts: Mapping[int, int]) -> bytes:
    return add_to(None, counts)


def add_to(data: bytes | None, counts: Mapping[int, int]) -> bytes:
    """An encoded sketch plus some counts (a batch's), without decoding it into a dict: the
    write path does this for every tool and hour it touches."""
    low, zeros, _ = _head(data) if data else (0, 0, 8)
    dense = _dense(data) if data else array("q")
    indexes = [i for i in counts if i != ZERO]
    if indexes:
        first, last = min(indexes), max(indexes)
        if not dense:
            low = first
        if first < low:
            dense = array("q", bytes(8 * (low - first))) + dense
            low = first
        if last >= low + len(dense):
            dense.extend(array("q", bytes(8 * (last - low - len(dense) + 1))))
        for index in indexes:
            dense[index - low] += counts[index]
    return _pack(low, zeros + counts.get(ZERO, 0), dense)


def decode(data: bytes | None) -> dict[int, int]:
    if not data:
        return {}
    low, zeros, _ = _head(data)
    found = {low + i: n for i, n in enumerate(_dense(data)) if n}
    if zeros:
        found[ZERO] = zeros
    return found


def quantiles(counts: Mapping[int, int]) -> tuple[float | None, float | None]:
    """(median, nearest-rank 95th percentile), as `statistics.median` and `stats.p95` give
    them on the values (the median of an even count is the mean of the two middle ones),
    each within 1%. (None, None) for an empty sketch."""
    total = sum(counts.values())
    if total <= 0:
        return None, None
    high = max(0, -(-95 * total // 100) - 1)
    found = ranked(counts, {(total - 1) // 2, total // 2, high})
    return (found[(total - 1) // 2] + found[total // 2]) / 2, found[high]


def ranked(counts: Mapping[int, int], ranks: set[int]) -> dict[int, float]:
    """The value of each of `ranks` (the rank-th smallest, from 0), within 1%."""
    found: dict[int, float] = {}
    seen = 0
    for index in sorted(counts):
        seen += counts[index]
        for rank in ranks - found.keys():
            if rank < seen:
                found[rank] = bucket_value(index)
        if len(found) == len(ranks):
            break
    return found


def _summed(parts: list[bytes], counts: Mapping[int, int] | None = None) -> tuple[int, Any, int]:
    """(lowest bucket, dense int64 counts from it, zeros) of encoded sketches added up, and
    of some counts (which may be negative: a part taken away from a stored sketch)."""
    import numpy as np

    extra = {i: n for i, n in (counts or {}).items() if i != ZERO and n}
    heads = [_head(p) for p in parts]
    arrays = [_counts_in(p) for p in parts]
    spans = [(low, low + len(c)) for (low, _, _), c in zip(heads, arrays, strict=True) if len(c)]
    spans.extend((i, i + 1) for i in extra)
    first = min((low for low, _ in spans), default=0)
    dense = np.zeros(max((end for _, end in spans), default=first) - first, np.int64)
    for (low, _, _), part in zip(heads, arrays, strict=True):
        if len(part):
            dense[low - first : low - first + len(part)] += part
    for index, count in extra.items():
        dense[index - first] += count
    zeros = sum(z for _, z, _ in heads) + (counts or {}).get(ZERO, 0)
    return first, dense, zeros


def stored_quantiles(
    blobs: list[bytes], counts: Mapping[int, int] | None = None
) -> tuple[float | None, float | None]:
    """`quantiles` of encoded sketches plus some counts, summed in numpy (a month of daily
    roll-ups and the edges of a window, without building a dict of every bucket)."""
    import numpy as np

    first, dense, zeros = _summed([bytes(b) for b in blobs if b], counts)
    total = zeros + int(dense.sum())
    if total <= 0:
        return None, None
    cumulative = np.cumsum(dense)

    def at_rank(rank: int) -> float:  # the value of the rank-th smallest (from 0)
        if rank < zeros:
            return 0.0
        return bucket_value(first + int(np.searchsorted(cumulative, rank - zeros + 1)))

    median = (at_rank((total - 1) // 2) + at_rank(total // 2)) / 2
    return median, at_rank(max(0, -(-95 * total // 100) - 1))
