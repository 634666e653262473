"""Codex rollouts and `codex exec --json`: failures without an error flag, items reported
only on completion, and ids that restart in every run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolsel.replay.driver import replay_paths
from toolsel.replay.formats.codex import output_failed


@pytest.mark.parametrize(
    ("output", "failed"),
    [
        ('{"output": "ok", "metadata": {"exit_code": 0}}', False),
        ('{"output": "", "metadata": {"exit_code": 2, "duration_seconds": 0.1}}', True),
        (
            "failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: 2, stdout: , stderr: x",
            True,
        ),
        ("execution error: Io(Os { code: 2, kind: NotFound })", True),
        ("patch rejected by user", True),
        ("Exit code: 0\nWall time: 0.2 seconds\nOutput:\nfine", False),
        ("Exit code: 1\nWall time: 0.2 seconds\nOutput:\nTraceback ...", True),
        (
            "Chunk ID: 1\nWall time: 1 seconds\nProcess exited with code 127\nOutput:\nnot found",
            True,
        ),
        ("Process exited with code 0\n\nOutput:\nhelper", False),
        ("Plan updated", False),
        ("the word exit code: 3 inside ordinary output text", False),
        (None, False),
    ],
)
def test_plain_text_failures(output: object, failed: bool) -> None:
    assert output_failed(output) is failed


def _rollout(session: str, calls: list[tuple[str, str]]) -> str:
    lines = [{"type": "session_meta", "payload": {"id": session, "cwd": "/x"}}]
    for call_id, output in calls:
        lines.append({"type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": '{"command": ["ls"]}', "call_id": call_id}})  # fmt: skip
        lines.append({"type": "response_item", "payload": {"type": "function_call_output", "call_id": call_id, "output": output}})  # fmt: skip
    return "\n".join(json.dumps(line) for line in lines) + "\n"


def test_a_rollout_counts_text_failures_as_errors(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    path.write_text(
        _rollout(
            "s1",
            [
                ("a", '{"output": "x", "metadata": {"exit_code": 0}}'),
                ("b", "failed in sandbox Seatbelt with execution error: denied, exit code: 1"),
                ("c", "Exit code: 2\nWall time: 1 seconds\nOutput:\n"),
                ("d", "Plan updated"),
            ],
        )
    )
    (report,) = replay_paths([str(path)]).files
    assert (report.calls, report.paired, report.error_results) == (4, 4, 2)


def _exec(thread: str, items: list[dict]) -> str:
    lines = [{"type": "thread.started", "thread_id": thread}, {"type": "turn.started"}]
    lines += items
    return "\n".join(json.dumps(line) for line in lines) + "\n"


def test_items_reported_only_on_completion_are_answered_calls(tmp_path: Path) -> None:
    path = tmp_path / "exec.jsonl"
    path.write_text(
        _exec(
            "t1",
            [
                {
                    "type": "item.started",
                    "item": {
                        "id": "item_0",
                        "type": "command_execution",
                        "command": "ls",
                        "status": "in_progress",
                    },
                },
                {
                    "type": "item.completed",
                    "item": {
                        "id": "item_0",
                        "type": "command_execution",
                        "command": "ls",
                        "exit_code": 0,
                        "status": "completed",
                    },
                },
                {
                    "type": "item.completed",
                    "item": {
                        "id": "item_1",
                        "type": "file_change",
                        "changes": [{"path": "a.py", "kind": "update"}],
                        "status": "completed",
                    },
                },
                {
                    "type": "item.completed",
                    "item": {
                        "id": "item_2",
                        "type": "file_change",
                        "changes": [],
                        "status": "failed",
                    },
                },
            ],
        )
    )
    (report,) = replay_paths([str(path)]).files
    assert (report.calls, report.results, report.paired) == (3, 3, 3)
    assert not report.orphans and not report.duplicate_calls and report.error_results == 1
    assert report.tools["file_change"].calls == 2


def test_ids_that_restart_in_every_run_are_not_copies(tmp_path: Path) -> None:
    """Two independent `codex exec` runs both start at item_0: two calls, not one."""
    item = [
        {
            "type": "item.started",
            "item": {
                "id": "item_0",
                "type": "command_execution",
                "command": "ls",
                "status": "in_progress",
            },
        },
        {
            "type": "item.completed",
            "item": {
                "id": "item_0",
                "type": "command_execution",
                "command": "ls",
                "exit_code": 0,
                "status": "completed",
            },
        },
    ]
    (tmp_path / "a.jsonl").write_text(_exec("thread-a", item))
    (tmp_path / "b.jsonl").write_text(_exec("thread-b", item))
    a, b = replay_paths([str(tmp_path)]).files
    assert (a.copied_calls, b.copied_calls) == (0, 0)
    # the same thread written twice (a resumed run) is one lineage: copies
    (tmp_path / "c.jsonl").write_text(_exec("thread-a", item))
    files = replay_paths([str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"), str(tmp_path / "c.jsonl")]).files  # fmt: skip
    assert [f.copied_calls for f in files] == [0, 0, 1]


def test_stats_counts_independent_runs_separately(cli, tmp_path: Path) -> None:
    item = [
        {
            "type": "item.started",
            "item": {
                "id": "item_0",
                "type": "command_execution",
                "command": "ls",
                "status": "in_progress",
            },
        },
        {
            "type": "item.completed",
            "item": {
                "id": "item_0",
                "type": "command_execution",
                "command": "ls",
                "exit_code": 0,
                "status": "completed",
            },
        },
    ]
    (tmp_path / "a.jsonl").write_text(_exec("thread-a", item))
    (tmp_path / "b.jsonl").write_text(_exec("thread-b", item))
    stats = json.loads(cli("stats", str(tmp_path), "-f", "json").stdout)
    assert stats["tools"]["command_execution"]["calls"] == 2
