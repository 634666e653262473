"""`replay`'s human output over many files: the totals first, then the files with findings,
worst first, every line within COLUMNS (80 included), piped or on a terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.conftest import Cli
from tests.replay.archive import write_archive

CALL = {"type": "function", "function": {"name": "read_file", "arguments": "{}"}}


def _chat(*records: object) -> str:
    return "".join(r if isinstance(r, str) else json.dumps(r) + "\n" for r in records)


@pytest.fixture(scope="module")
def week(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """400 generated sessions, and two files with findings under a deep, long folder: one
    with an orphan result and an unreadable line (the worse), one with an unanswered call."""
    root = tmp_path_factory.mktemp("week")
    write_archive(root, 400)
    deep = root / ("a-project-folder-with-a-long-name-" * 3) / "sessions" / "2026-03-01"
    deep.mkdir(parents=True)
    (deep / "worse-session-with-an-orphan-and-a-broken-line.jsonl").write_text(
        _chat(
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", **CALL}]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
            {"role": "tool", "tool_call_id": "nobody", "content": "late"},
            "{not json\n",
        )
    )
    (deep / "unanswered-session.jsonl").write_text(
        _chat({"role": "assistant", "content": None, "tool_calls": [{"id": "c9", **CALL}]})
    )
    return root


def _fits(out: str, width: int) -> list[str]:
    lines = out.splitlines()
    assert lines
    wide = [line for line in lines if cell_len(line.rstrip()) > width]
    assert not wide, f"{len(wide)} of {len(lines)} lines wider than {width}: {wide[:3]}"
    return lines


@pytest.mark.parametrize("terminal", [False, True], ids=["piped", "terminal"])
def test_a_week_at_80_columns_leads_with_totals_and_fits(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, week: Path, terminal: bool
) -> None:
    if terminal:
        monkeypatch.setattr("toolsel.render.console.is_terminal", lambda stream: True)
    monkeypatch.setenv("COLUMNS", "80")
    run = cli("replay", str(week), "--no-registry", "--fail-on", "none")
    assert run.exit_code == 0, run.stderr
    lines = _fits(run.stdout, 80)
    document = cli("replay", str(week), "--no-registry", "-f", "json", "--fail-on", "none")
    summary = json.loads(document.stdout)["summary"]
    assert summary["files"] == len(list(week.rglob("*.jsonl")))
    assert summary["error_results"] > 0
    # the totals (folded between words), from the same result the JSON is
    assert " ".join(lines[:2]).startswith(
        f"{summary['files']} files, {summary['calls']:,} calls, "
        f"{summary['error_results']:,} errors, 1 unanswered, 0 duplicates, 2 other findings"
        " (1 orphan result, 1 unreadable line)"
    )
    text = run.stdout
    folded = "".join(lines)  # a long name folds at the width: joined, it is whole
    worse = folded.index("/worse-session-with-an-orphan-and-a-broken-line.jsonl")
    assert worse < folded.index("/unanswered-session.jsonl")
    assert "line 3: orphan result nobody" in text
    # only the files with findings are listed: not one of the 400 sessions
    assert ".jsonl  claude-code" not in text
    assert len(lines) < 40


def test_per_file_lists_every_file_and_still_fits(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, week: Path
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.chdir(week)  # names relative to here: each one's format ends its line
    run = cli("replay", ".", "--per-file", "--no-registry", "--fail-on", "none")
    lines = _fits(run.stdout, 80)
    formats = [line for line in lines if line.endswith(("  claude-code", "  openai-chat"))]
    assert len(formats) == len(list(week.rglob("*.jsonl")))


def test_the_worst_files_are_capped_and_said_so(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from toolsel.render.replay_human import WORST_FILES

    for n in range(WORST_FILES + 3):
        (tmp_path / f"s{n:02d}.jsonl").write_text(
            _chat({"role": "assistant", "content": None, "tool_calls": [{"id": "c", **CALL}]})
            * (1 + (n == 7))  # s07 also has a duplicate call: the worst
        )
    monkeypatch.chdir(tmp_path)
    out = cli("replay", ".", "--no-registry", "--fail-on", "none").stdout
    assert f"({WORST_FILES} of {WORST_FILES + 3}; --per-file lists every file)" in out
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("s")]
    assert listed[0] == "s07.jsonl"
    assert len(listed) == WORST_FILES
