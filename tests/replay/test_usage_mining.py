"""`stats --ledger` reads each transcript once: `usage_paths(mine=...)` counts the usage
and mines the requests behind the calls in the same read, as the two reads did apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.replay.archive import write_archive
from toolsel.learn.mine import Miner, from_transcripts
from toolsel.replay.driver import usage_paths
from toolsel.replay.parallel import MIN_FILES


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("archive")
    files = write_archive(folder, MIN_FILES + 6, resumed=0.3, seed=35)  # copies included
    assert len(files) >= MIN_FILES  # enough files for worker processes
    return folder


@pytest.mark.parametrize("jobs", [1, 2])
def test_one_read_counts_and_mines_what_two_reads_did(archive: Path, jobs: int) -> None:
    miner = Miner()
    usage = usage_paths([str(archive)], jobs=jobs, mine=miner)
    assert usage.stats(None) == usage_paths([str(archive)], jobs=1).stats(None)
    mined, apart = miner.mined(), from_transcripts([str(archive)], jobs=1)
    assert mined.calls == apart.calls > 100 and mined.without_prompt == apart.without_prompt
    assert sorted(mined.examples, key=repr) == sorted(apart.examples, key=repr)
