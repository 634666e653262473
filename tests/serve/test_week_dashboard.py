"""A week of transcripts imported with `replay --post` into a real `toolsel serve`, seen on
the dashboard in a real browser: spread over its seven days, not one spike at the time of
import."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path

from tests.conftest import Cli
from tests.render.browser import Browser, browser
from tests.serve.process import running_server
from tests.serve.week import DAYS, day_calls, expected_calls, write_week

__all__ = ["browser"]


def test_an_imported_week_is_spread_over_its_days(
    browser: Browser, cli: Cli, tmp_path: Path
) -> None:
    # each day's calls start 50 minutes before the current hour: never in the future, and
    # never across the hour marks that bound the dashboard's 12-hour buckets
    hour = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    write_week(tmp_path / "week", now=hour - timedelta(minutes=20))
    with running_server(tmp_path) as server:
        url = server.base + "/v1/usage"
        for _ in range(2):  # the second import stores nothing
            posted = cli("replay", "--no-registry", str(tmp_path / "week"), "--post", url)
            assert posted.exit_code == 0, posted.stderr
        calls = sum(expected_calls().values())
        assert posted.stderr.endswith(f": 0 stored, {calls} already there\n")
        watched = browser.open(server.base + "/")
        page = watched.page
        page.wait_for_selector("body[data-ready='1']")
        assert page.eval_on_selector("#window", "s => s.value") == "7d"
        chart = watched.chart("calls-over-time")
        by_name = {series["name"]: series["values"] for series in chart["series"]}
        per_bucket = by_name["calls"]
        assert len(per_bucket) == 14 and sum(per_bucket) == calls
        # seven buckets hold calls, one a day, 24 hours apart, each day's own count
        busy = [i for i, n in enumerate(per_bucket) if n]
        assert [per_bucket[i] for i in busy] == [len(day_calls(day)) for day in range(DAYS)]
        assert {b - a for a, b in pairwise(busy)} == {2}
        errors = [by_name["errors"][i] for i in busy]
        assert errors == [1 if day % 2 == 0 else 0 for day in range(DAYS)]
        assert watched.problems() == []
        assert watched.foreign_requests(server.base + "/") == []
