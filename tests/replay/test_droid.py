"""Factory Droid stream-json: a call and its result share an `id`."""

from __future__ import annotations

from pathlib import Path

from tests.replay.records import replay


def test_a_failed_call(tmp_path: Path) -> None:
    r = replay(
        tmp_path,
        [
            {"type": "system", "subtype": "init", "session_id": "s", "tools": ["Execute"]},
            {"type": "message", "role": "user", "id": "m1", "text": "ls", "session_id": "s"},
            {
                "type": "tool_call",
                "id": "c1",
                "messageId": "m1",
                "toolId": "Execute",
                "toolName": "Execute",
                "parameters": {"command": "ls"},
            },
            {
                "type": "tool_result",
                "id": "c1",
                "messageId": "m1",
                "toolId": "Execute",
                "isError": True,
                "value": "no such file",
            },
            {"type": "completion", "finalText": "Done", "session_id": "s"},
        ],
    )
    assert (r.calls, r.paired, r.error_results, r.tools["Execute"].calls) == (1, 1, 1, 1)
    assert r.skipped_records == 0 and r.unreadable == ()
