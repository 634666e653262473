"""Every time toolsel reads or writes: ISO 8601 text, POSIX seconds, ages (`7d`).

A time without a zone is UTC, as transcripts write theirs. Written times are UTC with a `Z`.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime

_AGE = re.compile(r"(\d{1,9})([smhdw])")
#: The date an ISO 8601 time starts with (`2026-01-31`, `20260131`, `2026-W05-6`).
_DATE = re.compile(r"\d{4}-?(?:\d{2}-?\d{2}|W\d{2}(?:-?\d)?)")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
fromisoformat = datetime.fromisoformat  # 3.11: "Z" is UTC


def is_age(text: str) -> bool:
    """Whether `text` is an age (`7d`), not a date."""
    return _AGE.fullmatch(text.strip()) is not None


def parse_time(text: str, *, now: float | None = None) -> float:
    """A POSIX time from `2026-01-31`, `2026-01-31T12:00:00Z`, `2026-01-31 12:00+02:00`,
    or an age before `now`: `90s`, `30m`, `12h`, `7d`, `2w`. ValueError says why not."""
    value = text.strip()
    age = _AGE.fullmatch(value)
    if age:
        current = time.time() if now is None else now
        return current - int(age.group(1)) * _SECONDS[age.group(2)]
    try:
        return parse_iso(value.replace("z", "Z")).timestamp()
    except NotSeparated:
        raise
    except ValueError:
        raise ValueError(
            f"{text!r} is not an ISO 8601 date or time, nor an age such as 7d or 12h"
        ) from None


class NotSeparated(ValueError):
    """A date followed by something other than its time after a T or a space, or a Z."""


def parse_iso(text: str) -> datetime:
    """An ISO 8601 time (`Z` or an offset; none: UTC) as an aware datetime; ValueError if
    it is not one. (`Z` is written `+00:00` first: Python 3.11 reads any character between
    the date and the time as the separator, `Z` too; anything else there is refused:
    `2026-01-05+05:00` would be 05:00 UTC, `NotSeparated` says so.)"""
    if text[10:11] not in "Tt ":  # not `2026-01-31T...` nor a date alone: look closer
        _separated(text)
    parsed = fromisoformat(text.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _separated(text: str) -> None:
    after = _DATE.match(text)
    rest = text[after.end() :] if after else ""
    if rest and rest != "Z" and rest[0] not in "Tt 0123456789":
        date = text[: len(text) - len(rest)]
        hint = f" (for an offset, give a time: {date}T00:00{rest})" if rest[0] in "+-" else ""
        raise NotSeparated(f"{text!r}: a date is followed by its time after a T or a space{hint}")


def epoch_seconds(timestamp: str | None) -> float | None:
    """A transcript's ISO 8601 timestamp (`parse_iso`) as a POSIX time; None when there is
    none or it cannot be read."""
    if not timestamp:
        return None
    try:
        return parse_iso(timestamp).timestamp()
    except (ValueError, TypeError):
        return None


def seconds_between(start: str | None, end: str | None) -> float | None:
    """Seconds from one ISO 8601 timestamp to another (never negative); None without both,
    or when they cannot be compared. Each is read as written, not by `parse_iso`: a time
    with no zone is not compared with one with a zone (as `replay.matcher`, inline)."""
    if start is None or end is None:
        return None
    if start == end:
        return 0.0
    try:
        seconds = (fromisoformat(end) - fromisoformat(start)).total_seconds()
    except (ValueError, TypeError):  # TypeError: one has a zone and the other not
        return None
    return seconds if seconds > 0.0 else 0.0


def iso(moment: datetime | float, timespec: str = "milliseconds") -> str:
    """A datetime or POSIX time as ISO 8601 UTC (`2026-01-31T12:00:00.000Z`)."""
    if not isinstance(moment, datetime):
        moment = datetime.fromtimestamp(moment, UTC)
    return moment.isoformat(timespec=timespec).replace("+00:00", "Z")


def iso_from_milliseconds(milliseconds: int) -> str | None:
    """Milliseconds since the epoch as ISO 8601 with its offset (`+00:00`), as Cursor's
    stream-json times are read; None outside the years datetime holds."""
    try:
        return datetime.fromtimestamp(milliseconds / 1000, UTC).isoformat()
    except (OverflowError, OSError, ValueError):
        return None
