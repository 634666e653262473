"""Golden registry files: everything in examples/valid lints clean under --strict; every
file in examples/invalid fails with the rules its first line names (`# expect: TS504 TS506`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Cli

HERE = Path(__file__).parent / "examples"
VALID = sorted((HERE / "valid").glob("*.*"))
INVALID = sorted((HERE / "invalid").glob("*.*"))


@pytest.mark.parametrize("path", VALID, ids=[p.name for p in VALID])
def test_valid_examples_pass(cli: Cli, path: Path) -> None:
    run = cli("lint", "--strict", "--no-cache", str(path))
    assert run.exit_code == 0, run.stdout


@pytest.mark.parametrize("path", INVALID, ids=[p.name for p in INVALID])
def test_invalid_examples_fail_with_expected_rules(cli: Cli, path: Path) -> None:
    first = path.read_bytes().split(b"\n", 1)[0].decode("utf-8", "replace")
    expected = set(first.split("expect:", 1)[1].split()) if "expect:" in first else set()
    assert expected, f"{path.name} must start with '# expect: RULE ...'"
    # --fail-on info: an example may show an info rule (TS209 is one), which --strict passes
    run = cli("lint", "--fail-on", "info", "--no-cache", "-f", "json", str(path))
    assert run.exit_code == 1
    found = {f["rule"] for f in json.loads(run.stdout)["findings"]}
    assert expected <= found, sorted(found)


def test_there_are_examples() -> None:
    assert len(VALID) >= 3 and len(INVALID) >= 5
