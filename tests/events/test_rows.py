"""The map step: one file's calls as rows, and copy marks added in path order, equal to
what `replay` counts."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import ROOT
from toolsel.events.copies import CopyMarks
from toolsel.events.rows import map_file
from toolsel.replay.driver import replay_paths
from toolsel.replay.lines import expand_inputs
from toolsel.timeparse import seconds_between as latency

BUNDLED = str(ROOT / "transcripts")
CORPUS = str(ROOT / "tests" / "corpus" / "transcripts")


def test_a_call_is_one_row_with_its_result_latency_and_turn(tmp_path: Path) -> None:
    def record(kind: str, at: str, block: dict[str, object]) -> str:
        message: dict[str, object] = {"role": kind, "content": [block]}
        if kind == "assistant":
            message["id"] = "m1"
        return json.dumps({"type": kind, "sessionId": "s", "timestamp": at, "message": message})

    path = tmp_path / "a.jsonl"
    call = {"type": "tool_use", "input": {}}
    result = {"type": "tool_result", "content": "x"}
    records = [
        record("assistant", "2026-01-01T00:00:00Z", {**call, "id": "t1", "name": "Read"}),
        record("assistant", "2026-01-01T00:00:00Z", {**call, "id": "t2", "name": "Bash"}),
        record("user", "2026-01-01T00:00:02.5Z", {**result, "tool_use_id": "t1", "is_error": True}),
        record("user", "2026-01-01T00:00:03Z", {**result, "tool_use_id": "t1"}),
    ]
    path.write_text("\n".join(records) + "\n")
    events = map_file(str(path), 3)
    rows = [dict(zip(events.calls, values, strict=True)) for values in zip(*events.calls.values(), strict=True)]  # fmt: skip
    assert [r["call_id"] for r in rows] == ["t1", "t2"] and events.rows == 2
    first, second = rows
    assert first == {
        **first,
        "file_no": 3,
        "file": str(path),
        "turn": "m1",
        "seq": 0,
        "line": 1,
        "tool": "Read",
        "result_id": "t1",
        "result_line": 3,
        "answered": True,
        "is_error": True,
        "latency_s": 2.5,
        "duplicate_results": 1,
        "copied": None,
    }
    assert second == {**second, "answered": False, "is_error": None, "latency_s": None, "result_id": None}  # fmt: skip
    assert events.file == {**events.file, "file_no": 3, "calls": 2, "format": "claude-code", "sessions": []}  # fmt: skip


def test_latency_is_counted_as_the_matcher_counts_it() -> None:
    assert latency("2026-01-01T00:00:01Z", "2026-01-01T00:00:00Z") == 0.0  # never negative
    assert latency("x", "x") == 0.0
    assert latency("2026-01-01T00:00:00Z", "2026-01-01T00:00:00") is None  # zone and none
    assert latency("yesterday", "today") is None
    assert latency(None, "2026-01-01T00:00:00Z") is None


def test_sub_agent_calls_name_their_task() -> None:
    (events,) = [map_file(str(ROOT / "transcripts" / "stream-json-task.jsonl"), 0)]
    parents = {p for p in events.calls["parent_call_id"] if p}
    assert parents and all(
        rule == "parent_tool_use_id"
        for rule, p in zip(events.calls["parent_rule"], events.calls["parent_call_id"], strict=True)
        if p
    )
    assert parents <= set(events.calls["call_id"])  # each parent is a Task call of the file
    assert events.file["sessions"]  # stream-json names its session


def test_a_claude_code_agent_file_is_linked_by_the_task_result_agent_id() -> None:
    paths = expand_inputs([f"{CORPUS}/claude-code/claude-code-log"])
    mapped = [map_file(p, i) for i, p in enumerate(paths)]
    launched = {a for m in mapped for a in m.calls["agent_id"] if a}
    agent_files = {m.file["agent_id"] for m in mapped if m.file["agent_id"]}
    assert launched and launched & agent_files


@pytest.mark.parametrize("where", [BUNDLED, CORPUS, "archive"])
def test_copy_marks_in_path_order_are_the_calls_replay_counts_as_copies(
    where: str, archive: Path
) -> None:
    paths = expand_inputs([str(archive) if where == "archive" else where])
    marks = CopyMarks()
    mapped = [marks.mark(map_file(p, i)) for i, p in enumerate(paths)]
    reports = replay_paths(paths).files
    for events, report in zip(mapped, reports, strict=True):
        copied = Counter(t for t, c in zip(events.calls["tool"], events.calls["copied"], strict=True) if c)  # fmt: skip
        assert copied == Counter({n: s.copied for n, s in report.tools.items() if s.copied})
        assert events.rows == report.calls
    if where != CORPUS:
        assert sum(sum(m.calls["copied"]) for m in mapped) > 0  # copies were there to find
