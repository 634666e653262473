"""`replay --format json`, written a file at a time, is the document `dumps_json` writes."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest

from tests.conftest import ROOT
from toolsel.render.console import dumps_json
from toolsel.render.replay import render_replay_json, replay_payload
from toolsel.replay.driver import replay_paths
from toolsel.replay.packing import PackedReports
from toolsel.replay.report import FileReport, ReplayResult

FOLDERS = [ROOT / "transcripts", ROOT / "tests" / "corpus" / "transcripts"]


@pytest.mark.parametrize("keep", ["full", "compact"])
@pytest.mark.parametrize("folder", FOLDERS, ids=["bundled", "corpus"])
def test_streamed_json_is_the_whole_document(folder: object, keep: str) -> None:
    result = replay_paths([str(folder)], keep=keep)  # type: ignore[arg-type]
    assert isinstance(result.files, PackedReports) == (keep == "compact")
    out = io.StringIO()
    render_replay_json(result, out)
    assert out.getvalue() == dumps_json(replay_payload(result))


def test_one_file_and_none() -> None:
    result = replay_paths([str(ROOT / "transcripts" / "openai-chat.jsonl")])
    for files in (result.files, ()):
        some = ReplayResult(files)
        out = io.StringIO()
        render_replay_json(some, out)
        assert out.getvalue() == dumps_json(replay_payload(some))


def _without_sizes(report: FileReport) -> FileReport:
    tools = {n: replace(s, result_sizes=(), input_sizes=()) for n, s in report.tools.items()}
    return replace(report, tools=tools)


def test_compact_reports_keep_counts_findings_links_and_medians() -> None:
    folder = str(ROOT / "tests" / "corpus" / "transcripts")
    full, compact = replay_paths([folder]), replay_paths([folder], keep="compact")
    assert len(full.files) == len(compact.files)
    # a compact report keeps no per-call values: latencies (a median instead) and sizes
    unsized = tuple(_without_sizes(f) for f in full.files[1:3])
    assert compact.files[1:3] == tuple(compact.files)[1:3] == unsized
    for a, b in zip(full.files, compact.files, strict=True):
        assert (a.path, a.calls, a.subagents, a.violations) == (
            b.path,
            b.calls,
            b.subagents,
            b.violations,
        )
        assert {n: s.median_latency for n, s in a.tools.items()} == {
            n: s.median_latency for n, s in b.tools.items()
        }
    assert any(f.subagents for f in compact.files)
    assert full.totals == compact.totals and full.found == compact.found
    assert ReplayResult(full.files).total("subagents") == compact.total("subagents")
