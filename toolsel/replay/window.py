"""`--since` and `--until`: times given as ISO 8601 dates or times, or as an age (`7d`).

A time without a zone is UTC, as transcripts write theirs. Files last modified before
`--since` are skipped before they are opened; `stats` also counts only the calls whose own
timestamp falls in the window (`CallWindow`).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime

_AGE = re.compile(r"(\d{1,9})([smhdw])")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


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
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"{text!r} is not an ISO 8601 date or time, nor an age such as 7d or 12h"
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def iso(moment: float) -> str:
    """A POSIX time as ISO 8601 UTC, to the millisecond (`2026-01-31T12:00:00.000Z`)."""
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


@dataclass(frozen=True, slots=True)
class CallWindow:
    """The calls counted: those at or after `since` and before `until` (POSIX times, or
    None for no bound). A call with no timestamp, or one that cannot be read, is counted:
    nothing places it outside."""

    since: float | None = None
    until: float | None = None

    def __call__(self, timestamp: str | None) -> bool:
        if timestamp is None:
            return True
        try:
            at = datetime.fromisoformat(timestamp)  # 3.11: "Z" is UTC
        except (ValueError, TypeError):
            return True
        moment = (at if at.tzinfo is not None else at.replace(tzinfo=UTC)).timestamp()
        return (self.since is None or moment >= self.since) and (
            self.until is None or moment < self.until
        )
