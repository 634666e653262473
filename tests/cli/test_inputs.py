"""Missing and unreadable input files, for every command that reads one."""

from __future__ import annotations

import json

from tests.conftest import ROOT, Cli

REG = str(ROOT / "registries")
CASES = str(ROOT / "tests" / "selection" / "registries.eval.jsonl")
GOLDEN = str(ROOT / "tests" / "selection" / "registries.yaml")


def test_missing_input_files_are_one_line_exit_two(cli: Cli, tmp_path) -> None:
    missing = str(tmp_path / "nope")
    for args in (
        ("eval", "-r", REG, "--cases", missing),
        ("test", "-r", REG, missing),
        ("stats", missing),
    ):
        run = cli(*args)
        assert (
            run.exit_code == 2 and run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
        ), args


def test_binary_transcript_is_unreadable_not_a_crash(cli: Cli, write) -> None:
    path = write("bin.jsonl", b"\x00\x01\x02\xff\xfe binary\n\x89PNG\r\n\x1a\n")
    data = json.loads(cli("replay", str(path), "-f", "json").stdout)
    (f,) = data["files"]
    assert len(f["unreadable_lines"]) == 3 and f["lines"] == 3  # the PNG header holds a newline
