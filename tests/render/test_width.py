"""Every human table stays whole at 80 columns: no line of a table is wider, and no cell is
cut with an ellipsis (columns fold, or the layout stacks)."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from tests.conftest import ROOT, Cli

REG = str(ROOT / "registries")
T = ROOT / "transcripts"
TRANSCRIPTS = sorted(str(p) for p in T.iterdir() if p.is_file())
BOX = set("┃│┏┓┗┛┡┩└┘┌┐━─╇╈┳┻┼")

COMMANDS = {
    "rank": ["rank", "-r", REG, "open a pull request with my committed changes", "--explain"],
    "select": ["rank", "-r", REG, "select:read_file,Read_File,nope", "--with-deps"],
    "replay": ["replay", "-r", REG, *TRANSCRIPTS],
    "stats": ["stats", "-r", REG, *TRANSCRIPTS],
    "eval": ["eval", "-r", REG, "--cases", str(ROOT / "tests/selection/registries.eval.jsonl")],
    "prompt": ["prompt", "-r", REG],
    "rules": ["lint", "--list-rules"],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_tables_fit_80_columns(cli: Cli, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    run = cli(*COMMANDS[name])
    assert run.exit_code in (0, 1)
    lines = run.stdout.splitlines()
    table_lines = lines if name == "rules" else [line for line in lines if BOX & set(line)]
    assert table_lines or name == "replay"  # replay stacks its summary at 80 columns
    for line in table_lines:
        assert cell_len(line) <= 80, line
        assert "…" not in line, line


def test_replay_summary_is_stacked_when_narrow_and_a_table_when_wide(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    narrow = cli("replay", "--per-file", str(T / "claude-code-session.jsonl")).stdout
    assert "  9 calls, 10 results, 8 paired, 1 open, 1 orphans" in narrow
    assert "  3 duplicate calls, 1 duplicate results, 1 errors, 0 unreadable" in narrow
    monkeypatch.setenv("COLUMNS", "140")  # the path stays whole: a table only this wide
    wide = cli("replay", "--per-file", str(T / "claude-code-session.jsonl")).stdout
    assert "┃ dup res ┃ errors ┃ unread ┃" in wide
