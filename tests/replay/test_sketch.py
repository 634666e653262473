"""The latency sketch: quantiles within 1% of the exact ones, lossless storage and merging."""

from __future__ import annotations

import statistics

from hypothesis import given, settings
from hypothesis import strategies as st

from toolsel.replay.sketch import (
    ACCURACY,
    ZERO,
    add,
    bucket,
    bucket_value,
    decode,
    encode,
    merge,
    quantiles,
    stored_quantiles,
)
from toolsel.replay.stats import p95

LATENCIES = st.lists(
    st.one_of(st.just(0.0), st.floats(1e-6, 1e9), st.integers(0, 100_000).map(float)),
    min_size=1,
    max_size=300,
)


def within(got: float | None, want: float | None) -> bool:
    if got is None or want is None:
        return got is want
    return abs(got - want) <= ACCURACY * want + 1e-12


@settings(max_examples=300)
@given(LATENCIES)
def test_median_and_p95_are_within_one_percent(values: list[float]) -> None:
    counts: dict[int, int] = {}
    add(counts, values)
    median, high = quantiles(counts)
    assert within(median, statistics.median(values))
    assert within(high, p95(values))


@given(st.floats(1e-6, 1e12))
def test_every_value_is_answered_within_one_percent(value: float) -> None:
    assert within(bucket_value(bucket(value)), value)


def test_absurd_values_are_counted_at_the_ends_so_sketches_stay_small() -> None:
    counts: dict[int, int] = {}
    add(counts, [1e-300, 5e-324, 1e300, float("inf"), 1.0])
    assert within(bucket_value(bucket(1e-300)), 1e-6) and within(bucket_value(bucket(1e300)), 1e12)
    assert len(encode(counts)) < 20_000


def test_zero_has_its_own_bucket_and_an_empty_sketch_no_quantiles() -> None:
    assert bucket(0.0) == bucket(-1.0) == ZERO and bucket_value(ZERO) == 0.0
    assert quantiles({}) == (None, None)
    assert quantiles({ZERO: 3}) == (0.0, 0.0)


@given(st.lists(LATENCIES, max_size=6))
def test_sketches_are_stored_and_merged_without_loss(parts: list[list[float]]) -> None:
    sketches = []
    for values in parts:
        counts: dict[int, int] = {}
        add(counts, values)
        assert decode(encode(counts)) == counts
        sketches.append(counts)
    merged: dict[int, int] = {}
    for counts in sketches:
        merge(merged, counts)
    assert stored_quantiles([encode(c) for c in sketches]) == quantiles(merged)
    everything: dict[int, int] = {}
    add(everything, [v for values in parts for v in values])
    assert merged == everything
    for counts in sketches:  # taking a part away again (pruning an hour from its day)
        merge(merged, counts, -1)
    assert merged == {}


def test_bucket_edges_are_answered_within_one_percent() -> None:
    """A value on a bucket's edge (a power of gamma) must not round into the next bucket."""
    from toolsel.replay.sketch import GAMMA

    for power in range(-689, 1382):  # 1e-6 to 1e12
        value = GAMMA**power
        assert abs(bucket_value(bucket(value)) - value) <= ACCURACY * value * (1 + 1e-9)


@given(st.lists(LATENCIES, max_size=5), st.lists(st.floats(0, 1e6), max_size=20))
def test_stored_sketches_give_the_same_quantiles(
    parts: list[list[float]], loose: list[float]
) -> None:

    blobs = []
    for values in parts:
        counts: dict[int, int] = {}
        add(counts, values)
        blobs.append(encode(counts))
    extra: dict[int, int] = {}
    add(extra, loose)
    everything: dict[int, int] = {}
    add(everything, [v for values in parts for v in values] + loose)
    assert stored_quantiles(blobs, extra) == quantiles(everything)
