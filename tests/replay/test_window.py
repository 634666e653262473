"""--since and --until: dates, times and ages; the calls a window counts."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from toolsel.replay.window import CallWindow
from toolsel.timeparse import NotSeparated, epoch_seconds, is_age, iso, parse_iso, parse_time

JAN = datetime(2026, 1, 31, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-01-31", JAN),
        ("2026-01-31T00:00:00Z", JAN),
        ("2026-01-31T02:00:00+02:00", JAN),
        (" 2026-01-31 00:00 ", JAN),
        ("7d", 1_000_000.0 - 7 * 86400),
        ("12h", 1_000_000.0 - 12 * 3600),
        ("30m", 1_000_000.0 - 1800),
        ("90s", 1_000_000.0 - 90),
        ("2w", 1_000_000.0 - 14 * 86400),
    ],
)
def test_dates_times_and_ages(text: str, expected: float) -> None:
    assert parse_time(text, now=1_000_000.0) == expected


@pytest.mark.parametrize(
    "text", ["yesterday", "7 days", "-7d", "2026-13-01", "", "7y", "12345678901"]
)
def test_anything_else_says_what_is_expected(text: str) -> None:
    with pytest.raises(ValueError, match="ISO 8601 date or time, nor an age such as 7d"):
        parse_time(text)


@pytest.mark.parametrize("text", ["2026-01-05+05:00", "2026-01-05-05:00"])
def test_a_date_then_an_offset_is_not_read_as_a_time_of_day(text: str) -> None:
    """Python 3.11 reads any character after the date as the separator: `+05:00` would be
    05:00 UTC. The message shows the time with its offset."""
    with pytest.raises(
        ValueError, match=r"after a T or a space \(for an offset, give a time: 2026-01-05T00:00"
    ):
        parse_time(text)
    assert parse_time("2026-01-05T00:00+05:00") == parse_time("2026-01-04T19:00Z")
    with pytest.raises(ValueError, match=r"after a T or a space$"):
        parse_time("2026-01-05x10:00")  # 10:00 to Python 3.11
    assert parse_time("2026-01-31Z") == parse_time("2026-01-31z") == JAN  # midnight UTC, as before


def test_every_reader_of_times_refuses_a_date_then_an_offset() -> None:
    """The check is `parse_iso`'s, so a transcript's time and a stored record's are not
    misread either (05:00 UTC), nor is a date then `Z` refused (midnight UTC)."""
    from toolsel.serve.store import stored_time

    with pytest.raises(NotSeparated, match="give a time: 2026-01-05T00:00\\+05:00"):
        parse_iso("2026-01-05+05:00")
    assert epoch_seconds("2026-01-05+05:00") is None
    with pytest.raises(ValueError, match=r"not an ISO 8601 time .*after a T or a space"):
        stored_time("2026-01-05+05:00")
    assert parse_iso("2026-01-05Z") == parse_iso("2026-01-05T00:00:00+00:00")
    assert parse_iso("20260105T050000Z") == parse_iso("2026-01-05T05:00Z")


@pytest.mark.parametrize(
    "text", ["2026-01-05" + "+" * 1_000_000, "2026-01-05\x1b[31m", "\x00" * 1000, "9" * 1_000_000]
)
def test_a_huge_or_hostile_time_is_refused_with_its_text_escaped(text: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse_time(text)
    assert "\x1b" not in str(refused.value) and "\x00" not in str(refused.value)


def test_ages_and_iso() -> None:
    assert is_age("7d") and not is_age("2026-01-31")
    assert iso(JAN) == "2026-01-31T00:00:00.000Z"


def test_a_window_counts_calls_by_their_own_time() -> None:
    window = CallWindow(since=JAN, until=JAN + 3600)
    assert window("2026-01-31T00:00:00.000Z")
    assert window("2026-01-31T00:59:59Z")
    assert not window("2026-01-31T01:00:00Z")  # until is exclusive
    assert not window("2026-01-30T23:59:59Z")
    assert window("2026-01-31T00:30:00")  # no zone: UTC
    assert window(None) and window("not a time")  # nothing places it outside
    assert CallWindow()("1999-01-01T00:00:00Z")
