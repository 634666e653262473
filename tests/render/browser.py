"""Headless Chromium for the HTML tests (Debian's `chromium`, driven by Playwright): a page
that records console messages, page errors, dialogs and every request it makes. The tests
skip, saying why, where Playwright or a browser is missing; CI installs both."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

#: Flags for a browser that stays off the network (no updates, no sync, no QUIC probes).
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")


def chromium_path() -> str | None:
    chosen = os.environ.get("TOOLSEL_CHROMIUM")
    if chosen:
        return chosen
    for candidate in CANDIDATES:
        if Path(candidate).exists():
            return candidate
    return shutil.which("chromium")


@dataclass
class Watched:
    """A page and what happened on it."""

    page: Any
    console: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        bad = [m for m in self.console if m.startswith(("error", "warning"))]
        return bad + self.errors + [f"dialog: {d}" for d in self.dialogs]

    def foreign_requests(self, allowed_prefix: str) -> list[str]:
        return [r for r in self.requests if not r.startswith((allowed_prefix, "data:"))]

    def chart(self, key: str) -> dict[str, Any]:
        """What the chart `data-chart=KEY` draws, as Chart.js holds it: labels, and each
        series' name and values."""
        data: dict[str, Any] = self.page.eval_on_selector(
            f"[data-chart={key}] canvas",
            "canvas => { const c = Chart.getChart(canvas); return {labels: c.data.labels,"
            " series: c.data.datasets.map(d => ({name: d.label, values: d.data}))}; }",
        )
        return data


class Browser:
    def __init__(self, browser: Any) -> None:
        self.browser = browser

    def open(self, url: str, *, width: int = 1280, scheme: str = "light") -> Watched:
        page = self.browser.new_page(viewport={"width": width, "height": 900}, color_scheme=scheme)
        watched = Watched(page)
        page.on("console", lambda m: watched.console.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: watched.errors.append(f"pageerror: {e}"))

        def dialog(d: Any) -> None:
            watched.dialogs.append(d.message)
            d.dismiss()

        page.on("dialog", dialog)
        page.on("request", lambda r: watched.requests.append(r.url))
        page.goto(url)
        page.wait_for_selector("body[data-ready]", timeout=30_000)
        return watched


def _missing(reason: str) -> None:
    """Skip, saying why; CI (TOOLSEL_REQUIRE_BROWSER=1, set by .ci/run) fails instead."""
    if os.environ.get("TOOLSEL_REQUIRE_BROWSER") == "1":
        pytest.fail(f"TOOLSEL_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    try:
        from playwright import sync_api
    except ImportError:
        _missing("no Playwright: pip install 'toolsel[test]'")
    path = chromium_path()
    if path is None:
        _missing("no Chromium to drive: apt-get install chromium (.ci/run does)")
        return
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=path, args=ARGS)
        try:
            yield Browser(launched)
        finally:
            launched.close()


def screenshots(browser: Browser, url: str, folder: Path, name: str) -> list[Path]:
    """The page at 1280 and 390 pixels wide, light and dark: one PNG each."""
    taken = []
    for width in (1280, 390):
        for scheme in ("light", "dark"):
            watched = browser.open(url, width=width, scheme=scheme)
            path = folder / f"{name}-{width}-{scheme}.png"
            watched.page.screenshot(path=str(path))
            assert not watched.problems(), watched.problems()
            watched.page.close()
            taken.append(path)
    return taken
