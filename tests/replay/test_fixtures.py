"""toolsel's own fixtures in transcripts/: every kind of finding, in every format."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ROOT, Cli
from toolsel.replay.driver import replay_paths

T = ROOT / "transcripts"
TOP = sorted(str(p) for p in T.iterdir() if p.is_file())  # grid/ has its own test
#: agents/: one small file per format of the other agents, with what makes each one special
AGENTS = sorted(str(p) for p in (T / "agents").iterdir())
REPORTS = {f.path.split("/")[-1]: f for f in replay_paths(TOP + AGENTS).files}


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
        # formats that log an action twice (a running snapshot, a start and an end): every
        # action counts once, so none of them has duplicates
        (
            "gemini-cli.jsonl",
            "gemini-cli",
            {"calls": 4, "results": 3, "errors": 2, "unanswered": ["write_file-1"]},
        ),
        ("kimi.jsonl", "kimi", {"calls": 3, "results": 2, "errors": 1, "unanswered": ["Glob_2"]}),
        (
            "antigravity.jsonl",
            "antigravity",
            {"calls": 3, "results": 2, "errors": 1, "unanswered": ["c1/step-4"]},
        ),
        (
            "cursor-transcript.jsonl",
            "cursor-transcript",
            {"calls": 3, "results": 2, "unanswered": ["noid:6:0"], "without_id": (3, 0)},
        ),
        ("cursor-stream-json.jsonl", "cursor-stream-json", {"calls": 3, "results": 3, "errors": 2}),
        (
            "openai-response.json",
            "openai-responses",
            {"calls": 3, "results": 2, "unanswered": ["call_1"], "without_id": (1, 1)},
        ),
        # issue 34: a decoder per format, each told apart by its content signature
        (
            "qwen-code.jsonl",
            "qwen-code",
            {"calls": 3, "results": 2, "errors": 1, "unanswered": ["call_write"]},
        ),
        (
            "kimi-context.jsonl",
            "kimi-context",
            {"calls": 3, "results": 2, "errors": 1, "unanswered": ["Think:2"]},
        ),
        (
            "goose.jsonl",
            "goose",
            {"calls": 3, "results": 2, "errors": 1, "unanswered": ["toolu_c"]},
        ),
        (
            "opencode.jsonl",
            "opencode",
            {"calls": 3, "results": 2, "errors": 1, "unanswered": ["call_edit"]},
        ),
        (
            "continue.json",
            "continue",
            {"calls": 3, "results": 2, "errors": 1, "unanswered": ["tc_edit"]},
        ),
        # server tools answered in the same message; an `_error` content object is an error
        (
            "anthropic-server-tools.json",
            "anthropic",
            {"calls": 6, "results": 5, "errors": 2, "unanswered": ["srvtoolu_fetch"]},
        ),
        # hosted tools: each item is the call and, with a final status, its result
        (
            "openai-responses-hosted.json",
            "openai-responses",
            {"calls": 7, "results": 6, "errors": 2, "unanswered": ["ci_2"]},
        ),
        # each tool invocation part holds its outcome; denied is an error, incomplete is open
        (
            "vscode-chat.json",
            "vscode-chat",
            {"calls": 5, "results": 4, "errors": 2, "unanswered": ["toolu_test"]},
        ),
        # the same session as a journal of patches: a part rewritten as it runs counts once
        (
            "vscode-chat.jsonl",
            "vscode-chat",
            {"calls": 4, "results": 3, "errors": 2, "unanswered": ["toolu_test"]},
        ),
        # a chat replay export: each `toolCall` entry holds its response (or `error`); the
        # `request` entry restating a call to the model and the `error` entry are not calls
        (
            "vscode-chat.chatreplay.json",
            "vscode-chatreplay",
            {"calls": 3, "results": 3, "errors": 1, "unanswered": []},
        ),
        # Anthropic blocks, but results by `toolUseID` with a run status
        (
            "amp-thread.json",
            "amp",
            {"calls": 5, "results": 4, "errors": 2, "unanswered": ["toolu_test"]},
        ),
        # calls in XML tags, results in text blocks: no ids, paired by position
        (
            "cline-api-conversation-history.json",
            "cline",
            {
                "calls": 6,
                "results": 5,
                "errors": 2,
                "unanswered": ["noid:123:0"],
                "without_id": (6, 5),
            },
        ),
    ],
)
def test_every_format(name: str, fmt: str, expected: dict) -> None:
    r = REPORTS[name]
    assert r.format == fmt and r.calls == expected["calls"]
    assert r.unread_tools == () and r.skipped_records == 0
    if "results" in expected:
        assert r.duplicate_calls == r.duplicate_results == r.orphans == r.unreadable == ()
        assert r.results == r.paired == expected["results"]
    if "without_id" in expected:
        assert (r.calls_without_id, r.results_without_id) == expected["without_id"]
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


def test_progress_reports_bytes_read(write) -> None:
    line = json.dumps({"role": "tool", "tool_call_id": "x", "content": "ok"}) + "\n"
    path = write("many.jsonl", line * 5000)
    seen: list[int] = []
    replay_paths([str(path)], progress=seen.append)
    # every 2,048 lines, and the rest at the end
    assert seen == [2048 * len(line), 2048 * len(line), 904 * len(line)]


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
    # a copy's latency was counted in the file it came from
    assert a.tools["read_file"].latencies == (1.0,) and b.tools["read_file"].latencies == ()
    assert b.tools["write_file"].latencies == (1.0,)
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


def test_claude_web_export_loglines_are_read(tmp_path) -> None:
    lines = [
        {
            "type": "assistant",
            "uuid": "a",
            "sessionId": "s",
            "message": {
                "id": "m1",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}],
            },
        },
        {
            "type": "user",
            "uuid": "b",
            "sessionId": "s",
            "message": {
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}]
            },
        },
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps({"loglines": lines, "title": "a session"}))
    (report,) = replay_paths([str(path)]).files
    assert (report.format, report.calls, report.paired) == ("claude-code", 1, 1)


def test_an_old_swe_agent_trajectory_says_it_has_no_tool_calls(cli: Cli, tmp_path) -> None:
    traj = {
        "trajectory": [
            {"action": "ls -la", "observation": "a.py", "response": "Let me look."},
            {"action": "open a.py", "observation": "...", "response": "Opening."},
        ],
        "history": [
            {"role": "system", "content": "You are an agent."},
            {"role": "assistant", "content": "ls -la"},
        ],
        "info": {"exit_status": "submitted"},
    }
    path = tmp_path / "old.traj"
    path.write_text(json.dumps(traj))
    (report,) = replay_paths([str(path)]).files
    assert report.calls == 0 and "no tool calls in this format" in report.notes[0]
    assert "2 trajectory steps" in report.notes[0]
    human = cli("replay", str(path)).stdout
    assert "note: no tool calls in this format" in human
    data = json.loads(cli("replay", str(path), "-f", "json").stdout)
    assert data["files"][0]["notes"] == list(report.notes)
    stats = json.loads(cli("stats", str(path), "-f", "json").stdout)
    assert stats["notes"] == list(report.notes)


STREAM = [
    {"type": "system", "subtype": "init", "session_id": "s1", "tools": []},
    {
        "type": "assistant",
        "message": {
            "id": "m1",
            "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}
            ],
        },
        "session_id": "s1",
    },
    {
        "type": "user",
        "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a"}]},
        "session_id": "s1",
    },
    {"type": "result", "subtype": "success", "session_id": "s1"},
]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("lines.jsonl", "\n".join(json.dumps(m) for m in STREAM) + "\n"),  # no uuid, no parent
        ("output.json", json.dumps(STREAM, indent=2)),  # claude-code-action's array
        ("output.jsonl", json.dumps(STREAM, indent=2)),  # the same array, named .jsonl
    ],
)
def test_stream_json_is_detected_without_input_format(tmp_path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    (report,) = replay_paths([str(path)]).files
    assert (report.format, report.calls, report.paired, report.unreadable) == (
        "stream-json",
        1,
        1,
        (),
    )


def test_a_json_array_on_stdin_is_read_whole(cli: Cli) -> None:
    run = cli("replay", "-", "-f", "json", input=json.dumps(STREAM, indent=2))
    (f,) = json.loads(run.stdout)["files"]
    assert (f["format"], f["calls"], f["paired"]) == ("stream-json", 1, 1)


def test_an_array_larger_than_the_limit_is_read_line_by_line(tmp_path, monkeypatch) -> None:
    from toolsel.replay import lines

    monkeypatch.setattr(lines, "MAX_LINE_BYTES", 200)
    path = tmp_path / "big.jsonl"
    path.write_text("[\n" + ",\n".join(json.dumps(m) for m in STREAM) + "\n]\n")
    (report,) = replay_paths([str(path)]).files
    assert report.lines == len(STREAM) + 2  # nothing lost: every line counted
    assert report.unreadable  # `[`, `]` and trailing commas are not JSON lines
