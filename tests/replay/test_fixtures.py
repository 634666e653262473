"""toolsel's own fixtures in transcripts/: every kind of finding, in every format."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ROOT, Cli
from toolsel.replay.driver import replay_paths

T = ROOT / "transcripts"
TOP = sorted(str(p) for p in T.iterdir() if p.is_file())  # grid/ has its own test
REPORTS = {f.path.split("/")[-1]: f for f in replay_paths(TOP).files}


def kinds(report) -> set[tuple[str, str]]:
    return {(d.id, d.kind) for d in report.duplicate_calls}


def test_claude_code_session_has_every_finding() -> None:
    r = REPORTS["claude-code-session.jsonl"]
    assert r.format == "claude-code" and (r.calls, r.results, r.paired) == (9, 10, 8)
    assert kinds(r) == {
        ("toolu_grow", "enriched"),
        ("toolu_same", "identical"),
        ("toolu_clash", "conflicting"),
    }
    assert [d.id for d in r.duplicate_results] == ["toolu_clash"]
    assert [o.id for o in r.orphans] == ["toolu_nobody"]
    assert [(u.id, u.interrupted) for u in r.unanswered] == [("toolu_last", True)]
    assert [(s.parent_id, s.calls, s.rule) for s in r.subagents] == [
        ("toolu_task", 2, "sidechain-prompt")
    ]
    assert "toolu_copy" not in {u.id for u in r.unanswered}  # progress copies are never calls
    assert (
        2.0 in r.tools["read_file"].latencies
    )  # latency from timestamps; the streamed copy merged


def test_result_before_its_call_still_pairs() -> None:
    r = REPORTS["claude-code-session.jsonl"]
    assert "toolu_early" not in {o.id for o in r.orphans} | {u.id for u in r.unanswered}


@pytest.mark.parametrize(
    ("name", "fmt", "expected"),
    [
        (
            "stream-json-task.jsonl",
            "stream-json",
            {"calls": 3, "subagent": ("toolu_T", 2, "parent_tool_use_id"), "errors": 1},
        ),
        (
            "anthropic-messages.json",
            "anthropic",
            {"calls": 2, "orphans": ["toolu_ghost"], "unanswered": ["toolu_b"]},
        ),
        (
            "openai-chat.jsonl",
            "openai-chat",
            {"calls": 3, "reused": "call_1", "unanswered": ["call_2"]},
        ),
        ("openai-responses.jsonl", "openai-responses", {"calls": 1, "orphans": ["call_r9"]}),
        ("codex-rollout.jsonl", "codex-rollout", {"calls": 1, "errors": 1}),
        ("codex-exec.jsonl", "codex-exec", {"calls": 1}),
        ("swe-agent.traj", "openai-chat", {"calls": 2, "reused": "call_x"}),
    ],
)
def test_every_format(name: str, fmt: str, expected: dict) -> None:
    r = REPORTS[name]
    assert r.format == fmt and r.calls == expected["calls"]
    if "orphans" in expected:
        assert [o.id for o in r.orphans] == expected["orphans"]
    if "unanswered" in expected:
        assert [u.id for u in r.unanswered] == expected["unanswered"]
    if "reused" in expected:
        assert kinds(r) == {(expected["reused"], "reused")}
    if "subagent" in expected:
        assert [(s.parent_id, s.calls, s.rule) for s in r.subagents] == [expected["subagent"]]
    if "errors" in expected:
        assert r.error_results == expected["errors"]


def test_broken_lines_are_counted_and_the_rest_is_read() -> None:
    r = REPORTS["broken.jsonl"]
    reasons = {u.line: u.error for u in r.unreadable}
    assert sorted(reasons) == [2, 5, 6, 7, 8]
    assert (
        reasons[2].startswith("not JSON")
        and "UTF-8" in reasons[6]
        and "truncated last line" in reasons[8]
    )
    assert "unexpected shape" in reasons[5] and "unexpected shape" in reasons[7]
    assert r.paired == 1  # the BOM line and the CRLF line were read
    assert r.lines == (r.lines - len(r.unreadable) - r.blank) + len(r.unreadable) + r.blank == 8
    assert r.blank == 1


def test_empty_file_gives_an_empty_report(write) -> None:
    (r,) = replay_paths([str(write("empty.jsonl", ""))]).files
    assert (r.lines, r.calls, r.results, r.unreadable) == (0, 0, 0, ())


def test_ten_megabyte_line(write) -> None:
    big = json.dumps({"role": "tool", "tool_call_id": "c1", "content": "x" * (10 * 1024 * 1024)})
    call = json.dumps(
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        }
    )
    (r,) = replay_paths([str(write("big.jsonl", call + "\n" + big + "\n"))]).files
    assert r.paired == 1 and r.unreadable == ()


def test_a_line_over_the_limit_is_unreadable_and_the_rest_is_read(write, monkeypatch) -> None:
    """Lines over MAX_LINE_BYTES (64 MB) are refused unparsed; shown here with a 1 kB limit."""
    from toolsel.replay import lines

    monkeypatch.setattr(lines, "MAX_LINE_BYTES", 1000)
    call = json.dumps({"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]})  # fmt: skip
    huge = json.dumps({"role": "tool", "tool_call_id": "zz", "content": "x" * 5000})
    result = json.dumps({"role": "tool", "tool_call_id": "c1", "content": "ok"})
    path = write("limit.jsonl", "\n".join([call, huge, result]) + "\n")
    (r,) = replay_paths([str(path)]).files
    assert [u.line for u in r.unreadable] == [2]
    assert "over the 1,000-byte limit" in r.unreadable[0].error
    assert r.paired == 1 and r.lines == 3


def test_cli_json_contract_and_default_exit(cli: Cli) -> None:
    run = cli("replay", str(T / "claude-code-session.jsonl"), "-f", "json")
    data = json.loads(run.stdout)
    assert data["schema"] == "toolsel.replay/v1" and run.exit_code == 1  # orphan + conflicting
    (f,) = data["files"]
    assert {
        "path",
        "format",
        "lines",
        "calls",
        "results",
        "paired",
        "unreadable_lines",
        "unanswered_calls",
        "orphan_results",
        "duplicate_calls",
        "duplicate_results",
        "subagents",
        "violations",
        "tools",
    } <= set(f)
    assert data["summary"]["calls"] == 9 and data["summary"]["orphan_results"] == 1


def test_cli_fail_on(cli: Cli) -> None:
    chat = str(T / "openai-chat.jsonl")
    assert cli("replay", chat).exit_code == 0  # unanswered and reused are not failures by default
    assert cli("replay", chat, "--fail-on", "unanswered").exit_code == 1
    assert cli("replay", str(T / "claude-code-session.jsonl"), "--fail-on", "none").exit_code == 0
    run = cli("replay", chat, "--fail-on", "orphan")
    assert run.exit_code == 2 and "did you mean 'orphans'" in run.stderr


def test_cli_jsonl_events(cli: Cli) -> None:
    lines = [
        json.loads(line)
        for line in cli(
            "replay", str(T / "stream-json-task.jsonl"), "-f", "jsonl"
        ).stdout.splitlines()
    ]
    assert {line["event"] for line in lines} == {"tool_start", "tool_result"}
    child = next(
        line for line in lines if line["id"] == "toolu_c1" and line["event"] == "tool_start"
    )
    assert (child["parent"], child["parent_rule"], child["display_name"]) == (
        "toolu_T",
        "parent_tool_use_id",
        "List Directory",
    )
    assert child["schema"] == "toolsel.replay-event/v1"
    assert set(child) == {
        "schema",
        "event",
        "id",
        "tool",
        "display_name",
        "parent",
        "parent_rule",
        "turn_id",
        "file",
        "line",
    }


def test_cli_registry_violations(cli: Cli) -> None:
    run = cli(
        "replay",
        str(T / "openai-chat.jsonl"),
        "-r",
        str(ROOT / "registries"),
        "--permission",
        "write",
        "-f",
        "json",
    )
    violations = json.loads(run.stdout)["files"][0]["violations"]
    rules = {(v["tool"], v["rule"]) for v in violations}
    assert ("deploy_service", "permission") in rules
    # run_tests and check_health (its requires) both succeeded earlier in this transcript
    assert ("deploy_service", "requires") not in rules
    assert run.exit_code == 1


def test_cli_invalid_input_and_unknown_tool(cli: Cli, write) -> None:
    path = write(
        "t.jsonl",
        "\n".join(
            [
                json.dumps(
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "a",
                                "type": "function",
                                "function": {
                                    "name": "read_file",
                                    "arguments": json.dumps({"path": 3}),
                                },
                            }
                        ],
                    }
                ),
                json.dumps(
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "b",
                                "type": "function",
                                "function": {"name": "raed_file", "arguments": "{}"},
                            }
                        ],
                    }
                ),
                json.dumps(
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "c",
                                "type": "function",
                                "function": {
                                    "name": "patch_file",
                                    "arguments": json.dumps(
                                        {"path": "a", "old_text": "x", "new_text": "y"}
                                    ),
                                },
                            }
                        ],
                    }
                ),
                json.dumps(
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "d",
                                "type": "function",
                                "function": {
                                    "name": "rollback_deployment",
                                    "arguments": json.dumps(
                                        {"service": "api", "environment": "staging"}
                                    ),
                                },
                            }
                        ],
                    }
                ),
                json.dumps(
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "e",
                                "type": "function",
                                "function": {
                                    "name": "deploy_service",
                                    "arguments": json.dumps(
                                        {
                                            "service": "api",
                                            "environment": "staging",
                                            "image_tag": "1",
                                        }
                                    ),
                                },
                            }
                        ],
                    }
                ),
            ]
        )
        + "\n",
    )
    data = json.loads(cli("replay", str(path), "-r", str(ROOT / "registries"), "-f", "json").stdout)
    found = {(v["tool"], v["rule"]): v["message"] for v in data["files"][0]["violations"]}
    assert "input at /path is invalid" in found[("read_file", "invalid-input")]
    assert "did you mean 'read_file'" in found[("raed_file", "unknown-tool")]
    # read_file never succeeded (no result), so patch_file's requires is unmet
    assert "requires read_file" in found[("patch_file", "requires")]
    assert "conflicts with 'rollback_deployment'" in found[("deploy_service", "conflict")]


def test_cli_missing_input(cli: Cli, tmp_path) -> None:
    run = cli("replay", str(tmp_path / "nope.jsonl"))
    assert run.exit_code == 2 and "no such file" in run.stderr


def test_stdin(cli: Cli) -> None:
    text = (T / "openai-chat.jsonl").read_text()
    data = json.loads(cli("replay", "-", "-f", "json", input=text).stdout)
    assert data["files"][0]["calls"] == 3


def test_stats(cli: Cli) -> None:
    data = json.loads(cli("stats", *TOP, "-r", str(ROOT / "registries"), "-f", "json").stdout)
    assert data["schema"] == "toolsel.stats/v1" and data["transcripts"] == 9
    assert data["tools"]["read_file"] == {
        "calls": 4,
        "errors": 1,
        "error_rate": 0.25,
        "success_rate": 0.75,
        "median_latency_s": 1.0,
        "transcripts": 3,
    }
    assert "git_status" in data["never_called"] and len(data["co_used_pairs"]) == 20
    assert data["co_used_pairs"][0] == {"tools": ["Task", "list_directory"], "transcripts": 2}


def test_forced_input_format(cli: Cli) -> None:
    chat = str(T / "openai-chat.jsonl")
    wrong = json.loads(
        cli(
            "replay", chat, "--input-format", "claude-code", "-f", "json", "--fail-on", "none"
        ).stdout
    )["files"][0]
    assert wrong["calls"] == 0 and len(wrong["unreadable_lines"]) == 7
    right = json.loads(cli("replay", chat, "--input-format", "openai-chat", "-f", "json").stdout)[
        "files"
    ][0]
    assert right["calls"] == 3 and right["unreadable_lines"] == []
    assert cli("replay", chat, "--input-format", "gemini").exit_code == 2


def test_progress_reports_bytes_read(write) -> None:
    line = json.dumps({"role": "tool", "tool_call_id": "x", "content": "ok"}) + "\n"
    path = write("many.jsonl", line * 5000)
    seen: list[int] = []
    replay_paths([str(path)], progress=seen.append)
    assert len(seen) == 2 and sum(seen) == 4096 * len(line)  # every 2,048 lines


def test_resumed_session_copies_across_files_are_counted_once(cli: Cli, tmp_path) -> None:
    """A resumed Claude Code session copies the earlier messages into a new file: the same
    ids with the same tools. Each file still reports what it holds; the copies are counted
    (`copied_calls`), and `toolsel stats` counts those calls once."""

    def line(n: int, kind: str, call_id: str, tool: str = "read_file", error: bool = False) -> str:
        base = {"uuid": f"u{n}", "sessionId": "s", "timestamp": f"2026-01-01T00:00:0{n}Z"}
        if kind == "call":
            block = {"type": "tool_use", "id": call_id, "name": tool, "input": {}}
            return json.dumps({**base, "type": "assistant", "message": {"id": f"m{n}", "content": [block]}})  # fmt: skip
        block = {"type": "tool_result", "tool_use_id": call_id, "content": "x", "is_error": error}
        return json.dumps({**base, "type": "user", "message": {"content": [block]}})

    first = [line(1, "call", "t1"), line(2, "result", "t1", error=True), line(3, "call", "t2", "run_tests"), line(4, "result", "t2")]  # fmt: skip
    resumed = [*first, line(5, "call", "t3", "write_file"), line(6, "result", "t3")]
    (tmp_path / "a.jsonl").write_text("\n".join(first) + "\n")
    (tmp_path / "b.jsonl").write_text("\n".join(resumed) + "\n")
    a, b = replay_paths([str(tmp_path)]).files
    assert (a.calls, a.copied_calls) == (2, 0)
    assert (b.calls, b.copied_calls) == (3, 2) and not b.duplicate_calls
    report = json.loads(cli("replay", str(tmp_path), "-f", "json").stdout)
    assert report["summary"]["copied_calls"] == 2 and report["summary"]["calls"] == 5
    stats = json.loads(cli("stats", str(tmp_path), "-f", "json").stdout)["tools"]
    assert stats["read_file"] == {**stats["read_file"], "calls": 1, "errors": 1, "transcripts": 1}
    assert stats["write_file"]["calls"] == 1 and stats["run_tests"]["transcripts"] == 1
    # listeners (an event sink) see the same calls, and the same copies are counted
    events: list[object] = []
    (a2, b2) = replay_paths([str(tmp_path)], on_event=events.append).files
    assert (a2.copied_calls, b2.copied_calls) == (0, 2) and len(events) == 2 * (4 + 6) // 2
    # one file alone has nothing to be a copy of
    (alone,) = replay_paths([str(tmp_path / "b.jsonl")]).files
    assert alone.copied_calls == 0
