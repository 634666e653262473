"""Issue 34: Amp threads (`threads/T-*.json`). Anthropic `tool_use` blocks answered by
Amp's own `tool_result` blocks: `toolUseID` and a `run` whose status says the outcome."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, Cli
from tests.replay.records import replay
from toolsel.replay.events import Call, Human, Result
from toolsel.replay.formats import detect
from toolsel.replay.formats.amp import record

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


def amp(role: str, *content: Any, **fields: Any) -> dict[str, Any]:
    return {"role": role, "messageId": 3, "content": list(content), **fields}


def run_block(run: Any, **fields: Any) -> dict[str, Any]:
    return {"type": "tool_result", "toolUseID": "t1", "run": run, **fields}


def test_a_tool_use_is_a_call_of_the_main_thread() -> None:
    call = {"type": "tool_use", "id": "t1", "name": "Read", "input": {"path": "a"}}
    assert record(amp("assistant", {"type": "text", "text": "reading"}, call)) == (
        "amp",
        [Call("t1", "Read", {"path": "a"})],  # no parent named, not a side chain
    )


@pytest.mark.parametrize(
    ("run", "expected"),
    [
        ({"status": "done", "result": "hello"}, Result("t1", False, size=5)),
        ({"status": "done", "result": [{"type": "text", "text": "héllo"}]}, Result("t1", False, size=6)),
        ({"status": "done", "progress": "abc"}, Result("t1", False, size=3)),  # no result: the progress
        ({"status": "done", "result": "ab", "progress": "abcd"}, Result("t1", False, size=2)),
        ({"status": "done"}, Result("t1", False, size=0)),
        # a Bash run's result: its output, not its exit code
        ({"status": "done", "result": {"output": "total 0\n", "exitCode": 0}}, Result("t1", False, size=8)),
        ({"status": "error", "result": {"output": "no such file", "exitCode": 1}}, Result("t1", True, error={"output": "no such file", "exitCode": 1}, size=12)),
        ({"status": "error", "error": {"message": "boom"}, "result": "out"}, Result("t1", True, error={"message": "boom"}, size=3)),
        ({"status": "error", "result": "partial out"}, Result("t1", True, error="partial out", size=11)),
        ({"status": "cancelled"}, Result("t1", True, error="cancelled", size=0)),
        ({"status": "rejected-by-user", "error": ""}, Result("t1", True, error="rejected-by-user", size=0)),
    ],
)  # fmt: skip
def test_a_run_says_what_the_tool_said_and_its_size(run: Any, expected: Result) -> None:
    assert record(amp("user", run_block(run))) == ("amp", [expected])


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        ({"type": "tool_result", "tool_use_id": "t1", "run": {"status": "done", "result": "x"}}, Result("t1", False, size=1)),
        ({"type": "tool_result", "toolUseID": "t1", "tool_use_id": "t2", "run": {"status": "done"}}, Result("t1", False, size=0)),
        # an Anthropic-shaped result inside a thread: its own flag and content
        ({"type": "tool_result", "toolUseID": "t1", "content": "oops", "is_error": True}, Result("t1", True, size=4)),
        ({"type": "tool_result", "tool_use_id": "t1", "content": "fine"}, Result("t1", False, size=4)),
        ({"type": "tool_result", "toolUseID": "t1", "content": "x", "is_error": "true"}, Result("t1", False, size=1)),
        ({"type": "tool_result", "toolUseID": 4, "run": "done"}, Result("4", False, size=0)),
    ],
)  # fmt: skip
def test_a_result_s_id_and_an_anthropic_shaped_result(block: Any, expected: Result) -> None:
    assert record(amp("user", block)) == ("amp", [expected])


@pytest.mark.parametrize(
    ("message", "asked"),
    [
        (amp("user", {"type": "text", "text": "list it"}), ["list it"]),
        (amp("user", "x", {"type": "image"}, {"type": "text", "text": "and this"}), ["and this"]),
        (amp("user", {"type": "text", "text": "ok"}, run_block({"status": "done"})), []),
        (amp("assistant", {"type": "text", "text": "I will"}), []),
        (amp("user", {"type": "image"}), []),
        (amp("user", {"type": "thinking", "text": "hidden"}), []),
        ({"role": "user", "messageId": 1, "content": "list it"}, []),  # not a thread's blocks
    ],
)
def test_a_person_s_text_is_the_request(message: dict[str, Any], asked: list[str]) -> None:
    decoded = record(message)
    assert decoded is not None
    assert [e.text for e in decoded[1] if isinstance(e, Human)] == asked


@pytest.mark.parametrize("obj", [{"messageId": 1, "content": []}, [amp("user")], "user"])
def test_not_a_message(obj: Any) -> None:
    assert record(obj) is None
