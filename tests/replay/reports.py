"""A file report with something in every field, for the tests of packing and rendering."""

from __future__ import annotations

from toolsel.replay.lines import Unreadable
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
