"""Why calls fail, and what results cost, on the HTML pages: `stats -f html` lists each
tool's most frequent error messages, `replay -f html` each session's failed calls with the
message its result gave and each result's size. The messages come from transcripts: they
reach the page as text, never as markup."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import Cli
from tests.render.browser import Browser, browser

__all__ = ["browser"]  # the module-scoped fixture

#: (a message that is one whole element, `<x>...</x>`, is unwrapped as a client's wrapper)
HOSTILE = "failed: <script>window.__pwned = 1</script>"
#: (call id, tool, result text, whether the result is an error)
CALLS = [
    ("r1", "Read", "x" * 1500, False),
    ("r2", "Read", HOSTILE, True),
    ("b1", "Bash", "permission denied", True),
    ("b2", "Bash", "permission denied", True),
    ("e1", "Edit", '<img src=x onerror="window.__pwned = 2">', True),
    ("e2", "Edit", "done", False),
]


def failing_session(folder: Path) -> Path:
    """A Claude Code session whose failed results say hostile things."""
    lines = []
    for n, (call_id, tool, text, is_error) in enumerate(CALLS):
        lines.append({"type": "assistant", "sessionId": "s", "uuid": f"a{n}",
                      "timestamp": f"2026-01-01T00:00:{2 * n:02}.000Z",
                      "message": {"role": "assistant", "id": f"m{n}", "content": [
                          {"type": "tool_use", "id": call_id, "name": tool, "input": {"n": n}}]}})  # fmt: skip
        lines.append({"type": "user", "sessionId": "s", "uuid": f"u{n}",
                      "timestamp": f"2026-01-01T00:00:{2 * n + 1:02}.000Z",
                      "message": {"role": "user", "content": [
                          {"type": "tool_result", "tool_use_id": call_id, "content": text,
                           "is_error": is_error}]}})  # fmt: skip
    path = folder / "session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def embedded(page: str) -> Any:
    """The JSON document a page draws (its `toolsel-data` block)."""
    block = page.split('id="toolsel-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in block and ">" not in block  # no text can close the block
    return json.loads(block)


def pages(cli: Cli, tmp_path: Path) -> dict[str, Any]:
    """Both pages written to files, and the JSON outputs they are drawn from."""
    session = str(failing_session(tmp_path))
    made: dict[str, Any] = {}
    for command in ("stats", "replay"):
        out = tmp_path / f"{command}.html"
        run = cli(command, session, "--format", "html", "-o", str(out))
        assert run.exit_code in (0, 1), run.stderr
        made[command] = out
        made[f"{command}.json"] = json.loads(cli(command, session, "--format", "json").stdout)
    return made


def test_the_pages_embed_the_messages_and_draw_the_panels(cli: Cli, tmp_path: Path) -> None:
    made = pages(cli, tmp_path)
    stats_page = made["stats"].read_text(encoding="utf-8")
    tools = embedded(stats_page)["stats"]["tools"]
    assert {n: t["top_errors"] for n, t in tools.items()} == {
        n: t["top_errors"] for n, t in made["stats.json"]["tools"].items()
    }
    assert sum(e["count"] for e in tools["Bash"]["top_errors"]) == tools["Bash"]["errors"] == 2
    assert tools["Read"]["top_errors"][0]["message"].startswith("failed: <script>window")
    assert tools["Edit"]["top_errors"][0]["message"].startswith("<img src=x onerror=")
    replay_page = made["replay"].read_text(encoding="utf-8")
    data = embedded(replay_page)
    failed = data["replay"]["files"][0]["failed_calls"]
    assert failed == made["replay.json"]["files"][0]["failed_calls"]
    assert [(f["id"], f["tool"], f["message"]) for f in failed] == [
        (i, tool, text) for i, tool, text, is_error in CALLS if is_error
    ]
    # each call's row carries its result's size (UTF-8 bytes of its text)
    sizes = {row[2]: row[8] for row in data["sessions"][0]["calls"]}
    assert sizes == {i: len(text.encode()) for i, _, text, _ in CALLS}
    assert data["tools"]["Read"]["result_bytes"]["total"] == 1500 + len(HOSTILE)
    # the panels are drawn by the page's own script, from that data
    for page, ids in ((stats_page, ["why-fail"]), (replay_page, ["why-fail", "failed-calls"])):
        script = page.rsplit("<script>", 1)[1]
        assert "function whyCallsFail(" in script
        for panel in ids:
            assert f'"{panel}"' in script
        assert "<script>window" not in page and "<img" not in page  # in the data, escaped


def rows(page: Any, selector: str, keys: tuple[str, ...]) -> list[list[str]]:
    """The text of each `[data-key=KEY]` cell of the rows `selector` finds."""
    script = "(rows, keys) => rows.map(r => keys.map(k => r.querySelector(`[data-key=${k}]`).textContent))"
    found: list[list[str]] = page.eval_on_selector_all(selector, script, list(keys))
    return found


def test_the_messages_render_as_text(browser: Browser, cli: Cli, tmp_path: Path) -> None:
    made = pages(cli, tmp_path)
    watched = browser.open(made["stats"].as_uri())
    page = watched.page
    shown = rows(page, "#why-fail-table tbody tr", ("message", "count"))
    expected = [
        [e["message"], str(e["count"])]
        for _, t in sorted(made["stats.json"]["tools"].items(), key=lambda kv: -kv[1]["errors"])
        for e in t["top_errors"]
    ]
    assert sorted(shown) == sorted(expected)
    # shown literally, as text
    assert any(message.startswith("failed: <script>window") for message, _ in shown)
    assert any(message.startswith("<img src=x onerror=") for message, _ in shown)
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#app script, #app img").count() == 0
    assert watched.problems() == []

    watched = browser.open(made["replay"].as_uri())
    page = watched.page
    failed = made["replay.json"]["files"][0]["failed_calls"]
    shown = rows(page, "#failed-table tbody tr", ("tool", "message"))
    assert shown == [[f["tool"], f["message"]] for f in failed]
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#app script, #app img").count() == 0
    # a failed call links to its row in the timeline, which says why and what it cost
    page.locator("#failed-table tbody tr", has_text="<script>").locator("a").click()
    target = page.locator("#timeline-table tr.target")
    assert target.locator(".msg").first.inner_text() == HOSTILE  # before any violation
    assert target.locator("[data-key=bytes]").inner_text() == f"{len(HOSTILE)} B"
    sizes = rows(page, "#tools tbody tr[data-tool=Read]", ("result_total",))
    assert sizes == [[f"{(1500 + len(HOSTILE)) / 1000:.1f} kB"]]
    assert page.evaluate("window.__pwned") is None
    assert watched.problems() == []
    assert watched.foreign_requests("file://") == []
