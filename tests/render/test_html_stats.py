"""`toolsel stats --format html` in a real browser: the dashboard's charts as a file, with
the numbers of `--format json`; from a usage store, the charts over time follow the tool
filter."""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli
from tests.render.browser import Browser, browser, screenshots

__all__ = ["browser"]


def number(text: str) -> int:
    return int(text.replace(",", ""))


def test_the_charts_and_tables_show_the_json_numbers(
    browser: Browser, cli: Cli, tmp_path: Path
) -> None:
    args = ("stats", str(ROOT / "transcripts"), "-r", str(ROOT / "registries"))
    out = tmp_path / "stats.html"
    assert cli(*args, "--format", "html", "-o", str(out)).exit_code == 0
    payload = json.loads(cli(*args, "--format", "json").stdout)
    watched = browser.open(out.as_uri())
    page = watched.page
    shown = page.eval_on_selector_all(
        "#stats-tools tbody tr",
        "rows => rows.map(r => [r.dataset.tool, r.querySelector('[data-key=calls]').textContent,"
        " r.querySelector('[data-key=errors]').textContent])",
    )
    expected = {name: (t["calls"], t["errors"]) for name, t in payload["tools"].items()}
    assert {name: (number(c), number(e)) for name, c, e in shown} == expected
    bars = watched.chart("calls")
    # most called first, then by name (the JSON output sorts its keys)
    top = sorted(payload["tools"].items(), key=lambda item: (-item[1]["calls"], item[0]))[:20]
    assert bars["labels"] == [name for name, _ in top]
    assert bars["series"][0] == {"name": "calls", "values": [t["calls"] for _, t in top]}
    assert bars["series"][1] == {"name": "errors", "values": [t["errors"] for _, t in top]}
    never = page.eval_on_selector_all("#never-used .pill", "pills => pills.map(p => p.textContent)")
    assert never == payload["never_called"]
    assert watched.problems() == []
    assert watched.foreign_requests("file://") == []
    taken = screenshots(browser, out.as_uri(), tmp_path, "stats")
    keep = os.environ.get("TOOLSEL_SCREENSHOTS")
    if keep:
        for path in taken:
            shutil.copy(path, Path(keep) / path.name)


def test_from_transcripts_the_charts_over_time_add_up_to_the_json_numbers(
    browser: Browser, cli: Cli, tmp_path: Path
) -> None:
    """Each call counts at its own timestamp; a tool's points add up to its calls."""
    from toolsel.replay.driver import replay_paths
    from toolsel.replay.series import SeriesRecorder

    args = ("stats", str(ROOT / "transcripts"))
    out = tmp_path / "stats.html"
    assert cli(*args, "--format", "html", "-o", str(out)).exit_code == 0
    payload = json.loads(cli(*args, "--format", "json").stdout)
    recorder = SeriesRecorder()
    replay_paths([str(ROOT / "transcripts")], on_event=recorder)
    page = (watched := browser.open(out.as_uri())).page
    everything = watched.chart("calls-over-time")["series"][0]["values"]
    total = sum(t["calls"] for t in payload["tools"].values())
    assert sum(everything) == total - recorder.untimed
    assert 1 < len(everything) <= 14
    if recorder.untimed:  # said on the page, not lost silently
        assert f"{recorder.untimed} of {total} calls carried no timestamp" in page.inner_text(
            "#app"
        )
    tool = max(payload["tools"], key=lambda name: payload["tools"][name]["calls"])
    page.select_option("#series-tool", tool)
    points = watched.chart("calls-over-time")["series"][0]["values"]
    assert 0 < sum(points) <= payload["tools"][tool]["calls"]
    assert sum(points) < sum(everything)
    assert watched.problems() == []
    assert watched.foreign_requests("file://") == []


def test_from_a_usage_store_the_charts_over_time_follow_the_tool_filter(
    browser: Browser, cli: Cli, tmp_path: Path
) -> None:
    pytest.importorskip("fastapi", reason="needs the serve extra")
    from toolsel.serve.store import open_store
    from toolsel.serve.usage import parse_records

    url = f"sqlite:///{tmp_path / 'usage.sqlite3'}"
    store = open_store(url)
    now = datetime.now(UTC).replace(microsecond=0)
    records = [
        {"tool": ("grep", "edit")[n % 2], "ok": n % 5 != 0, "latency_ms": 10 + n,
         "at": (now - timedelta(hours=3 * n)).isoformat().replace("+00:00", "Z")}
        for n in range(40)
    ]  # fmt: skip
    store.record(parse_records(records))
    store.close()
    out = tmp_path / "stats.html"
    assert cli("stats", "--db", url, "--format", "html", "-o", str(out)).exit_code == 0
    payload = json.loads(cli("stats", "--db", url, "--format", "json").stdout)
    watched = browser.open(out.as_uri())
    page = watched.page
    page.select_option("#series-tool", "edit")
    dots = watched.chart("calls-over-time")["series"][0]["values"]
    assert len(dots) == 14
    assert sum(dots) == payload["tools"]["edit"]["calls"]
    # a store keeps no error messages: the panel says so rather than "no call failed"
    failed = sum(t["errors"] for t in payload["tools"].values())
    assert failed > 0
    assert f"{failed} failed calls, none with a message" in page.inner_text("#why-fail")
    assert watched.problems() == []


def test_the_vendored_chart_library_is_the_documented_file() -> None:
    """The README and docs/commands.md name the file and its sha256: a change to it is a
    deliberate upgrade, made with the docs."""
    import hashlib

    vendor = ROOT / "toolsel" / "render" / "html" / "assets" / "vendor"
    data = (vendor / "chart.umd.min.js").read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    assert digest in (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    assert b"sourceMappingURL" not in data  # nothing for a browser to fetch
    assert b"Chart.js v4.6.1" in data[:200]
    assert "MIT License" in (vendor / "CHART-JS-LICENSE.md").read_text(encoding="utf-8")
