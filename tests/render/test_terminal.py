"""Human output on a person's terminal, at 80 and 120 columns: no line is wider than the
terminal, no cell is cut with an ellipsis, and every tool or rule name the output shows is
whole on one line (a name is never folded; narrow tables leave out columns or stack)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.conftest import ROOT, Cli

#: A real MCP tool name is often this long: 61 characters.
LONG = "mcp__google_workspace__calendar_create_recurring_event_series"
LONGER = "mcp__github__create_pull_request_review_comment"
NAMES = (LONG, LONGER, "read_file", "write_file")

REGISTRY = f"""\
tools:
  - name: {LONG}
    description: Creates a recurring event series in a Google calendar. Use it to book a
      meeting that repeats every week. Returns the series id.
    category: calendar-and-scheduling
    permission: write
    parameters:
      type: object
      properties:
        title: {{type: string, description: The event title.}}
  - name: {LONGER}
    description: Adds a review comment to a pull request on GitHub. Use it to comment on
      a line of a change. Returns the comment id.
    category: source-control-and-review
    permission: write
  - name: read_file
    description: Reads a file from the workspace and returns its text. Use it to look
      at the user's code or configuration.
    category: files
    permission: read
  - name: write_file
    description: Writes text to a file in the workspace, replacing it. Use it to save
      changes the user asked for.
    category: files
    permission: write
"""


def _call(n: int, name: str) -> list[str]:
    call = {"id": f"c{n}", "type": "function", "function": {"name": name, "arguments": "{}"}}
    return [
        json.dumps({"role": "assistant", "content": None, "tool_calls": [call]}),
        json.dumps({"role": "tool", "tool_call_id": f"c{n}", "content": "ok"}),
    ]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    registry = tmp_path / "tools.yaml"
    registry.write_text(REGISTRY, encoding="utf-8")
    transcript = tmp_path / "session.jsonl"
    lines = [json.dumps({"role": "user", "content": "book the weekly sync"})]
    for n, name in enumerate([LONG, LONG, LONGER, "read_file", "write_file"]):
        lines += _call(n, name)
    transcript.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        json.dumps({"id": "weekly", "query": "book a weekly meeting", "expected": [LONG]})
        + "\n"
        + json.dumps({"id": "review", "query": "comment on the pull request", "expected": [LONGER]})
        + "\n",
        encoding="utf-8",
    )
    return {"registry": str(registry), "transcript": str(transcript), "cases": str(cases)}


def _commands(f: dict[str, str]) -> dict[str, tuple[list[str], tuple[str, ...]]]:
    """Each human render: its command line and the names it must show whole."""
    reg = ["-r", f["registry"]]
    return {
        "rank": (["rank", *reg, "book a weekly meeting and comment on a pull request"], NAMES[:2]),
        "rank-explain": (["rank", *reg, "read the user's files", "--explain"], ("read_file",)),
        "select": (
            [
                "rank",
                *reg,
                f"select:{LONG},Read_File,read file,calendar_create_recurring_event_series",
            ],
            (LONG, "read_file", "select:read,file"),
        ),
        "stats": (["stats", *reg, f["transcript"]], NAMES),
        "replay": (["replay", *reg, f["transcript"]], NAMES),
        "eval": (["eval", *reg, "--cases", f["cases"]], ("hybrid",)),
        "prompt": (["prompt", *reg], (LONG, LONGER)),
        "deps": (["deps", *reg, "read_file"], ("read_file",)),
        "rules": (["lint", "--list-rules"], ("description-names-unknown-tool", "TS444")),
        "lint": (["lint", f["registry"]], ()),
    }


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Output laid out as for a terminal: the render's console believes stdout is a TTY
    (its width from COLUMNS; Rich writes no colour codes into the test's capture)."""
    monkeypatch.setattr("toolsel.render.console.is_terminal", lambda stream: True)


@pytest.mark.usefixtures("terminal")
@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize(
    "name",
    [
        "rank",
        "rank-explain",
        "select",
        "stats",
        "replay",
        "eval",
        "prompt",
        "deps",
        "rules",
        "lint",
    ],
)
def test_every_human_render_fits_the_terminal_and_keeps_names_whole(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], name: str, width: int
) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    args, names = _commands(files)[name]
    run = cli(*args)
    assert run.exit_code in (0, 1), run.stderr
    lines = run.stdout.splitlines()
    assert lines
    for line in lines:
        assert cell_len(line.rstrip()) <= width, line
        assert "…" not in line, line
    for shown in names:
        assert any(shown in line for line in lines), f"{shown} is broken or missing"


@pytest.mark.usefixtures("terminal")
def test_rank_at_80_columns_lists_the_reasons_under_the_table(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    reg = str(ROOT / "registries")
    out = cli("rank", "-r", reg, "open a pull request with my committed changes").stdout
    assert "┃ why" not in out
    assert "why:" in out
    assert "1 create_pull_request: committed (description)" in out
    # 8 tools were 58 lines with a 15-column why; the title (which names the method) wraps
    assert len(out.splitlines()) <= 33
    monkeypatch.setenv("COLUMNS", "120")
    wide = cli("rank", "-r", reg, "open a pull request with my committed changes").stdout
    assert "┃ why" in wide
    assert "why:" not in wide


def test_the_why_column_shows_the_prompts_words_not_stems(cli: Cli) -> None:
    reg = str(ROOT / "registries")
    out = cli("rank", "-r", reg, "open a pull request with my committed changes", "--explain")
    assert "committed (description)" in out.stdout
    assert "changes (description)" in out.stdout
    assert "committ " not in out.stdout and "committ (" not in out.stdout
    assert "description  committed" in out.stdout  # the --explain lines too


@pytest.mark.usefixtures("terminal")
def test_stats_leaves_out_columns_then_stacks_rather_than_breaking_a_name(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    narrow = cli("stats", "-r", files["registry"], files["transcript"]).stdout
    assert f"{LONG}\n  calls 2, open 0, files 1, success 100%" in narrow
    monkeypatch.setenv("COLUMNS", "120")
    wide = cli("stats", "-r", files["registry"], files["transcript"]).stdout
    assert f"│ {LONG} │" in wide


@pytest.mark.usefixtures("terminal")
def test_select_notes_move_under_the_table_when_narrow(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    query = "select:read file,raed_file,calendar_create_recurring_event_series"
    out = cli("rank", "-r", files["registry"], query).stdout
    assert "┃ note" not in out  # the full name in a note needs more than the column
    assert "notes:" in out
    assert f"'{LONG}';" in out
    joined = " ".join(line.strip() for line in out.splitlines())
    assert "separate names with commas: select:read,file" in joined
    assert "raed_file: did you mean 'read_file'?" in out
    monkeypatch.setenv("COLUMNS", "140")
    wide = cli("rank", "-r", files["registry"], query).stdout
    assert "┃ note" in wide and "notes:" not in wide


def test_piped_output_has_no_colour_and_a_fixed_width(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]
) -> None:
    monkeypatch.delenv("COLUMNS")
    out = cli("stats", "-r", files["registry"], files["transcript"]).stdout
    assert "\x1b[" not in out
    assert f"│ {LONG} │" in out  # 120 columns, whatever the terminal
