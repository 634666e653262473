"""The dashboard in a real browser, against a real `toolsel serve` with a token: it asks
for the token, then shows the numbers `/v1/analytics` gives, and a tool filter redraws the
charts over time; no request leaves the server's origin, and no console error."""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.render.browser import Browser, browser
from tests.serve.process import running_server

__all__ = ["browser"]

TOKEN = "dashb0ard-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _records() -> list[dict[str, Any]]:
    now = datetime.now(UTC).replace(microsecond=0)
    records = []
    for n in range(60):
        at = now - timedelta(hours=n % 30, minutes=n)
        tool = ("read_file", "run_tests", "search_code")[n % 3]
        records.append({"tool": tool, "ok": n % 7 != 0, "latency_ms": 20 + 13 * (n % 11),
                        "session": f"s{n % 4}", "at": at.isoformat().replace("+00:00", "Z"),
                        "id": f"r{n}"})  # fmt: skip
    return records


def number(text: str) -> int:
    return int(text.replace(",", ""))


def test_the_dashboard_asks_for_the_token_then_shows_the_analytics(
    browser: Browser, tmp_path: Path
) -> None:
    with running_server(tmp_path, "--token", TOKEN) as server:
        status, stored = server.request("/v1/usage", {"records": _records()}, AUTH)
        assert status == 200, stored
        status, analytics = server.request("/v1/analytics", None, AUTH)
        assert status == 200
        watched = browser.open(server.base + "/")
        page = watched.page
        assert page.get_attribute("body", "data-ready") == "login"
        # one request asked whether a token is needed: the browser logs its 401, nothing else
        assert len(watched.problems()) == 1 and "401" in watched.problems()[0]
        watched.console.clear()
        page.fill("#token", TOKEN)
        page.click("#login button")
        page.wait_for_selector("body[data-ready='1']")
        readiness = page.inner_text("#readiness")
        assert "ready" in readiness and "last reload 20" in readiness
        shown = page.eval_on_selector_all(
            "#stats-tools tbody tr",
            "rows => rows.map(r => [r.dataset.tool, r.querySelector('[data-key=calls]').textContent,"
            " r.querySelector('[data-key=errors]').textContent])",
        )
        expected = {name: (t["calls"], t["errors"]) for name, t in analytics["tools"].items()}  # type: ignore[index]
        assert {name: (number(c), number(e)) for name, c, e in shown} == expected
        total = sum(calls for calls, _ in expected.values())
        assert number(page.inner_text("#stats-summary [data-key=calls]")) == total
        # the tool filter redraws the charts over time with that tool's calls only
        page.select_option("#series-tool", "run_tests")
        dots = watched.chart("calls-over-time")["series"][0]["values"]
        assert sum(dots) == expected["run_tests"][0]
        assert watched.problems() == []
        assert watched.foreign_requests(server.base + "/") == []
        keep = os.environ.get("TOOLSEL_SCREENSHOTS")
        page.select_option("#series-tool", "")
        for width in (1280, 390):
            for scheme in ("light", "dark"):
                page.set_viewport_size({"width": width, "height": 900})
                page.emulate_media(color_scheme=scheme)
                page.wait_for_timeout(400)  # the charts redraw at the new width
                path = tmp_path / f"dashboard-{width}-{scheme}.png"
                page.screenshot(path=str(path))
                if keep:
                    shutil.copy(path, Path(keep) / path.name)
        assert watched.problems() == []
