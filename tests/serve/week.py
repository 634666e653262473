"""A generated week of Claude Code sessions: one a day, ending now, day `d` (0 = six days
ago) with `d + 1` calls of `read_file` and one of `run_tests` that fails on even days, each
call answered 2 s later; and a resumed copy of the last session (its calls repeated, as
Claude Code copies them), which must not count twice."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

DAYS = 7


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def day_calls(day: int) -> list[tuple[str, bool]]:
    """(tool, failed) of each call on day `day`."""
    return [("read_file", False)] * (day + 1) + [("run_tests", day % 2 == 0)]


def session_lines(day: int, start: datetime) -> list[dict[str, Any]]:
    session = f"week-{day}"
    lines: list[dict[str, Any]] = []
    for number, (tool, failed) in enumerate(day_calls(day)):
        at = start + timedelta(minutes=number)
        call = f"toolu_{day}_{number}"
        lines.append({
            "type": "assistant", "uuid": f"a{day}-{number}", "sessionId": session,
            "timestamp": stamp(at),
            "message": {"role": "assistant", "id": f"msg_{day}_{number}", "content": [
                {"type": "tool_use", "id": call, "name": tool, "input": {}}]},
        })  # fmt: skip
        lines.append({
            "type": "user", "uuid": f"u{day}-{number}", "sessionId": session,
            "timestamp": stamp(at + timedelta(seconds=2)),
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": call, "content": "x", "is_error": failed}]},
        })  # fmt: skip
    return lines


def write_week(folder: Path, now: datetime | None = None) -> datetime:
    """Write the week into `folder`; the first day's start (UTC)."""
    now = now or datetime.now(UTC)
    # each day's calls start 30 minutes before this time of day, so none is in the future
    first = (now - timedelta(days=DAYS - 1, minutes=30)).replace(second=0, microsecond=0)
    folder.mkdir(parents=True, exist_ok=True)
    for day in range(DAYS):
        lines = session_lines(day, first + timedelta(days=day))
        text = "".join(json.dumps(line) + "\n" for line in lines)
        (folder / f"day-{day}.jsonl").write_text(text, encoding="utf-8")
        if day == DAYS - 1:  # resumed: the same session's calls again, in a later file
            (folder / "z-resumed.jsonl").write_text(text, encoding="utf-8")
    return first


def expected_calls() -> dict[str, int]:
    """Calls per tool over the week (the resumed copy not counted)."""
    counts: dict[str, int] = {}
    for day in range(DAYS):
        for tool, _ in day_calls(day):
            counts[tool] = counts.get(tool, 0) + 1
    return counts
