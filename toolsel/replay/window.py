"""`--since` and `--until`: which calls `stats` counts (times are read by `toolsel.timeparse`).

Files last modified before `--since` are skipped before they are opened; `stats` also
counts only the calls whose own timestamp falls in the window (`CallWindow`).
"""

from __future__ import annotations

from dataclasses import dataclass

from toolsel.timeparse import epoch_seconds


@dataclass(frozen=True, slots=True)
class CallWindow:
    """The calls counted: those at or after `since` and before `until` (POSIX times, or
    None for no bound). A call with no timestamp, or one that cannot be read, is counted:
    nothing places it outside."""

    since: float | None = None
    until: float | None = None

    def __call__(self, timestamp: str | None) -> bool:
        moment = epoch_seconds(timestamp)
        if moment is None:
            return True
        return (self.since is None or moment >= self.since) and (
            self.until is None or moment < self.until
        )
