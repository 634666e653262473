"""One case format: `test`, `eval` and `learn --cases` read the same files, and refuse a
wrong one the same way: one line on stderr, exit 2, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli
from tests.test_cases import SAME_CASES, WRONG, _wrong

REG = str(ROOT / "registries")


def _run(cli: Cli, command: str, path: Path) -> tuple[int, str]:
    args = {
        "test": ["test", "-r", REG, str(path)],
        "eval": ["eval", "-r", REG, "--cases", str(path)],
        "learn": ["learn", "-r", REG, "--cases", str(path), "-o", str(path.parent / "o.yaml")],
    }[command]
    run = cli(*args)
    return run.exit_code, run.stderr


COMMANDS = ["test", "eval", "learn"]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", list(SAME_CASES))
def test_every_command_reads_every_format(
    cli: Cli, command: str, name: str, tmp_path: Path
) -> None:
    path = tmp_path / name
    path.write_text(SAME_CASES[name], encoding="utf-8")
    code, stderr = _run(cli, command, path)
    assert code == 0, stderr
    notes = [line for line in stderr.splitlines() if "other spelling" in line]
    assert len(notes) == (1 if name == "old.jsonl" else 0)


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", list(WRONG))
def test_a_wrong_file_is_one_line_and_exit_2(
    cli: Cli, command: str, name: str, tmp_path: Path
) -> None:
    code, stderr = _run(cli, command, _wrong(tmp_path, name))
    assert code == 2
    assert len(stderr.splitlines()) == 1 and stderr.startswith("toolsel: error: ")
    for part in WRONG[name][1]:
        assert part in stderr


def test_test_reads_what_eval_reads(cli: Cli) -> None:
    """The README's eval cases pass as golden tests, and the golden tests measure."""
    cases = str(ROOT / "tests" / "selection" / "registries.eval.jsonl")
    run = cli("test", "-r", REG, cases, "-f", "json")
    assert json.loads(run.stdout)["schema"] == "toolsel.test/v1"
    golden = str(ROOT / "tests" / "selection" / "registries.yaml")
    run = cli("eval", "-r", REG, "--cases", golden, "-f", "json")
    assert run.exit_code == 0 and json.loads(run.stdout)["methods"][0]["cases"] > 0
    assert "eval's metrics do not use `forbid`" in run.stderr


def test_several_problems_are_listed_then_refused_in_one_error(cli: Cli, write) -> None:
    path = write("c.jsonl", '{"prompt": "a", "expekt": ["x"]}\n{"prompt": "b"}\n')
    for command in COMMANDS:
        code, stderr = _run(cli, command, path)
        assert code == 2
        lines = stderr.splitlines()
        assert lines[-1].startswith("toolsel: error: ") and "(the first of 2 problems)" in lines[-1]
        assert "c.jsonl:1:17: unknown key 'expekt'" in lines[-1]
        if command != "learn":
            assert lines[:-1] == [
                f"toolsel: {path}:2:1: a case needs `expect` (or `forbid`): "
                "the tools it should offer"
            ]
