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


# -- every item type Codex writes for a call and its output ------------------------------


def _item(payload: dict, stamp: str = "2026-08-03T10:48:56.000Z") -> dict:
    return {"timestamp": stamp, "type": "response_item", "payload": payload}


def _event(payload: dict) -> dict:
    return {"timestamp": "2026-08-03T10:48:57.000Z", "type": "event_msg", "payload": payload}


def test_a_rollout_reads_every_call_and_output_item(tmp_path: Path) -> None:
    from tests.replay.records import replay

    r = replay(
        tmp_path,
        [
            {"type": "session_meta", "payload": {"id": "s", "cli_version": "0.146.0"}},
            _item(
                {
                    "type": "custom_tool_call",
                    "call_id": "c1",
                    "name": "apply_patch",
                    "input": "*** Begin Patch",
                }
            ),
            _item(
                {
                    "type": "custom_tool_call_output",
                    "call_id": "c1",
                    "output": [{"type": "input_text", "text": "done"}],
                }
            ),
            _item(
                {
                    "type": "local_shell_call",
                    "call_id": None,
                    "id": "lsh_1",
                    "status": "completed",
                    "action": {"type": "exec", "command": ["ls"]},
                }
            ),
            _item(
                {
                    "type": "function_call_output",
                    "call_id": "lsh_1",
                    "output": {"content": "denied", "success": False},
                }
            ),
            _item(
                {
                    "type": "tool_search_call",
                    "call_id": "c3",
                    "status": "completed",
                    "execution": "client",
                    "arguments": {"query": "weather"},
                }
            ),
            _item(
                {
                    "type": "tool_search_output",
                    "call_id": "c3",
                    "status": "completed",
                    "execution": "client",
                    "tools": [],
                }
            ),
            _item(
                {
                    "type": "tool_search_call",
                    "call_id": None,
                    "execution": "server",
                    "arguments": {"paths": ["a"]},
                }
            ),
            _item(
                {
                    "type": "tool_search_output",
                    "call_id": None,
                    "execution": "server",
                    "status": "completed",
                    "tools": [],
                }
            ),
            _item(
                {
                    "type": "web_search_call",
                    "id": "ws_1",
                    "status": "completed",
                    "action": {"type": "search", "query": "q"},
                }
            ),
            _item(
                {
                    "type": "web_search_call",
                    "status": "completed",
                    "action": {"type": "search", "query": "old codex"},
                }
            ),
            _item(
                {"type": "image_generation_call", "id": "ig_1", "status": "failed", "result": ""}
            ),
            _item(
                {
                    "type": "image_generation_call",
                    "id": "ig_2",
                    "status": "generating",
                    "result": "",
                }
            ),
            _item({"type": "ghost_snapshot", "ghost_commit": {}}),
        ],
    )
    assert (r.calls, r.results, r.paired, r.error_results) == (8, 7, 7, 2)
    assert [u.id for u in r.unanswered] == ["ig_2"]  # still generating when the file ends
    assert (r.calls_without_id, r.results_without_id) == (2, 2)  # server tool search, old search
    assert {
        "apply_patch",
        "local_shell_call",
        "tool_search_call",
        "web_search_call",
        "image_generation_call",
    } <= set(r.tools)
    assert r.orphans == r.duplicate_calls == r.unread_tools == () and r.skipped_records == 0


def test_end_events_echo_their_response_item_or_stand_for_the_action(tmp_path: Path) -> None:
    from tests.replay.records import replay

    r = replay(
        tmp_path,
        [
            _item({"type": "function_call", "call_id": "c1", "name": "shell", "arguments": "{}"}),
            _event({"type": "exec_command_end", "call_id": "c1", "exit_code": 1, "stdout": ""}),
            _item(
                {
                    "type": "function_call_output",
                    "call_id": "c1",
                    "output": "Exit code: 0\nOutput:\n",
                }
            ),
            _item(
                {"type": "function_call", "call_id": "c2", "name": "spawn_agent", "arguments": "{}"}
            ),
            _event(
                {
                    "type": "collab_tool_call",
                    "call_id": "c2",
                    "tool": "spawn_agent",
                    "new_thread_id": "t",
                }
            ),
            _item({"type": "function_call_output", "call_id": "c2", "output": "spawned"}),
            _item(
                {
                    "type": "web_search_call",
                    "id": "ws_1",
                    "status": "completed",
                    "action": {"type": "search", "query": "q"},
                }
            ),
            _event({"type": "web_search_end", "call_id": "ws_1", "query": "q"}),
            _event(
                {"type": "web_search_end", "call_id": "call-4", "query": "q"}
            ),  # an older rollout's id
            # reported only on completion, with no response item
            _event(
                {
                    "type": "mcp_tool_call_end",
                    "call_id": "c5",
                    "invocation": {"server": "gh", "tool": "search", "arguments": {"q": "x"}},
                    "result": {"Err": "timeout"},
                }
            ),
            _event({"type": "patch_apply_end", "call_id": "c6", "success": True, "changes": {}}),
        ],
    )
    assert (r.calls, r.results, r.paired) == (5, 5, 5)
    assert r.duplicate_calls == r.duplicate_results == r.orphans == ()
    assert r.error_results == 1 and r.tools["mcp__gh__search"].errors == 1
    assert r.tools["shell"].errors == 0  # the output's exit code, not the echo's, counts


