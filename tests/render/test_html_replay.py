"""`toolsel replay --format html` in a real browser: the numbers are the JSON output's,
the filters work, nothing leaves the page, and a hostile transcript runs nothing."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from tests.conftest import ROOT, Cli
from tests.render.browser import Browser, browser, screenshots

__all__ = ["browser"]  # the module-scoped fixture

TRANSCRIPTS = ROOT / "transcripts"
SESSION = TRANSCRIPTS / "claude-code-session.jsonl"


def report(cli: Cli, tmp_path: Path, *args: str) -> tuple[str, dict[str, Any]]:
    """(file:// URL of the HTML report, the JSON output) for the same arguments."""
    out = tmp_path / "report.html"
    html_run = cli("replay", "--no-registry", *args, "--format", "html", "-o", str(out))
    json_run = cli("replay", "--no-registry", *args, "--format", "json")
    assert html_run.exit_code == json_run.exit_code
    return out.as_uri(), json.loads(json_run.stdout)


def number(text: str) -> int:
    return int(text.replace(",", ""))


def test_the_numbers_on_the_page_are_the_json_output(
    browser: Browser, cli: Cli, tmp_path: Path
) -> None:
    url, payload = report(cli, tmp_path, str(TRANSCRIPTS))
    watched = browser.open(url)
    page = watched.page
    summary = payload["summary"]
    for key in ("calls", "results", "paired", "error_results", "unanswered_calls",
                "orphan_results", "duplicate_calls", "violations", "copied_calls"):  # fmt: skip
        assert number(page.inner_text(f"#summary [data-key={key}]")) == summary[key], key
    for index, f in enumerate(payload["files"]):
        row = f"#files tr[data-file='{index}']"
        assert number(page.inner_text(f"{row} [data-key=calls]")) == f["calls"]
        assert number(page.inner_text(f"{row} [data-key=error_results]")) == f["error_results"]
        opened = number(page.inner_text(f"{row} [data-key=unanswered_calls]"))
        assert opened == len(f["unanswered_calls"])
    # per tool: copies from resumed sessions counted once, as `toolsel stats` counts them
    stats = json.loads(cli("stats", str(TRANSCRIPTS), "--format", "json").stdout)
    per_tool = {name: tool["calls"] for name, tool in stats["tools"].items()}
    shown = page.eval_on_selector_all(
        "#tools tbody tr",
        "rows => rows.map(r => [r.dataset.tool, r.querySelector('[data-key=calls]').textContent])",
    )
    assert {name: number(calls) for name, calls in shown} == per_tool
    # every problem of the JSON output is listed (a page holds 100)
    problems = sum(summary[k] for k in ("unanswered_calls", "orphan_results", "duplicate_calls",
                   "duplicate_results", "violations", "unreadable_lines", "unread_tool_records"))  # fmt: skip
    assert number(page.inner_text("#problem-pager [data-key=shown]").split()[0]) == problems
    assert watched.problems() == []
    assert watched.foreign_requests("file://") == []


def test_filters_narrow_the_problems_and_the_timeline(
    browser: Browser, cli: Cli, tmp_path: Path
) -> None:
    url, payload = report(cli, tmp_path, str(SESSION))
    page = browser.open(url).page
    f = payload["files"][0]
    page.select_option("#filter-tool", "read_file")
    rows = page.eval_on_selector_all(
        "#timeline-table tbody tr:not(.session)", "rows => rows.map(r => r.cells[1].textContent)"
    )
    assert len(rows) == f["tools"]["read_file"]["calls"]
    assert all("read_file" in tool for tool in rows)
    page.select_option("#filter-tool", "all")
    page.select_option("#filter-kind", "orphan")
    kinds = page.eval_on_selector_all(
        "#problem-table tbody tr", "rows => rows.map(r => r.dataset.kind)"
    )
    assert kinds == ["orphan"] * len(f["orphan_results"])
    lines = page.eval_on_selector_all(
        "#timeline-table tbody tr:not(.session)", "rows => rows.map(r => Number(r.dataset.line))"
    )
    assert lines == [o["line"] for o in f["orphan_results"]]


def test_a_problem_links_to_its_row_and_sub_agent_calls_sit_under_their_task(
    browser: Browser, cli: Cli, tmp_path: Path
) -> None:
    url, payload = report(cli, tmp_path, str(SESSION))
    page = browser.open(url).page
    unanswered = payload["files"][0]["unanswered_calls"][0]
    link = page.locator(
        "#problem-table tr[data-kind=unanswered] a, #problem-table tr[data-kind=interrupted] a"
    )
    assert link.first.inner_text().endswith(f":{unanswered['line']}")
    link.first.click()
    assert page.get_attribute("#timeline-table tr.target", "data-line") == str(unanswered["line"])
    nested = page.eval_on_selector_all(
        "#timeline-table tbody tr:not(.session)",
        "rows => rows.filter(r => r.cells[1].textContent.startsWith('└')).length",
    )
    assert nested == sum(s["calls"] for s in payload["files"][0]["subagents"])


HOSTILE_NAMES = [
    "<script>window.__pwned = 1</script>",
    '<img src=x onerror="window.__pwned = 2">',
    "javascript:window.__pwned=3",
    "</script><script>window.__pwned = 4</script>",
    '"><svg onload="window.__pwned = 5">',
]


def hostile_transcript(folder: Path) -> Path:
    path = folder / "<svg onload=window.__pwned=6>.jsonl"
    lines = []
    for n, name in enumerate(HOSTILE_NAMES):
        call_id = f"<b id=x{n}>{name}"
        lines.append({"type": "assistant", "sessionId": "s", "uuid": f"a{n}",
                      "timestamp": "2026-01-01T00:00:00.000Z",
                      "message": {"role": "assistant", "id": f"m{n}", "content": [
                          {"type": "tool_use", "id": call_id, "name": name, "input": {"q": name}}]}})  # fmt: skip
        if n % 2:
            lines.append({"type": "user", "sessionId": "s", "uuid": f"u{n}",
                          "timestamp": "2026-01-01T00:00:01.000Z",
                          "message": {"role": "user", "content": [
                              {"type": "tool_result", "tool_use_id": call_id, "content": name, "is_error": True}]}})  # fmt: skip
    path.write_text(
        "".join(json.dumps(line) + "\n" for line in lines) + "<script>alert(1)</script>\n"
    )
    return path


def test_a_hostile_transcript_runs_nothing_and_shows_every_text_as_text(
    browser: Browser, cli: Cli, tmp_path: Path, write: Any
) -> None:
    transcript = hostile_transcript(tmp_path)
    registry = write("registry.yaml", "tools:\n  - name: safe\n    description: A safe tool.\n")
    out = tmp_path / "hostile.html"
    run = cli("replay", "-r", str(registry), str(transcript), "-f", "html", "-o", str(out))
    assert run.exit_code == 1
    text = out.read_text()
    data_block = text.split('id="toolsel-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data_block and ">" not in data_block
    watched = browser.open(out.as_uri())
    page = watched.page
    assert page.evaluate("window.__pwned") is None
    assert watched.dialogs == []
    assert page.locator("#app script, #app img, #app svg[onload], #app [onerror]").count() == 0
    page.select_option("#filter-kind", "violation")
    body = page.inner_text("body")
    for name in HOSTILE_NAMES:
        assert name in body
    assert page.evaluate("[...document.links].every(a => a.getAttribute('href').startsWith('#'))")
    assert page.evaluate("window.__pwned") is None
    assert watched.problems() == []
    assert watched.foreign_requests("file://") == []


def test_screenshots_at_two_widths_light_and_dark(
    browser: Browser, cli: Cli, tmp_path: Path
) -> None:
    url, _ = report(cli, tmp_path, str(TRANSCRIPTS))
    taken = screenshots(browser, url, tmp_path, "replay")
    assert all(path.stat().st_size > 1000 for path in taken)
    keep = os.environ.get("TOOLSEL_SCREENSHOTS")  # a folder to keep them in
    if keep:
        for path in taken:
            shutil.copy(path, Path(keep) / path.name)
