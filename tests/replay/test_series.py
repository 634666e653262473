"""Usage over time from transcript events (`toolsel.replay.series`): what
`stats --format html` charts when it reads transcripts."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import ROOT
from toolsel.replay.driver import replay_paths
from toolsel.replay.report import ToolEvent
from toolsel.replay.series import SeriesRecorder
from toolsel.replay.totals import usage_stats
from toolsel.timeparse import epoch_seconds, parse_iso

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def at(seconds: float) -> str:
    return (START + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def start(
    ident: str, tool: str, when: str | None, *, file: str = "a", copied: bool = False
) -> ToolEvent:
    return ToolEvent(
        event="tool_start", id=ident, tool=tool, parent=None, parent_rule=None, turn_id=None,
        file=file, line=1, copied=copied, at=when,
    )  # fmt: skip


def result(
    ident: str, *, error: bool = False, latency: float | None = None, file: str = "a"
) -> ToolEvent:
    return ToolEvent(
        event="tool_result", id=ident, tool=None, parent=None, parent_rule=None, turn_id=None,
        file=file, line=2, is_error=error, latency_ms=latency,
    )  # fmt: skip


def totals(series: tuple[tuple[str, object], ...]) -> dict[str, tuple[int, int, int]]:
    out: dict[str, tuple[int, int, int]] = {}
    for _, stats in series:
        for t in stats.tools:  # type: ignore[attr-defined]
            c, a, e = out.get(t.name, (0, 0, 0))
            out[t.name] = (c + t.calls, a + t.answered, e + t.errors)
    return out


def test_a_call_counts_in_the_slice_of_its_start_with_its_result() -> None:
    recorder = SeriesRecorder()
    recorder(start("1", "grep", at(0)))
    recorder(start("2", "edit", at(600)))
    recorder(result("1", error=True, latency=1500.0))
    recorder(result("2"))
    series = recorder.finish()
    assert series[0][0] == "2026-03-01T12:00:00Z"
    first = {t.name: t for t in series[0][1].tools}
    assert first["grep"].calls == 1 and first["grep"].errors == 1
    assert first["grep"].median_latency_s is not None
    assert abs(first["grep"].median_latency_s - 1.5) <= 0.015  # the sketch: within 1%
    last = {t.name: t for t in series[-1][1].tools}
    assert last["edit"].calls == 1 and last["edit"].answered == 1 and last["edit"].errors == 0
    assert len(series) <= 14
    # slices are equal and contiguous
    starts = [epoch_seconds(t) for t, _ in series]
    steps = {b - a for a, b in itertools.pairwise(starts)}  # type: ignore[operator]
    assert len(steps) == 1


def test_an_enriched_call_copies_and_calls_without_a_time_are_not_charted() -> None:
    recorder = SeriesRecorder()
    recorder(start("1", "grep", at(0)))
    recorder(start("1", "grep", at(0)))  # announced again with its full input
    recorder(start("2", "grep", at(5), copied=True))
    recorder(start("3", "grep", None))
    recorder(start("4", "grep", "not a time"))
    recorder(result("3", error=True))
    recorder(result("9"))  # an orphan result
    assert totals(recorder.finish()) == {"grep": (1, 0, 0)}
    assert recorder.untimed == 2


def test_no_time_at_all_gives_no_series() -> None:
    recorder = SeriesRecorder()
    recorder(start("1", "grep", None))
    assert recorder.finish() == ()


def test_the_same_id_in_two_files_is_two_calls() -> None:
    recorder = SeriesRecorder()
    recorder(start("1", "grep", at(0), file="a"))
    recorder(start("1", "grep", at(1), file="b"))
    recorder(result("1", file="b", error=True))
    series = recorder.finish()
    assert totals(series) == {"grep": (2, 1, 1)}
    assert sum(s.transcripts for _, s in series) == 2


calls = st.lists(
    st.tuples(
        st.integers(0, 400 * 86400),  # seconds after START: up to 400 days
        st.sampled_from(["grep", "edit", "bash"]),
        st.sampled_from([None, False, True]),  # no result, ok, error
    ),
    max_size=60,
)


@given(calls, st.integers(1, 8))
def test_sums_over_time_are_kept_whatever_the_unit(
    drawn: list[tuple[int, str, bool | None]], max_buckets: int
) -> None:
    """Merging seconds into minutes, hours and days (as memory runs out) loses no call."""
    recorder = SeriesRecorder(max_buckets=max_buckets)
    for n, (when, tool, _) in enumerate(drawn):
        recorder(start(str(n), tool, at(when)))
    for n, (_, _, outcome) in enumerate(drawn):
        if outcome is not None:
            recorder(result(str(n), error=outcome))
    expected: dict[str, tuple[int, int, int]] = {}
    for _, tool, outcome in drawn:
        c, a, e = expected.get(tool, (0, 0, 0))
        expected[tool] = (c + 1, a + (outcome is not None), e + (outcome is True))
    series = recorder.finish()
    assert totals(series) == expected
    assert len(series) <= 14
    if drawn:
        first = epoch_seconds(series[0][0])
        assert first is not None and first <= min(epoch_seconds(at(w)) or 0 for w, _, _ in drawn)


def test_on_the_bundled_transcripts_the_series_adds_up_to_the_statistics() -> None:
    recorder = SeriesRecorder()
    stats = usage_stats(replay_paths([str(ROOT / "transcripts")], on_event=recorder))
    charted = totals(recorder.finish())
    whole = {t.name: t.calls for t in stats.tools}
    assert charted  # the bundled transcripts carry times
    assert sum(c for c, _, _ in charted.values()) + recorder.untimed == sum(whole.values())
    for name, (c, _, _) in charted.items():
        assert c <= whole[name]


def test_percentiles_per_slice_come_from_every_latency_in_it() -> None:
    """Found by mutation testing: one latency per slice could not tell a median from a p95."""
    recorder = SeriesRecorder()
    for n in range(100):  # 1..100 ms, all in one second, in two files
        file = "a" if n % 2 else "b"
        recorder(start(str(n), "grep", at(0), file=file))
        recorder(result(str(n), latency=float(n + 1), file=file))
    recorder(start("x", "edit", at(0)))
    ((when, stats),) = recorder.finish()
    assert when == "2026-03-01T12:00:00Z"
    grep, edit = stats.tools  # most calls first
    assert (grep.name, grep.calls, grep.answered, grep.transcripts) == ("grep", 100, 100, 2)
    assert (edit.name, edit.calls, edit.median_latency_s, edit.p95_latency_s) == (
        "edit",
        1,
        None,
        None,
    )
    assert grep.median_latency_s is not None and grep.p95_latency_s is not None
    assert abs(grep.median_latency_s - 0.050) <= 0.0006  # nearest rank 50 of 100, within 1%
    assert abs(grep.p95_latency_s - 0.095) <= 0.001  # nearest rank 95 of 100
    assert stats.transcripts == 2 and stats.co_used_pairs == () and stats.never_called is None


def test_times_without_a_zone_are_utc_and_offsets_count() -> None:
    utc = epoch_seconds("2026-03-01T12:00:00Z")
    assert epoch_seconds("2026-03-01T12:00:00") == utc
    assert epoch_seconds("2026-03-01T14:00:00+02:00") == utc
    assert epoch_seconds("yesterday") is None and epoch_seconds(None) is None


@pytest.mark.parametrize(
    "text",
    ["2026-03-01T12:00:00.250Z", "2026-03-01T12:00:00", "2026-03-01T14:00+02:00", "2026-03-01Z"],
)
def test_a_transcripts_time_is_read_as_every_other_time(text: str) -> None:
    assert epoch_seconds(text) == parse_iso(text).timestamp()


def test_a_time_not_read_is_named_as_rewritten() -> None:
    with pytest.raises(ValueError, match=r"'2026-01-01T00:00\+00:00x'"):
        parse_iso("2026-01-01T00:00Zx")  # as `serve` has always said it


def test_a_z_between_the_date_and_the_time_is_not_a_time() -> None:
    with pytest.raises(ValueError):
        parse_iso("2026-01-05Z10:11:12")  # Python 3.11 alone would take `Z` as the separator
    assert epoch_seconds("2026-01-05Z10:11:12") is None


def test_slices_start_at_the_first_calls_second_and_end_after_the_last() -> None:
    recorder = SeriesRecorder()
    recorder(start("1", "grep", at(5)))
    recorder(start("2", "grep", at(33)))
    series = recorder.finish()
    assert series[0][0] == "2026-03-01T12:00:05Z"  # seconds first: no rounding to the minute
    starts = [epoch_seconds(t) for t, _ in series]
    step = starts[1] - starts[0]  # type: ignore[operator]
    assert starts[-1] <= epoch_seconds(at(33)) < starts[-1] + step  # type: ignore[operator]
    assert [sum(t.calls for t in s.tools) for _, s in series].count(1) == 2


def test_past_its_budget_the_recorder_merges_into_coarser_units_up_to_days() -> None:
    recorder = SeriesRecorder(max_buckets=1)
    for n, day in enumerate((0, 3, 9)):  # three days apart: seconds, minutes, hours all too fine
        recorder(start(str(n), "grep", at(day * 86400 + 3600 * n + 7)))
    assert recorder.unit == 3  # days, the coarsest
    assert len(recorder.sums) == 3  # one per day: days are never merged further
    assert sum(s.calls for s in recorder.sums.values()) == 3


def test_a_slice_merging_two_files_counts_both() -> None:
    recorder = SeriesRecorder()
    recorder(start("1", "grep", at(0), file="a"))
    recorder(start("2", "grep", at(1), file="b"))  # the same 2-second slice, another file
    recorder(start("3", "grep", at(27), file="a"))
    first = recorder.finish()[0][1]
    assert first.tools[0].calls == 2 and first.tools[0].transcripts == 2