def test_an_unknown_item_type_holding_a_call_is_reported_not_lost(tmp_path: Path) -> None:
    from tests.replay.records import replay

    r = replay(
        tmp_path,
        [
            _item({"type": "function_call", "call_id": "c1", "name": "shell", "arguments": "{}"}),
            _item({"type": "function_call_output", "call_id": "c1", "output": "ok"}),
            _item({"type": "future_tool_call", "call_id": "c9", "name": "x", "arguments": "{}"}),
            _item({"type": "future_summary", "text": "nothing to see"}),
            {
                "timestamp": "2026-08-03T10:48:58.000Z",
                "type": "future_synthetic_record",
                "payload": {"note": "x"},
            },
        ],
    )
    assert r.calls == 1 and r.skipped_records == 2
    assert [(u.line, u.where) for u in r.unread_tools] == [
        (3, "`an id, a tool name and arguments` at /payload")
    ]


@pytest.mark.parametrize(
    ("rollout", "exec_items"),
    [
        (  # a web search: a server-side item, reported by exec only on completion
            [
                _item(
                    {
                        "type": "web_search_call",
                        "id": "ws_1",
                        "status": "completed",
                        "action": {"type": "search", "query": "q"},
                    }
                ),
                _event({"type": "web_search_end", "call_id": "ws_1", "query": "q"}),
            ],
            [
                {
                    "type": "item.completed",
                    "item": {"id": "item_0", "type": "web_search", "query": "q"},
                }
            ],
        ),
        (  # an MCP tool call
            [
                _item(
                    {
                        "type": "function_call",
                        "call_id": "c1",
                        "name": "mcp__gh__search",
                        "arguments": "{}",
                    }
                ),
                _event(
                    {
                        "type": "mcp_tool_call_end",
                        "call_id": "c1",
                        "invocation": {"server": "gh", "tool": "search"},
                        "result": {"Ok": {"content": []}},
                    }
                ),
                _item({"type": "function_call_output", "call_id": "c1", "output": "[]"}),
            ],
            [
                {
                    "type": "item.started",
                    "item": {
                        "id": "item_0",
                        "type": "mcp_tool_call",
                        "server": "gh",
                        "tool": "search",
                        "status": "in_progress",
                    },
                },
                {
                    "type": "item.completed",
                    "item": {
                        "id": "item_0",
                        "type": "mcp_tool_call",
                        "server": "gh",
                        "tool": "search",
                        "status": "completed",
                    },
                },
            ],
        ),
        (  # a command
            [
                _item(
                    {"type": "function_call", "call_id": "c1", "name": "shell", "arguments": "{}"}
                ),
                _event({"type": "exec_command_end", "call_id": "c1", "exit_code": 0}),
                _item({"type": "function_call_output", "call_id": "c1", "output": "ok"}),
            ],
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
            ],
        ),
        (  # a sub-agent spawned by a collab tool
            [
                _item(
                    {
                        "type": "function_call",
                        "call_id": "c1",
                        "name": "spawn_agent",
                        "arguments": "{}",
                    }
                ),
                _event({"type": "collab_tool_call", "call_id": "c1", "tool": "spawn_agent"}),
                _item({"type": "function_call_output", "call_id": "c1", "output": "spawned"}),
            ],
            [
                {
                    "type": "item.started",
                    "item": {
                        "id": "item_0",
                        "type": "collab_tool_call",
                        "tool": "spawn_agent",
                        "status": "in_progress",
                    },
                },
                {
                    "type": "item.completed",
                    "item": {
                        "id": "item_0",
                        "type": "collab_tool_call",
                        "tool": "spawn_agent",
                        "status": "completed",
                    },
                },
            ],
        ),
    ],
)
def test_one_action_counts_the_same_in_a_rollout_and_in_codex_exec(
    tmp_path: Path, rollout: list[dict], exec_items: list[dict]
) -> None:
    from tests.replay.records import replay

    a = replay(tmp_path, rollout, "rollout.jsonl")
    b = replay(tmp_path, [{"type": "thread.started", "thread_id": "t"}, *exec_items], "exec.jsonl")
    for r in (a, b):
        assert (r.calls, r.results, r.paired, r.duplicate_calls, r.orphans) == (1, 1, 1, (), ())


def test_a_response_object_holds_one_turn(tmp_path: Path) -> None:
    """`{"object": "response", "output": [...]}`: its client calls are answered in the next
    request, its server-side items inside it; each item has its real line."""
    from tests.replay.records import replay

    response = {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "output": [
            {"id": "rs_1", "type": "reasoning", "summary": []},
            {
                "id": "ct_1",
                "type": "custom_tool_call",
                "call_id": "c1",
                "name": "write_sql",
                "input": "SELECT 1",
            },
            {
                "id": "mcp_1",
                "type": "mcp_call",
                "name": "search",
                "server_label": "gh",
                "arguments": "{}",
                "status": "completed",
                "error": "boom",
            },
        ],
    }
    path = tmp_path / "response.json"
    path.write_text(json.dumps(response, indent=2))
    (r,) = replay_paths([str(path)]).files
    assert (r.format, r.calls, r.results, r.error_results) == ("openai-responses", 2, 1, 1)
    text = path.read_text().splitlines()
    assert [u.id for u in r.unanswered] == ["c1"]
    assert text[r.unanswered[0].line - 1].strip() == "{" and '"ct_1"' in text[r.unanswered[0].line]
    # the same object on one line of a JSONL file
    lines = replay(tmp_path, [response, response], "responses.jsonl")
    assert (lines.calls, lines.results) == (3, 2) and [u.line for u in lines.unanswered] == [1]
    assert [(d.id, d.kind) for d in lines.duplicate_calls] == [
        ("c1", "identical"),
        ("mcp_1", "reused"),
    ]
