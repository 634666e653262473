"""Every hostile input, through the CLI: `lint` reports a finding and goes on (exit 1), other
commands print one line on stderr (exit 2); nobody sees a traceback."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.registry.test_source import BILLION_LAUGHS

Write = Callable[..., Path]

GOOD = "tools:\n  - name: fine_tool\n    description: d\n"
DEEP_JSON = (
    '{"tools": [{"name": "a", "description": "d", "parameters": '
    + '{"type": "object", "properties": {"x": ' * 10_000
    + "{}"
    + "}}" * 10_000
    + "}]}"
)

CASES: dict[str, tuple[str, str | bytes, str]] = {
    "yaml syntax error": ("bad.yaml", "tools:\n  - name: a\n    description: [unclosed\n", "TS001"),
    "duplicate keys": (
        "dup.yaml",
        "tools:\n  - name: a\n    description: x\n    description: y\n",
        "TS002",
    ),
    "tools is a mapping": ("map.yaml", "tools:\n  a: {description: d}\n", "TS003"),
    "name is a number": ("num.yaml", "tools:\n  - name: 42\n    description: d\n", "TS003"),
    "empty file": ("empty.yaml", "", "TS003"),
    "binary file": ("bin.yaml", b"\x00\x01\x02\x03PNG", "TS001"),
    "non-utf8 file": ("latin.yaml", "tools:\n  - name: caf\xe9\n".encode("latin-1"), "TS001"),
    "alias bomb": ("bomb.yaml", BILLION_LAUGHS, "TS001"),
    "nested 10,000 deep": ("deep.json", DEEP_JSON, "TS001"),
    "not a registry": ("list.yaml", "- 1\n- 2\n", "TS003"),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_lint_reports_it_and_still_lints_other_files(cli: Cli, write: Write, case: str) -> None:
    name, content, rule = CASES[case]
    bad, good = write(name, content), write("good.yaml", GOOD)
    run = cli("lint", "-f", "json", "--no-cache", str(bad), str(good))
    assert run.exit_code == 1 and "Traceback" not in run.stderr
    findings = json.loads(run.stdout)["findings"]
    assert any(f["rule"] == rule and f["file"] == str(bad) and f["line"] >= 1 for f in findings)
    assert any(f["file"] == str(good) for f in findings)  # the good file was linted too


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_other_commands_give_one_line_and_exit_two(cli: Cli, write: Write, case: str) -> None:
    name, content, rule = CASES[case]
    run = cli("rank", "-r", str(write(name, content)), "anything")
    assert run.exit_code == 2 and run.stdout == ""
    assert run.stderr.startswith("toolsel: error: ") and run.stderr.count("\n") == 1
    assert f"{name}:" in run.stderr and rule in run.stderr


def test_directory_without_registry_files(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "nothing").mkdir()
    for args in (
        ("lint", str(tmp_path / "nothing")),
        ("rank", "-r", str(tmp_path / "nothing"), "x"),
    ):
        run = cli(*args)
        assert run.exit_code == 2 and "no registry files" in run.stderr


def test_huge_file_over_the_limit(cli: Cli, write: Write, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSEL_MAX_FILE_BYTES", "100")
    run = cli("lint", "-f", "json", str(write("big.yaml", GOOD * 10)))
    assert run.exit_code == 1
    (finding,) = json.loads(run.stdout)["findings"]
    assert finding["rule"] == "TS001" and "limit" in finding["message"]


def test_unreadable_output_file_is_exit_two(cli: Cli, write: Write, tmp_path: Path) -> None:
    run = cli(
        "lint",
        "-f",
        "json",
        "-o",
        str(tmp_path / "no" / "such" / "dir" / "out.json"),
        str(write("g.yaml", GOOD)),
    )
    assert run.exit_code == 2 and "cannot write" in run.stderr
