"""toolsel/suggest.py: 'did you mean' names the same choice in every run."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT
from toolsel.suggest import closest, did_you_mean

TIED = ("read_file", "read file")  # the same words once case and punctuation are folded


def test_equally_close_choices_in_a_list_keep_their_order() -> None:
    assert closest("read-file", list(TIED)) == "read_file"
    assert closest("read-file", list(reversed(TIED))) == "read file"


def test_equally_close_choices_in_a_set_are_taken_by_name_whatever_the_hash_seed() -> None:
    code = (
        f"from toolsel.suggest import did_you_mean;print(did_you_mean('read-file', set({TIED!r})))"
    )
    said = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            env={"PYTHONHASHSEED": str(seed), "PATH": ""},
        ).stdout
        for seed in range(6)
    }
    assert said == {" (did you mean 'read file'?)\n"}
    assert did_you_mean("read-file", frozenset(TIED)) == " (did you mean 'read file'?)"
