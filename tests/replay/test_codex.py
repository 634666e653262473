"""Codex rollouts and `codex exec --json`: failures without an error flag, items reported
only on completion, and ids that restart in every run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import pytest

from tests.replay.records import CORPUS, corpus_sizes
from toolsel.replay.driver import replay_paths
from toolsel.replay.events import NOTHING, UNKNOWN, Call, Human, Result, Session
from toolsel.replay.formats.codex import exec_event, item_events, output_failed, responses, rollout


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


# -- the decoders, item by item ----------------------------------------------------------

AT = "2026-08-03T10:48:56.000Z"


def test_a_call_items_id_name_and_arguments() -> None:
    def call(item: dict) -> list:
        decoded = responses(item)
        assert decoded is not None and decoded[0] == "openai-responses"
        return decoded[1]

    function = {"type": "function_call", "call_id": "c1", "name": "shell", "arguments": '{"command": ["ls"]}'}  # fmt: skip
    assert call(function) == [Call("c1", "shell", '{"command": ["ls"]}', encoded=True)]
    assert call({**function, "name": ""}) == [Call("c1", "function_call", '{"command": ["ls"]}', encoded=True)]  # fmt: skip
    assert call(
        {
            "type": "custom_tool_call",
            "call_id": "c2",
            "name": "apply_patch",
            "input": "*** Begin Patch",
        }
    ) == [Call("c2", "apply_patch", "*** Begin Patch", freeform=True)]
    shell = {"type": "local_shell_call", "call_id": None, "id": "lsh_1", "action": {"type": "exec", "command": ["ls"]}}  # fmt: skip
    assert call(shell) == [Call("lsh_1", "local_shell_call", {"type": "exec", "command": ["ls"]})]
    # the Agents SDK's items (CodeBuddy) say `callId`
    assert call(
        {"type": "function_call", "callId": "c3", "name": "read", "arguments": {"p": 1}}
    ) == [Call("c3", "read", {"p": 1})]
    assert call({"type": "computer_call", "id": "cu_1", "action": None}) == [Call("", "computer_call", {})]  # fmt: skip
    assert call({"type": "shell_call", "call_id": 4, "arguments": "{}", "input": "x"}) == [Call("4", "shell_call", "{}", encoded=True)]  # fmt: skip
    assert call({"type": "apply_patch_call", "call_id": True, "input": "p", "action": {}}) == [Call("", "apply_patch_call", "p", encoded=True)]  # fmt: skip


def test_an_output_items_error_flag() -> None:
    def failed(**item: object) -> bool:
        decoded = responses({"type": "function_call_output", "call_id": "c1", **item})
        assert decoded is not None and decoded[0] == "openai-responses"
        (result,) = decoded[1]
        assert result.id == "c1"
        return result.is_error

    assert failed(output="Exit code: 0\nOutput:\nok") is False
    assert failed(output="Exit code: 1\nOutput:\nTraceback") is True
    assert failed(output="Exit code: 0", status="failed") is True
    assert failed(output="Exit code: 0", status="completed") is False
    assert failed(output="Exit code: 7", status="completed") is True
    assert failed(output="Exit code: 0", success=False) is True
    assert failed(output="Exit code: 0", success=True) is False
    assert failed(output={"content": "denied", "success": False}) is True
    assert failed(output={"content": "ok", "success": True}) is False
    assert failed(output={"content": "ok"}) is False
    assert failed(output=[{"type": "exec", "outcome": {"type": "exit", "exit_code": 2}}]) is True
    assert failed(output=[{"outcome": {"exit_code": 0}}, {"outcome": "x"}, "part"]) is False
    assert failed(output=[{"outcome": {"exit_code": "2"}}]) is False
    assert failed(output=[{"type": "input_text", "text": "done"}]) is False
    assert failed(output=None) is False


def test_a_server_side_item_is_a_call_and_once_it_ended_its_result() -> None:
    def item(**fields: object) -> list:
        decoded = responses(fields)
        assert decoded is not None and decoded[0] == "openai-responses"
        return decoded[1]

    search = {"type": "web_search_call", "id": "ws_1", "action": {"type": "search", "query": "q"}}
    call = Call("ws_1", "web_search_call", {"type": "search", "query": "q"})
    assert item(**search, status="completed") == [call, Result("ws_1", False)]
    assert item(**search, status="failed") == [call, Result("ws_1", True, error=ANY)]
    assert item(**search, status="incomplete") == [call, Result("ws_1", False)]
    assert item(**search, status="cancelled") == [call, Result("ws_1", False)]
    assert item(**search, status="in_progress") == [call]
    assert item(**search, status=["failed"]) == [call]
    assert item(**search, status="in_progress", error={"message": "x"}) == [call, Result("ws_1", True, error=ANY)]  # fmt: skip
    mcp = {"type": "mcp_call", "id": "mcp_1", "name": "search", "arguments": '{"q": 1}', "status": "completed"}  # fmt: skip
    assert item(**mcp) == [Call("mcp_1", "search", '{"q": 1}', encoded=True), Result("mcp_1", False, size=0)]  # fmt: skip
    assert item(**mcp, error="boom") == [Call("mcp_1", "search", '{"q": 1}', encoded=True), Result("mcp_1", True, error=ANY, size=4)]  # fmt: skip
    assert item(**{**mcp, "name": ""}, error="") == [Call("mcp_1", "mcp_call", '{"q": 1}', encoded=True), Result("mcp_1", False, size=0)]  # fmt: skip
    assert item(type="code_interpreter_call", id="ci_1", code="print(1)") == [Call("ci_1", "code_interpreter_call", "print(1)", encoded=True)]  # fmt: skip
    assert item(type="file_search_call", id=5, queries=["q"]) == [Call("5", "file_search_call", ["q"])]  # fmt: skip
    assert item(type="image_generation_call", status="generating") == [Call("", "image_generation_call", {})]  # fmt: skip


@pytest.mark.parametrize(
    ("fields", "size"),
    [
        ({"type": "mcp_call", "output": "4", "error": None}, 1),  # what the server's tool said
        ({"type": "mcp_call", "output": None, "error": "Error: 404 Not Found"}, 20),
        ({"type": "mcp_call", "output": '{"é": 1}', "error": "x"}, 9),
        ({"type": "code_interpreter_call", "code": "x", "outputs": [{"type": "logs", "logs": "(10000, 70024)"}, {"type": "image", "url": "u"}]}, 14),
        ({"type": "code_interpreter_call", "code": "x", "outputs": []}, 0),
        ({"type": "code_interpreter_call", "code": "x", "outputs": None}, 0),
        ({"type": "web_search_call", "action": {"type": "search", "query": "q"}}, -1),  # results not held
        ({"type": "file_search_call", "queries": ["q"], "results": None}, -1),
        ({"type": "image_generation_call", "result": "QUJD"}, -1),
    ],
)  # fmt: skip
def test_a_server_side_items_size_is_the_text_it_holds(fields: dict[str, Any], size: int) -> None:
    decoded = responses({"id": "h1", "status": "completed", **fields})
    assert decoded is not None
    assert decoded[1][-1].size == size


def test_item_events_of_an_item_that_holds_no_call() -> None:
    assert item_events({"type": "reasoning", "id": "rs_1", "summary": []}, AT) == []
    assert item_events({"type": "function_call_output", "call_id": "c1", "output": "ok"}, AT) == [Result("c1", False, timestamp=AT, size=2)]  # fmt: skip


def test_a_response_object_and_the_other_items() -> None:
    output = [
        {"id": "rs_1", "type": "reasoning", "summary": []},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": 3, "call_id": "c2"},
        "function_call",
    ]
    assert responses({"id": "resp_1", "object": "response", "output": output}) == (
        "openai-responses",
        [Call("c1", "f", "{}", encoded=True)],
    )
    assert responses({"object": "response", "output": {"type": "function_call"}}) is None
    assert responses({"object": "list", "output": output}) is None
    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix it"}]}  # fmt: skip
    assert responses(user) == ("openai-responses", [Human("fix it")])
    assert responses({**user, "content": [{"type": "input_text", "text": "<environment_context>"}]}) == ("openai-responses", [])  # fmt: skip
    assert responses({**user, "role": "assistant"}) == ("openai-responses", ())
    assert responses({"type": "reasoning", "id": "rs_1"}) == ("openai-responses", ())
    assert responses({"type": "future_call", "call_id": "c9"}) is None
    assert responses(["function_call"]) is None


@pytest.mark.parametrize(
    ("output", "failed"),
    [
        ('{"output": "Exit code: 1", "metadata": {}}', False),  # JSON: only its metadata counts
        ('{"output": "x", "metadata": {"exit_code": "1"}}', False),
        ('{"output": "x", "metadata": "exit_code 1"}', False),
        ("{not JSON, exit code: 4", True),
        ("[1, 2]\nExit code: 3", True),
        ("  Aborted by the user", True),
        ("Execution error: timeout", True),
        ("exit code 5: the command failed", True),
        ("Process exited with code -1", True),
        ("ok, exit code: 2, stderr: x", True),
        ("ok,exit code: 2", False),
        ("x" * 400 + "\nExit code: 1", False),  # past the head, where the exit-code line is not
        ("x" * 380 + "\nExit code: 1", True),
        ("x" * 388 + "\nExit code: 1", False),  # its number is the 401st character
        ('{"output": "' + "x" * 400 + '", "metadata": {"exit_code": 1}}', True),  # parsed whole
        (b"Exit code: 1", False),
    ],
)
def test_more_text_outputs(output: object, failed: bool) -> None:
    assert output_failed(output) is failed


def test_rollout_lines_of_every_kind() -> None:
    function = {"type": "function_call", "call_id": "c1", "name": "shell", "arguments": "{}"}
    assert rollout({"timestamp": AT, "type": "response_item", "payload": function}) == (
        "codex-rollout",
        [Call("c1", "shell", "{}", timestamp=AT, encoded=True)],
    )
    assert rollout({"timestamp": 5, "type": "response_item", "payload": function}) == (
        "codex-rollout",
        [Call("c1", "shell", "{}", encoded=True)],
    )
    output = {"type": "function_call_output", "call_id": "c1", "output": {"content": "x", "success": False}}  # fmt: skip
    assert rollout({"timestamp": AT, "type": "response_item", "payload": output}) == (
        "codex-rollout",
        [Result("c1", True, error=ANY, timestamp=AT, size=1)],
    )
    search = {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"query": "q"}}  # fmt: skip
    assert rollout({"timestamp": AT, "type": "response_item", "payload": search}) == (
        "codex-rollout",
        [
            Call("ws_1", "web_search_call", {"query": "q"}, timestamp=AT),
            Result("ws_1", False, timestamp=AT),
        ],
    )
    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}
    assert rollout({"type": "response_item", "payload": user}) == ("codex-rollout", [Human("go")])
    assistant = rollout({"type": "response_item", "payload": {**user, "role": "assistant"}})
    assert assistant == ("codex-rollout", ()) and assistant[1] is NOTHING
    for payload in ({"type": "future_item"}, {"type": None}, {"text": "x"}):
        decoded = rollout({"type": "response_item", "payload": payload})
        assert decoded == ("codex-rollout", UNKNOWN)
    assert rollout({"type": "session_meta", "payload": {"id": "s1", "cwd": "/x"}}) == ("codex-rollout", [Session("s1")])  # fmt: skip
    meta = rollout({"type": "session_meta", "payload": {"cwd": "/x"}})
    assert meta == ("codex-rollout", ()) and meta[1] is NOTHING
    context = rollout({"type": "turn_context", "payload": {"cwd": "/x"}})
    assert context == ("codex-rollout", ()) and context[1] is NOTHING
    token = rollout({"type": "event_msg", "payload": {"type": "token_count", "call_id": "c1"}})
    assert token == ("codex-rollout", ()) and token[1] is NOTHING
    for line_type in ("future_line", 7):
        decoded = rollout({"type": line_type, "payload": {}})
        assert decoded == ("codex-rollout", UNKNOWN)
    assert rollout({"type": "response_item", "payload": "x"}) is None
    assert rollout({"type": "response_item"}) is None and rollout("x") is None


def end(payload: dict, timestamp: object = AT) -> list:
    decoded = rollout({"timestamp": timestamp, "type": "event_msg", "payload": payload})
    assert decoded is not None and decoded[0] == "codex-rollout"
    return decoded[1]


def test_an_end_event_is_an_implicit_call_and_result_named_by_its_tool() -> None:
    def echo(call_id: str, tool: str, arguments: object, failed: bool = False) -> list:
        return [
            Call(call_id, tool, arguments, timestamp=AT, implicit=True),
            Result(call_id, failed, timestamp=AT, implicit=True),
        ]

    command = {"type": "exec_command_end", "call_id": "c1", "command": ["ls"], "exit_code": 0}
    assert end(command) == echo("c1", "exec_command", ["ls"])
    assert end({**command, "command": None}) == echo("c1", "exec_command", {})
    assert end({"type": "patch_apply_end", "call_id": "c2", "success": True}) == echo("c2", "apply_patch", {})  # fmt: skip
    assert end({"type": "view_image_tool_call", "call_id": "c3", "path": "a.png"}) == echo("c3", "view_image", {})  # fmt: skip
    assert end({"type": "dynamic_tool_call_response", "call_id": "c4"}) == echo("c4", "dynamic_tool_call_response", {})  # fmt: skip
    assert end({"type": "collab_tool_call", "call_id": "c5", "tool": "spawn_agent"}) == echo("c5", "spawn_agent", {})  # fmt: skip
    assert end({"type": "collab_agent_spawn_end", "call_id": "c6", "tool": ""}) == echo("c6", "spawn_agent", {})  # fmt: skip
    assert end({"type": "collab_waiting_end", "call_id": 7}) == echo("7", "wait", {})
    mcp = {"type": "mcp_tool_call_end", "call_id": "c8", "invocation": {"server": "gh", "tool": "search", "arguments": {"q": "x"}}}  # fmt: skip
    assert end(mcp) == echo("c8", "mcp__gh__search", {"q": "x"})
    assert end({**mcp, "invocation": {"server": "gh"}, "tool": "t"}) == echo("c8", "mcp__gh__", {})
    assert end({**mcp, "invocation": "gh.search"}) == echo("c8", "mcp____", {})
    (call, result) = end(command, timestamp=5)
    assert (call.timestamp, result.timestamp) == (None, None)
    assert end({"type": "exec_command_end", "call_id": "", "exit_code": 1}) == []
    assert end({"type": "exec_command_end", "exit_code": 1}) == []


@pytest.mark.parametrize(
    ("payload", "size"),
    [
        ({"type": "mcp_tool_call_end", "result": {"Ok": {"content": [{"type": "text", "text": "é"}], "isError": False}}}, 2),
        ({"type": "mcp_tool_call_end", "result": {"Ok": {"content": [], "isError": False, "_meta": None}}}, 0),
        ({"type": "mcp_tool_call_end", "result": {"Err": "tool call timed out"}}, 19),
        ({"type": "mcp_tool_call_end", "result": "Err"}, -1),
        ({"type": "exec_command_end", "aggregated_output": "a\nb\n", "stdout": "a\n", "stderr": "b\n", "exit_code": 0}, 4),
        ({"type": "exec_command_end", "stdout": "a\n", "stderr": "err", "exit_code": 1}, 5),
        ({"type": "exec_command_end", "exit_code": 0}, -1),  # trimmed: not measured
        ({"type": "view_image_tool_call", "path": "a.png"}, -1),
        ({"type": "patch_apply_end", "success": True, "stdout": "Success. Updated a.txt\n", "stderr": ""}, 23),
    ],
)  # fmt: skip
def test_an_end_events_size_is_its_text(payload: dict[str, Any], size: int) -> None:
    (_, result) = end({"call_id": "c1", **payload})
    assert result.size == size


def test_an_end_events_error_flag() -> None:
    def failed(**payload: object) -> bool:
        call, result = end({"type": "exec_command_end", "call_id": "c1", **payload})
        assert result.id == call.id == "c1"
        return result.is_error

    assert failed(exit_code=0) is False
    assert failed(exit_code=2) is True
    assert failed(exit_code="2") is False
    assert failed(success=False) is True
    assert failed(success=True, exit_code=0) is False
    assert failed(status="failed") is True
    assert failed(status="error") is True
    assert failed(status="completed") is False
    assert failed(result={"Err": "timeout"}) is True
    assert failed(result={"Ok": {"content": [], "isError": True}}) is True
    assert failed(result={"Ok": {"content": [], "isError": False}}) is False
    assert failed(result={"Ok": "isError"}) is False
    assert failed(result="Err") is False


def exec_item(kind: str, item: object) -> tuple | None:
    return exec_event({"type": kind, "item": item})


def test_codex_exec_items() -> None:
    started = {"id": "item_0", "type": "command_execution", "command": "ls", "aggregated_output": "", "status": "in_progress"}  # fmt: skip
    assert exec_item("item.started", started) == (
        "codex-exec",
        [Call("item_0", "command_execution", {"command": "ls"})],
    )
    done = {**started, "exit_code": 0, "status": "completed"}
    assert exec_item("item.completed", done) == ("codex-exec", [Result("item_0", False, size=0)])
    assert exec_item("item.completed", {**done, "exit_code": 1}) == ("codex-exec", [Result("item_0", True, error=ANY, size=0)])  # fmt: skip
    assert exec_item("item.completed", {**done, "exit_code": "1"}) == ("codex-exec", [Result("item_0", False, size=0)])  # fmt: skip
    assert exec_item("item.completed", {**done, "status": "failed"}) == ("codex-exec", [Result("item_0", True, error=ANY, size=0)])  # fmt: skip
    assert exec_item("item.updated", done) == ("codex-exec", ())
    assert exec_item("item.started", {**started, "id": 0}) == ("codex-exec", ())


@pytest.mark.parametrize(
    ("item", "size"),
    [
        ({"type": "command_execution", "aggregated_output": "total 8\nmain.go\n", "exit_code": 0}, 16),
        ({"type": "command_execution", "aggregated_output": "é", "exit_code": 2}, 2),
        ({"type": "command_execution", "exit_code": 0}, -1),  # a trimmed record: not measured
        ({"type": "mcp_tool_call", "result": {"content": [{"type": "text", "text": "abc"}], "structured_content": None}}, 3),
        ({"type": "mcp_tool_call", "result": None, "error": {"message": "timed out"}, "status": "failed"}, 9),
        ({"type": "file_change", "changes": [{"path": "a.py", "kind": "update"}]}, -1),
        ({"type": "web_search", "query": "q"}, -1),
    ],
)  # fmt: skip
def test_a_codex_exec_items_size_is_its_output(item: dict[str, Any], size: int) -> None:
    decoded = exec_item("item.completed", {"id": "i", "status": "completed", **item})
    assert decoded is not None
    assert decoded[1][-1].size == size


def test_codex_exec_tool_items_are_named_by_their_tool() -> None:
    mcp = {"id": "item_1", "type": "mcp_tool_call", "server": "gh", "tool": "search", "arguments": {"q": "x"}, "status": "in_progress"}  # fmt: skip
    assert exec_item("item.started", mcp) == ("codex-exec", [Call("item_1", "search", {"q": "x"})])
    assert exec_item("item.started", {**mcp, "arguments": None}) == ("codex-exec", [Call("item_1", "search", {})])  # fmt: skip
    assert exec_item("item.started", {**mcp, "tool": ""}) == (
        "codex-exec",
        [Call("item_1", "mcp_tool_call", {"server": "gh", "tool": "", "arguments": {"q": "x"}})],
    )
    collab = {"id": "item_2", "type": "collab_tool_call", "tool": "spawn_agent", "prompt": "p"}
    assert exec_item("item.started", collab) == ("codex-exec", [Call("item_2", "spawn_agent", {})])  # fmt: skip
    search = {"id": "item_3", "type": "web_search", "query": "q", "tool": "x"}
    assert exec_item("item.started", search) == ("codex-exec", [Call("item_3", "web_search", {"query": "q", "tool": "x"})])  # fmt: skip


def test_codex_exec_items_reported_only_on_completion_are_a_call_and_a_result() -> None:
    change = {"id": "item_4", "type": "file_change", "changes": [{"path": "a.py", "kind": "update"}], "status": "completed"}  # fmt: skip
    assert exec_item("item.completed", change) == (
        "codex-exec",
        [
            Call(
                "item_4",
                "file_change",
                {"changes": [{"path": "a.py", "kind": "update"}]},
                implicit=True,
            ),
            Result("item_4", False),
        ],
    )
    search = {"id": "item_5", "type": "web_search", "query": "q"}
    assert exec_item("item.completed", search) == (
        "codex-exec",
        [Call("item_5", "web_search", {"query": "q"}, implicit=True), Result("item_5", False)],
    )


def test_codex_exec_events_without_a_tool_item() -> None:
    assert exec_event({"type": "thread.started", "thread_id": "t1"}) == ("codex-exec", [Session("t1")])  # fmt: skip
    started = exec_event({"type": "thread.started", "thread_id": 1})
    assert started == ("codex-exec", ()) and started[1] is NOTHING
    for event in (
        {"type": "turn.started"},
        {"type": "turn.completed", "usage": {}},
        {"type": "item.completed", "item": "x"},
        {"type": "item.completed", "item": {"type": 1}},
        {
            "type": "item.completed",
            "item": {"id": "item_6", "type": "agent_message", "text": "done"},
        },
        {"type": "item.started", "item": {"id": "item_7", "type": "todo_list", "items": []}},
    ):
        decoded = exec_event(event)
        assert decoded == ("codex-exec", ()) and decoded[1] is NOTHING
    future = exec_event({"type": "item.completed", "item": {"id": "item_8", "type": "future_tool"}})
    assert future == ("codex-exec", UNKNOWN)
    assert exec_event({"type": 1, "item": {}}) is None and exec_event("item.started") is None


def _freeform_rollout() -> str:
    patch = "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n"
    lines = [
        {"type": "session_meta", "payload": {"id": "s-freeform"}},
        {
            "timestamp": "2026-01-01T00:00:00.000Z",
            "type": "response_item",
            "payload": {
                "type": "custom_tool_call",
                "call_id": "call_patch",
                "name": "apply_patch",
                "input": patch,
                "status": "completed",
            },
        },
        {
            "timestamp": "2026-01-01T00:00:01.000Z",
            "type": "response_item",
            "payload": {
                "type": "custom_tool_call_output",
                "call_id": "call_patch",
                "output": '{"output":"Success. Updated the following files:\\nA hello.txt\\n","metadata":{"exit_code":0}}',
            },
        },
        {
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "call_id": "call_bad",
                "name": "shell",
                "arguments": "{not json",
            },
        },
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


def test_a_freeform_input_is_text_not_json(write, cli) -> None:  # type: ignore[no-untyped-def]
    """Issue 34: a custom tool's input is text under a grammar (Codex's freeform apply_patch):
    never "arguments are not JSON"; a function call's unreadable arguments still are."""
    path = str(write("rollout.jsonl", _freeform_rollout()))
    (call,) = rollout(json.loads(_freeform_rollout().splitlines()[1]))[1]
    assert isinstance(call, Call) and call.freeform and call.arguments.startswith("*** Begin")
    assert call.arguments_problem() is None
    result = cli("replay", path, "-r", "builtin:codex", "-f", "json", "--fail-on", "none")
    (report,) = json.loads(result.stdout)["files"]
    assert report["calls"] == 2 and report["paired"] == 1
    messages = {v["id"]: v["message"] for v in report["violations"]}
    assert "call_patch" not in messages
    assert "not JSON" in messages["call_bad"]  # the same check still bites a function call


def test_the_corpus_hosted_items_sizes() -> None:
    name = "openai-responses/vercel-ai/openai-mcp-tool.1.json"
    (output,) = [
        item["output"]
        for item in json.loads((CORPUS / name).read_text(encoding="utf-8"))["output"]
        if item.get("type") == "mcp_call"
    ]
    assert corpus_sizes(name) == {"web_search_exa": (len(output.encode()),)}
    logs = corpus_sizes("openai-responses/vercel-ai/openai-code-interpreter-tool.1.json")
    assert logs["code_interpreter_call"][:2] == (len("(10000, 70024)"), 0)
