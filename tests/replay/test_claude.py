"""Claude Code records without ids: old flat `tool_use`/`tool_result` lines and blocks
without `id`/`tool_use_id`, counted and paired by position."""

from __future__ import annotations

from pathlib import Path

from tests.replay.records import replay

BASE = {"sessionId": "s", "timestamp": "2025-12-16T01:00:00.000Z"}


def test_old_flat_records_are_calls_and_results(tmp_path: Path) -> None:
    r = replay(
        tmp_path,
        [
            {
                "type": "user",
                "uuid": "u1",
                **BASE,
                "message": {"role": "user", "content": "Open README"},
            },
            {
                "type": "tool_use",
                "uuid": "t1",
                **BASE,
                "name": "bash",
                "input": {"command": "cat README.md"},
            },
            {
                "type": "tool_result",
                "uuid": "r1",
                **BASE,
                "name": "bash",
                "output": "# Title",
                "is_error": True,
            },
        ],
    )
    assert (r.format, r.calls, r.paired, r.error_results) == ("claude-code", 1, 1, 1)
    assert (r.calls_without_id, r.results_without_id) == (1, 1)


def test_blocks_without_ids_pair_by_position(tmp_path: Path) -> None:
    def line(kind: str, block: dict) -> dict:
        return {"type": kind, "uuid": kind[0], "isSidechain": True, "agentId": "a0", **BASE,
                "message": {"role": kind, "content": [block]}}  # fmt: skip

    r = replay(
        tmp_path,
        [
            line("assistant", {"type": "tool_use", "name": "bash", "input": {"command": "ls"}}),
            line("assistant", {"type": "tool_use", "name": "grep", "input": {"pattern": "x"}}),
            line("user", {"type": "tool_result", "content": "a.txt"}),
        ],
    )
    assert (r.calls, r.paired, r.calls_without_id, r.results_without_id) == (2, 1, 2, 1)
    assert [(u.id, u.tool) for u in r.unanswered] == [("noid:2:0", "grep")]


def test_a_task_call_without_id_is_still_a_parent(tmp_path: Path) -> None:
    r = replay(
        tmp_path,
        [
            {
                "type": "assistant",
                "uuid": "a",
                **BASE,
                "message": {
                    "content": [{"type": "tool_use", "name": "Task", "input": {"prompt": "p"}}]
                },
            }
        ],
    )
    assert [(u.tool, u.interrupted) for u in r.unanswered] == [("Task", True)]
