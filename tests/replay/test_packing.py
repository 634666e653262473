"""`replay.packing`: a file report survives being flattened, pickled and unpacked whole, and
the compact form keeps each tool's median latency in place of its latencies."""

from __future__ import annotations

from dataclasses import fields, is_dataclass, replace

from toolsel.replay.lines import Unreadable
from toolsel.replay.packing import (
    PackedReports,
    flatten,
    pack,
    pack_compact,
    unflatten,
    unpack,
)
from toolsel.replay.report import (
    DuplicateCall,
    DuplicateResult,
    FailedCall,
    FileReport,
    Orphan,
    Subagent,
    ToolStats,
    Unanswered,
    UnreadTools,
    Violation,
)


def full_report(path: str = "a.jsonl") -> FileReport:
    """A report in which every field holds something other than its default."""
    return FileReport(
        path=path,
        format="claude-code",
        lines=40,
        blank=2,
        calls=9,
        results=8,
        paired=7,
        error_results=1,
        copied_calls=1,
        unreadable=(Unreadable(3, "not JSON"),),
        unanswered=(Unanswered("c9", "Bash", 30, True),),
        orphans=(Orphan("r1", 12, True),),
        duplicate_calls=(DuplicateCall("c2", "conflicting", (5, 6)),),
        duplicate_results=(DuplicateResult("c3", (8, 9)),),
        subagents=(Subagent("t1", "Task", 2, "parent_tool_use_id"),),
        violations=(Violation("c4", "Write", "TS901", "not allowed", 14),),
        tools={
            "Bash": ToolStats(5, 1, 4, 1, 0, 1, (0.5, 1.5, 2.5), None, (10.0,), (3.0,)),
            "Read": ToolStats(calls=4, answered=3, latencies=(4.0,)),
        },
        agent_id="agent-1",
        notes=("a note",),
        task_agents={"agent-2": ("t1", "Task")},
        calls_without_id=1,
        results_without_id=2,
        skipped_records=3,
        unread_tools=(UnreadTools(20, "content[0].tool_call"),),
        failures=(FailedCall("c5", "Bash", 16, "exit 1", True, 4),),
    )


def test_the_full_report_sets_every_field() -> None:
    report, empty = full_report(), FileReport("a.jsonl")
    same = [f.name for f in fields(FileReport) if getattr(report, f.name) == getattr(empty, f.name)]
    assert same == ["path"]


def test_flatten_and_pack_keep_every_field() -> None:
    report = full_report()
    assert unflatten(flatten(report)) == report
    assert unpack(pack(report)) == report
    nested = [item for value in flatten(report) if isinstance(value, tuple) for item in value]
    assert nested and not any(is_dataclass(item) for item in nested)  # findings as tuples


def test_the_compact_form_keeps_medians_in_place_of_latencies() -> None:
    report = full_report()
    compact = unpack(pack_compact(report))
    assert compact.tools["Bash"].latencies == ()
    assert compact.tools["Bash"].median_latency == 1.5
    assert compact.tools["Read"].median_latency == 4.0
    assert compact.tools["Bash"].result_sizes == compact.tools["Bash"].input_sizes == ()
    counts = ("calls", "errors", "answered", "copied", "copied_errors", "copied_answered")
    for name, stats in report.tools.items():
        assert [getattr(compact.tools[name], c) for c in counts] == [
            getattr(stats, c) for c in counts
        ]
    assert replace(compact, tools=report.tools) == report


def test_packed_reports_unpack_as_they_are_read() -> None:
    reports = [full_report(f"{n}.jsonl") for n in range(3)]
    packed = PackedReports([pack(r) for r in reports])
    assert len(packed) == 3
    assert packed[1] == reports[1]
    assert packed[1:] == tuple(reports[1:])
    assert list(packed) == reports
    assert packed == reports and packed != reports[:2]
