"""Issue 34: Amp threads (`threads/T-*.json`). Anthropic `tool_use` blocks answered by
Amp's own `tool_result` blocks: `toolUseID` and a `run` whose status says the outcome."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, Cli
from tests.replay.records import replay
from toolsel.replay.events import Result
from toolsel.replay.formats import detect

CORPUS = ROOT / "tests/corpus/transcripts"


def result(run: Any) -> dict[str, Any]:
    return {"role": "user", "messageId": 2, "content": [{"type": "tool_result", "toolUseID": "t1", "run": run}]}  # fmt: skip


@pytest.mark.parametrize(
    ("run", "outcome"),
    [
        ({"status": "done", "result": {"output": "ok"}}, False),
        ({"status": "error", "error": {"message": "boom"}}, True),
        ({"status": "cancelled"}, True),
        ({"status": "rejected-by-user"}, True),
        ({"status": "in-progress", "progress": {}}, None),
        ({"status": "queued"}, None),
        ({"status": ["done"]}, None),
        ("done", None),  # not a run
    ],
)
def test_a_run_status_is_the_outcome(run: Any, outcome: bool | None) -> None:
    decoded = detect(result(run))
    assert decoded is not None and decoded[0] == "amp"
    results = [e for e in decoded[1] if isinstance(e, Result)]
    if outcome is None and type(run) is dict:
        assert results == []
    elif outcome is not None:
        assert [(r.id, r.is_error) for r in results] == [("t1", outcome)]


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        (
            {
                "role": "assistant",
                "messageId": 1,
                "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}],
            },
            "amp",
        ),
        (
            {
                "role": "user",
                "content": [{"type": "tool_result", "toolUseID": "t1", "run": {"status": "done"}}],
            },
            "amp",
        ),
        # near misses: the Anthropic blocks without Amp's keys
        (
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}],
            },
            "anthropic",
        ),
        (
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}],
            },
            "anthropic",
        ),
        (
            {"role": "user", "messageId": "m1", "content": "hi"},
            "openai-chat",
        ),  # a string id, text content
    ],
)
def test_the_signature_and_its_near_misses(record: dict[str, Any], expected: str) -> None:
    decoded = detect(record)
    assert decoded is not None and decoded[0] == expected


def test_amp_stream_json_stays_stream_json() -> None:
    from toolsel.replay.file import replay_file

    report = replay_file(str(CORPUS / "amp/untether/amp_stream_success.jsonl"))
    assert report.format == "stream-json" and report.paired == 1


def test_a_thread_pairs_by_id(cli: Cli, tmp_path: Path) -> None:
    call = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"cmd": "ls"}}
    thread = {
        "v": 1,
        "id": "T-1",
        "messages": [
            {"role": "user", "messageId": 0, "content": [{"type": "text", "text": "list it"}]},
            {"role": "assistant", "messageId": 1, "content": [call]},
            result({"status": "error", "error": {"message": "ls: permission denied"}}),
        ],
    }
    report = replay(tmp_path, thread, name="T-1.json")  # type: ignore[arg-type]
    assert (report.format, report.calls, report.paired, report.error_results) == ("amp", 1, 1, 1)
    assert [f.message for f in report.failures] == ["ls: permission denied"]
    run = cli("replay", str(tmp_path / "T-1.json"), "--no-registry", "--input-format", "amp")
    assert run.exit_code == 0 and run.stdout.startswith("1 file, 1 call, 1 error, 0 unanswered")
