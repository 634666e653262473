"""Never a silent zero: a record holding tool-call-like content that no decoder read is
reported (and exits 1 unless `--fail-on` drops `unread-tools`); a record of an unknown type
with no tool content is skipped and counted, not unreadable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import Cli
from tests.replay.records import replay
from toolsel.replay.file import replay_file
from toolsel.replay.unread import (
    BUDGET,
    CALL_IDS,
    TOOL_KEYS,
    TOOL_TYPES,
    may_hold_tool_content,
    tool_content,
)


@pytest.mark.parametrize(
    ("record", "where"),
    [
        ({"type": "assistant", "tool_calls": [{"id": "a"}]}, "`tool_calls` at /"),
        (
            {"message": {"content": [{"type": "text"}, {"type": "tool_use"}]}},
            "`type tool_use` at /message/content/1",
        ),
        (
            {"data": {"toolCallId": "c", "toolName": "bash", "arguments": {}}},
            "`an id, a tool name and arguments` at /data",
        ),
        ({"a/b": {"functionCall": {"name": "f"}}}, "`functionCall` at /a~1b"),
    ],
)
def test_tool_content_says_where(record: dict, where: str) -> None:
    assert tool_content(record) == where


@pytest.mark.parametrize(
    "record",
    [
        {"type": "queue-operation", "content": "tool_use tool_calls"},  # words in a string
        {"usage": {"server_tool_use": {"web_search_requests": 0}}},  # Claude Code usage
        {"toolCallId": "Bash_0", "toolName": "Bash", "action": "Running: ls"},  # an approval
        {"tool_calls": [], "toolRequests": None, "function_call": None},  # empty
        {"type": "function", "name": "f", "parameters": {}},  # a tool definition
    ],
)
def test_no_tool_content(record: dict) -> None:
    assert tool_content(record) is None


def test_a_huge_or_deep_record_is_looked_at_within_a_budget() -> None:
    wide = {"items": [{"x": i} for i in range(50_000)] + [{"type": "tool_use"}]}
    assert tool_content(wide) is None  # past the budget: not looked at
    deep: dict = {"type": "tool_use"}
    for _ in range(900):
        deep = {"d": deep}
    assert tool_content(deep) == "`type tool_use` at " + "/d" * 900
    assert BUDGET < 50_000


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["type", "tool_calls", "name", "id", "args", "call_id", "x"]), inner, max_size=4),
                    max_leaves=30))  # fmt: skip
def test_any_json_value_is_looked_at_without_failing(value: object) -> None:
    where = tool_content(value)
    assert where is None or where.startswith("`")


def test_every_tool_key_and_type_passes_the_raw_text_test() -> None:
    """`may_hold_tool_content` looks at a raw line before it is parsed to be looked at: a
    key or type it misses would hide tool content."""
    names = sorted(TOOL_KEYS | TOOL_TYPES | CALL_IDS)
    assert [n for n in names if not may_hold_tool_content(json.dumps({n: 1}).encode())] == []
    assert not may_hold_tool_content(b'{"type":"summary","summary":"work","leafUuid":"u"}')


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["type", "tool_calls", "toolUse", "name", "toolName", "arguments", "callId", "x"]), inner, max_size=4) | st.just({"type": "function_call_output"}),
                    max_leaves=30))  # fmt: skip
def test_the_raw_text_test_never_hides_tool_content(value: object) -> None:
    for text in (json.dumps(value), json.dumps(value, separators=(",", ":"))):
        assert tool_content(value) is None or may_hold_tool_content(text.encode())


@pytest.mark.parametrize(
    ("key", "where"),
    [
        ("tool_calls", "`tool_calls` at /extra"),
        ("\\u0074ool_\\u0063alls", "`tool_calls` at /extra"),  # escapes spell the key
        ("notes", None),
    ],
)
def test_a_record_the_fast_path_reads_as_nothing_is_still_looked_at(
    tmp_path: Path, key: str, where: str | None
) -> None:
    """A Claude Code summary is read as nothing; in a file with no call, its raw text is
    tested first, and parsed and looked at when it may hold tool content."""
    path = tmp_path / "s.jsonl"
    line = '{"type":"summary","summary":"s","leafUuid":"u","extra":{"KEY":[{"id":"a"}]}}'
    path.write_text(line.replace("KEY", key) + "\n")
    report = replay_file(str(path))
    assert report.calls == 0 and report.format == "claude-code"
    assert [(u.line, u.where) for u in report.unread_tools] == ([(1, where)] if where else [])


CLAUDE = {"sessionId": "s", "uuid": "u", "timestamp": "2026-01-01T00:00:00Z"}


def test_claude_codes_newer_record_types_are_skipped_and_exit_0(cli: Cli, tmp_path: Path) -> None:
    """agent-name, bridge-session, atis-latch, frame-link, started, relocated: metadata."""
    records = [{"type": kind, **CLAUDE} for kind in ("agent-name", "bridge-session", "atis-latch", "frame-link", "started", "relocated")]  # fmt: skip
    records.append({"type": "assistant", **CLAUDE, "message": {"id": "m", "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]}})  # fmt: skip
    records.append({"type": "user", **CLAUDE, "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]}})  # fmt: skip
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    run = cli("replay", str(path), "-f", "json", "--no-registry")
    assert run.exit_code == 0
    (report,) = json.loads(run.stdout)["files"]
    assert (report["paired"], report["skipped_records"], report["unreadable_lines"]) == (1, 6, [])
    assert report["notes"] == []  # nothing left uncounted
    human = cli("replay", str(path), "--no-registry").stdout
    assert "6 records of a type toolsel does not know, with no tool content: skipped" in human


def test_an_unknown_record_with_tool_content_exits_1_unless_dropped(
    cli: Cli, tmp_path: Path
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(
        json.dumps(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            }
        )
        + "\n"
        + json.dumps({"role": "tool", "tool_call_id": "a", "content": "ok"})
        + "\n"
        + json.dumps(
            {"type": "agent.tool_invocation", "data": {"callId": "b", "name": "g", "args": {}}}
        )
        + "\n"
    )
    run = cli("replay", str(path), "--no-registry")
    assert run.exit_code == 1
    assert "tool-call-like content that toolsel does not read" in run.stdout
    assert "1 record of a format or type toolsel does not read holds tool-call-like content" in run.stdout  # fmt: skip
    assert cli("replay", str(path), "--no-registry", "--fail-on", "orphans").exit_code == 0
    assert cli("replay", str(path), "--no-registry", "--fail-on", "unread-tools").exit_code == 1
    data = json.loads(cli("replay", str(path), "-f", "json", "--fail-on", "none").stdout)
    assert data["files"][0]["unread_tool_records"] == [{"line": 3, "where": "`an id, a tool name and arguments` at /data"}]  # fmt: skip
    assert data["summary"]["unread_tool_records"] == 1


def test_a_file_read_as_nothing_that_holds_tool_content_is_never_a_silent_zero(
    tmp_path: Path,
) -> None:
    # a chat message shape whose calls are where no decoder looks: read, but as nothing
    records = [
        {
            "role": "assistant",
            "content": "calling",
            "steps": [{"type": "tool_use", "name": "Bash"}],
        },
        {"role": "user", "content": "done"},
    ]
    r = replay(tmp_path, records)
    assert r.calls == 0 and [(u.line, u.where) for u in r.unread_tools] == [
        (1, "`type tool_use` at /steps/0")
    ]
    # the same record in a file whose calls were read is not a silent zero: no finding
    read = replay(tmp_path, [{"role": "assistant", "content": None, "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}, *records], "u.jsonl")  # fmt: skip
    assert read.calls == 1 and read.unread_tools == ()


def test_an_object_without_a_type_is_still_unreadable(tmp_path: Path) -> None:
    r = replay(tmp_path, [{"what": "ever"}, {"type": "heartbeat"}, 42])
    assert [u.line for u in r.unreadable] == [1, 3] and r.skipped_records == 1
