"""`replay --format json`, written a group of files at a time, is the document `dumps_json`
writes; each file's entry says what its report holds."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest

from tests.conftest import ROOT
from tests.replay.reports import full_report
from toolsel.render.console import dumps_json
from toolsel.render.replay import GROUP, file_payload, render_replay_json, replay_payload
from toolsel.replay.driver import replay_paths
from toolsel.replay.packing import PackedReports, compact_values, pack_compact
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


def test_many_files_are_written_in_groups_as_one_document() -> None:
    one = replay_paths([str(ROOT / "transcripts" / "openai-chat.jsonl")]).files[0]
    count = 2 * GROUP + 1  # two whole groups and one of a single file
    files = [replace(one, path=f"session-{n}.jsonl") for n in range(count)]
    for kept in (files, PackedReports([pack_compact(f) for f in files])):
        result = ReplayResult(kept)
        out = io.StringIO()
        render_replay_json(result, out)
        assert out.getvalue() == dumps_json(replay_payload(result))
        assert out.getvalue().count('"path": "session-') == count


def test_a_file_entry_says_what_its_report_holds() -> None:
    values = compact_values(full_report("s.jsonl"))
    assert file_payload(values) == {
        "path": "s.jsonl",
        "format": "claude-code",
        "lines": 40,
        "calls": 9,
        "results": 8,
        "paired": 7,
        "error_results": 1,
        "copied_calls": 1,
        "blank_lines": 2,
        "unreadable_lines": [{"line": 3, "error": "not JSON"}],
        "unanswered_calls": [{"id": "c9", "tool": "Bash", "line": 30, "interrupted": True}],
        "orphan_results": [{"id": "r1", "line": 12, "is_error": True}],
        "duplicate_calls": [{"id": "c2", "kind": "conflicting", "lines": (5, 6)}],
        "duplicate_results": [{"id": "c3", "lines": (8, 9)}],
        "subagents": [
            {"parent_id": "t1", "tool": "Task", "calls": 2, "rule": "parent_tool_use_id"}
        ],
        "violations": [
            {"id": "c4", "tool": "Write", "rule": "TS901", "message": "not allowed", "line": 14}
        ],
        "tools": {  # by name; a median of the latencies, or the one kept
            "Bash": {"calls": 5, "errors": 1, "median_latency_s": 1.5},
            "Read": {"calls": 4, "errors": 0, "median_latency_s": 4.0},
        },
        "notes": ["a note"],
        "calls_without_id": 1,
        "results_without_id": 2,
        "skipped_records": 3,
        "unread_tool_records": [{"line": 20, "where": "content[0].tool_call"}],
        "failed_calls": [{"id": "c5", "tool": "Bash", "line": 16, "message": "exit 1"}],
    }
    assert list(file_payload(values))[-3:] == [
        "skipped_records",
        "unread_tool_records",
        "failed_calls",
    ]  # the order the HTML page's data has always had
