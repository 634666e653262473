"""Usage totals: latencies taken back by value."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolsel.replay.stats import _without

LATENCIES = st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.25, 3.0, 1e-6, 7200.0]), max_size=30)


@given(values=LATENCIES, chosen=st.data())
def test_latencies_taken_back_leave_the_rest(values: list[float], chosen: st.DataObject) -> None:
    """One of each value taken (equal values included) goes; the others stay."""
    taken = (
        chosen.draw(st.lists(st.sampled_from(range(len(values))), unique=True)) if values else []
    )
    left = list(values)
    for index in sorted(taken, reverse=True):
        del left[index]
    assert sorted(_without(values, [values[i] for i in taken])) == sorted(left)


def test_nothing_taken_is_the_values_themselves() -> None:
    values = [1.0, 2.0]
    assert _without(values, None) is values and _without(values, []) is values
