"""`toolsel convert PATH... --to FORMAT` through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli

FILES = str(ROOT / "registries" / "files.yaml")


def test_convert_writes_the_document_on_stdout_and_notes_on_stderr(cli: Cli) -> None:
    run = cli("convert", FILES, "--to", "anthropic")
    assert run.exit_code == 0
    document = json.loads(run.stdout)
    assert [t["name"] for t in document["tools"]][:2] == ["search_documents", "search_files"]
    assert set(document["tools"][0]) == {"name", "description", "input_schema"}
    lines = run.stderr.splitlines()
    assert lines[0] == (
        "toolsel: note: left out: Anthropic Messages tools have no place for these:"
    )
    assert "toolsel: note:   `permission` of 4 tools (write_file, patch_file, ...)" in lines
    assert "defer_loading" not in run.stderr  # Anthropic holds it
    assert len(lines) == len(set(lines))  # one line per kind of field, not per tool


def test_strict_makes_notes_fail(cli: Cli) -> None:
    assert cli("convert", FILES, "--to", "openai", "--strict").exit_code == 1
    assert cli("convert", FILES, "--to", "toolsel", "--strict").exit_code == 0


def test_output_file_and_a_directory_of_several_files(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "tools.yaml"
    run = cli("convert", str(ROOT / "registries"), "--to", "toolsel", "-o", str(out))
    assert run.exit_code == 0 and run.stdout == "" and run.stderr == ""
    again = cli("convert", str(out), "--to", "toolsel")
    assert again.stdout == out.read_text(encoding="utf-8")  # a fixed point


def test_convert_refuses_to_overwrite_an_input(cli: Cli, tmp_path: Path) -> None:
    source = tmp_path / "tools.yaml"
    source.write_text(Path(FILES).read_text(encoding="utf-8"), encoding="utf-8")
    before = source.read_bytes()
    run = cli("convert", str(source), "--to", "toolsel", "-o", str(source))
    assert run.exit_code == 2 and "refusing to overwrite an input" in run.stderr
    assert source.read_bytes() == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            [FILES],
            "toolsel: error: --to is required: one of toolsel, openai, openai-responses, "
            "anthropic, gemini, mcp\n",
        ),
        ([FILES, "--to", "yaml"], "'yaml' is not one of 'toolsel', 'openai'"),
        ([str(ROOT / "nowhere.yaml"), "--to", "mcp"], "nowhere.yaml"),
    ],
    ids=["no target", "unknown target", "missing file"],
)
def test_wrong_input_is_one_line(cli: Cli, args: list[str], message: str) -> None:
    run = cli("convert", *args)
    assert run.exit_code == 2 and message in run.stderr
    assert len(run.stderr.splitlines()) == 1 and run.stdout == ""


def test_a_registry_that_does_not_load_is_one_line_with_its_place(cli: Cli, tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("tools:\n  - name: a\n    description: [unclosed\n")
    run = cli("convert", str(broken), "--to", "openai")
    assert run.exit_code == 2 and run.stdout == ""
    assert run.stderr.startswith(f"toolsel: error: {broken}:") and "TS001" in run.stderr


def test_rank_emits_the_responses_shape_too(cli: Cli) -> None:
    run = cli("rank", "select:read_file", "--emit", "openai-responses")
    (tool,) = json.loads(run.stdout)["tools"]
    assert tool["type"] == "function" and tool["name"] == "read_file" and "parameters" in tool
