"""Gemini CLI: a `.json` session and its `.jsonl` recording count the same calls, although
the recording restates a message each time it changes; stream-json pairs by `tool_id`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.replay.records import replay
from toolsel.replay.driver import replay_file


def message(mid: str, calls: list[dict]) -> dict:
    return {"id": mid, "timestamp": "2026-01-01T00:00:02Z", "type": "gemini", "content": "", "toolCalls": calls}  # fmt: skip


def call(cid: str, status: str, result: bool = False) -> dict:
    record = {"id": cid, "name": "read_file", "args": {"path": cid}, "status": status}
    if result:
        record["result"] = [{"functionResponse": {"id": cid, "name": "read_file", "response": {"output": "x"}}}]  # fmt: skip
    return record


SESSION = {"sessionId": "s1", "projectHash": "ab", "startTime": "2026-01-01T00:00:00Z", "lastUpdated": "2026-01-01T00:00:09Z"}  # fmt: skip
FINAL = [
    {"id": "u1", "timestamp": "2026-01-01T00:00:01Z", "type": "user", "content": "read a and b"},
    message("m1", [call("a", "success", True), call("b", "error", True)]),
    {"id": "i1", "timestamp": "2026-01-01T00:00:03Z", "type": "info", "content": "note"},
    message("m2", [call("c", "executing")]),
]


def test_a_json_session_and_a_jsonl_recording_count_the_same(tmp_path: Path) -> None:
    document = tmp_path / "session-1.json"
    document.write_text(json.dumps({**SESSION, "messages": FINAL}, indent=2))
    whole = replay_file(str(document))
    recording = replay(
        tmp_path,
        [
            {**SESSION, "kind": "main"},
            FINAL[0],
            message("m1", [call("a", "executing"), call("b", "executing")]),
            {"$set": {"lastUpdated": "2026-01-01T00:00:02Z"}},
            message("m1", [call("a", "success", True), call("b", "executing")]),
            FINAL[1],
            FINAL[2],
            FINAL[3],
            {"$set": {"messages": FINAL}},  # a history replaced whole restates its calls
            {"$rewindTo": "m2"},
        ],
    )
    for r in (whole, recording):
        assert (r.format, r.calls, r.results, r.error_results) == ("gemini-cli", 3, 2, 1)
        assert [u.id for u in r.unanswered] == ["c"]
        assert r.duplicate_calls == r.duplicate_results == r.unreadable == ()
    lines = document.read_text().splitlines()
    assert '"id": "c"' in "".join(
        lines[whole.unanswered[0].line - 1 : whole.unanswered[0].line + 10]
    )


def test_stream_json_pairs_by_tool_id(tmp_path: Path) -> None:
    r = replay(
        tmp_path,
        [
            {"type": "init", "session_id": "s", "model": "gemini-x"},
            {"type": "message", "role": "user", "content": "go"},
            {
                "type": "tool_use",
                "tool_name": "run_shell_command",
                "tool_id": "t1",
                "parameters": {},
            },
            {
                "type": "tool_result",
                "tool_id": "t1",
                "status": "error",
                "error": {"type": "x", "message": "y"},
            },
            {"type": "result", "status": "success", "stats": {}},
        ],
    )
    assert (r.format, r.calls, r.paired, r.error_results) == ("gemini-stream-json", 1, 1, 1)
