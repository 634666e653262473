"""A reader that goes away (`toolsel ... | head`) is not an error: no traceback, no message,
exit 0, whatever renders the output (Rich tables, plain lines, JSON)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT


@pytest.mark.parametrize(
    "args",
    [
        ["rank", "deploy the billing service to production", "-r", "registries"],
        ["lint", "--list-rules"],
        ["replay", "transcripts/", "--fail-on", "none"],
        ["schema"],
    ],
    ids=["rank-table", "list-rules", "replay", "schema-json"],
)
def test_a_closed_pipe_is_exit_0_and_silent(args: list[str]) -> None:
    with subprocess.Popen(
        [sys.executable, "-m", "toolsel", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # the reader is gone before the first write
        stderr = process.stderr.read().decode()
        code = process.wait(timeout=60)
    assert code == 0, stderr
    assert stderr == ""
