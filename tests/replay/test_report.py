"""`replay.report`: a run's totals, and the finding kinds some file has, summed file by file."""

from __future__ import annotations

from dataclasses import replace

from tests.conftest import ROOT
from toolsel.replay.driver import replay_paths
from toolsel.replay.report import (
    UNKNOWN_FORMAT,
    DuplicateCall,
    FailOn,
    FileReport,
    Orphan,
    ReplayResult,
    Totals,
)

CORPUS = ROOT / "tests" / "corpus" / "transcripts"


def _found_per_file(files: list[FileReport]) -> set[FailOn]:
    """The kinds some file has, looked for in each file (a result without totals)."""
    return {kind for kind in FailOn if ReplayResult(tuple(files)).fails([kind])}


def test_found_kinds_are_those_some_file_has() -> None:
    files = list(replay_paths([str(CORPUS), str(ROOT / "transcripts")]).files)
    totals = Totals()
    for report in files:
        totals.add(report)
    assert totals.found == _found_per_file(files)
    assert len(totals.found) >= 5  # the corpus holds most kinds


def test_worked_out_kinds_and_lists_merge() -> None:
    conflicting = FileReport(
        "a.jsonl",
        format="claude-code",
        calls=2,
        duplicate_calls=(DuplicateCall("c1", "conflicting", (1, 2)),),
    )
    unknown = FileReport("b.jsonl", format=UNKNOWN_FORMAT, lines=3)
    orphaned = FileReport("c.jsonl", format="claude-code", orphans=(Orphan("r1", 4),))
    first, second = Totals(), Totals()
    first.add(conflicting)
    second.add(unknown)
    second.add(orphaned)
    assert first.found == {FailOn.CONFLICTING, FailOn.DUPLICATES}
    assert second.found == {FailOn.UNRECOGNISED, FailOn.ORPHANS}
    first.merge(second)
    assert first.found == _found_per_file([conflicting, unknown, orphaned])
    # an identical duplicate is a duplicate, not a conflict
    identical = replace(conflicting, duplicate_calls=(DuplicateCall("c1", "identical", (1, 2)),))
    alone = Totals()
    alone.add(identical)
    assert alone.found == {FailOn.DUPLICATES}
    result = ReplayResult((identical,), totals=alone.counts, found=alone.found)
    assert result.fails([FailOn.DUPLICATES]) and not result.fails([FailOn.CONFLICTING])
