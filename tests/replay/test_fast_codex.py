"""The fast path's Codex rollout lines (`fast_codex`): which lines it reads itself, what they
give, and whether an output failed, each as the full path (`detect`, `codex`) says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolsel.replay.events import UNSET, Call, Result
from toolsel.replay.formats import codex, detect, fast, fast_codex
from toolsel.replay.lines import Reading


def _read(tmp_path: Path, record: dict[str, Any]) -> tuple[Any, Any]:
    """(the record as `records` gives it, its events) for a one-line file."""
    path = tmp_path / "rollout.jsonl"
    path.write_text(json.dumps(record) + "\n")
    ((_, obj, decoded),) = fast.records(str(path), Reading(), None, detect)
    assert decoded is not None and decoded[0] == codex.ROLLOUT
    return obj, decoded[1]


def _item(payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": "2026-08-03T10:48:56.000Z", "type": "response_item", "payload": payload}


def test_a_call_without_arguments_takes_the_fast_path(tmp_path: Path) -> None:
    record = _item({"type": "function_call", "name": "list_files", "call_id": "c1"})
    obj, events = _read(tmp_path, record)
    assert type(obj) is bytes  # decoded by the fast path, not parsed by the full one
    (call,) = events
    assert type(call) is Call and (call.id, call.tool, call.arguments) == ("c1", "list_files", {})
    assert [(e.id, e.tool, e.arguments) for e in detect(record)[1]] == [("c1", "list_files", {})]


@pytest.mark.parametrize("kind", ["function_call_output", "custom_tool_call_output"])
def test_each_kind_of_output_takes_the_fast_path(tmp_path: Path, kind: str) -> None:
    record = _item({"type": kind, "call_id": "c2", "output": "Exit code: 1\nno such file"})
    obj, events = _read(tmp_path, record)
    assert type(obj) is bytes
    output = record["payload"]["output"]
    expected = Result("c2", True, UNSET, record["timestamp"], error=output, size=len(output))
    assert events == [expected] == detect(record)[1]


@pytest.mark.parametrize(
    ("output", "failed"),
    [
        # not JSON, though it opens as JSON: its text is read for an exit code
        ("{oops\nExit code: 3", True),
        ("{oops\nExit code: 0", False),
        # metadata orjson refuses (a number beyond a double): the full path's answer, from
        # the text, which here says the command failed
        ('{"metadata": {"n": 1e400}, "output": "boom, exit code 2"}', True),
        ('{"metadata": {"n": 1e400}, "output": "done"}', False),
    ],
)
def test_an_output_the_fast_reading_cannot_decide_is_read_as_the_full_path_reads_it(
    output: str, failed: bool
) -> None:
    assert fast_codex.output_failed(output) is failed
    assert codex.output_failed(output) is failed
