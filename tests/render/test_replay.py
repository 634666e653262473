"""`replay --format json`, written a group of files at a time, is the document `dumps_json`
writes; each file's entry says what its report holds."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest

from tests.conftest import ROOT
from toolsel.render.console import dumps_json
from toolsel.render.replay import GROUP, file_payload, render_replay_json, replay_payload
from toolsel.replay.driver import replay_paths
from toolsel.replay.lines import Unreadable
from toolsel.replay.packing import PackedReports, compact_values, pack_compact
from toolsel.replay.report import (
    DuplicateCall,
    DuplicateResult,
    FailedCall,
    FileReport,
    Orphan,
    ReplayResult,
    Subagent,
    ToolStats,
    Unanswered,
    UnreadTools,
    Violation,
)

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
    report = FileReport(
        path="s.jsonl",
        format="claude-code",
        lines=9,
        blank=1,
        calls=4,
        results=3,
        paired=3,
        error_results=1,
        copied_calls=1,
        unreadable=(Unreadable(2, "not JSON", 5),),
        unanswered=(Unanswered("c4", "Bash", 8, True),),
        orphans=(Orphan("r9", 7, True),),
        duplicate_calls=(DuplicateCall("c1", "identical", (3, 6)),),
        duplicate_results=(DuplicateResult("c2", (4, 5)),),
        subagents=(Subagent("c3", "Task", 2, "agent-file"),),
        violations=(Violation("c1", "Write", "permission", "write over read", 3),),
        tools={
            "Write": ToolStats(calls=2, errors=1, answered=2, latencies=(1.0, 3.0)),
            "Bash": ToolStats(calls=1, median_s=0.5),
        },
        notes=("a note",),
        calls_without_id=1,
        results_without_id=2,
        skipped_records=3,
        unread_tools=(UnreadTools(1, "content[0].functionCall"),),
        failures=(FailedCall("c1", "Write", 4, "denied", True, 7),),
    )
    assert file_payload(compact_values(report)) == {
        "path": "s.jsonl",
        "format": "claude-code",
        "lines": 9,
        "calls": 4,
        "results": 3,
        "paired": 3,
        "error_results": 1,
        "copied_calls": 1,
        "blank_lines": 1,
        "unreadable_lines": [{"line": 2, "error": "not JSON"}],
        "unanswered_calls": [{"id": "c4", "tool": "Bash", "line": 8, "interrupted": True}],
        "orphan_results": [{"id": "r9", "line": 7, "is_error": True}],
        "duplicate_calls": [{"id": "c1", "kind": "identical", "lines": (3, 6)}],
        "duplicate_results": [{"id": "c2", "lines": (4, 5)}],
        "subagents": [{"parent_id": "c3", "tool": "Task", "calls": 2, "rule": "agent-file"}],
        "violations": [
            {
                "id": "c1",
                "tool": "Write",
                "rule": "permission",
                "message": "write over read",
                "line": 3,
            }
        ],
        "tools": {  # by name; a median of the latencies, or the one kept
            "Bash": {"calls": 1, "errors": 0, "median_latency_s": 0.5},
            "Write": {"calls": 2, "errors": 1, "median_latency_s": 2.0},
        },
        "notes": ["a note"],
        "calls_without_id": 1,
        "results_without_id": 2,
        "skipped_records": 3,
        "unread_tool_records": [{"line": 1, "where": "content[0].functionCall"}],
        "failed_calls": [{"id": "c1", "tool": "Write", "line": 4, "message": "denied"}],
    }
    assert list(file_payload(compact_values(report)))[-3:] == [
        "skipped_records",
        "unread_tool_records",
        "failed_calls",
    ]  # the order the HTML page's data has always had
