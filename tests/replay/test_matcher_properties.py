"""Pairing conserves counts, whatever order calls and results arrive in."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from toolsel.replay.file import replay_file

events = st.lists(
    st.tuples(st.sampled_from(["call", "result"]), st.sampled_from(["a", "b", "c", "d"])),
    max_size=30,
)


def transcript(sequence: list[tuple[str, str]]) -> str:
    lines = []
    for kind, call_id in sequence:
        if kind == "call":
            lines.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": "t", "arguments": "{}"},
                        }
                    ],
                }
            )
        else:
            lines.append({"role": "tool", "tool_call_id": call_id, "content": "ok"})
    return "".join(json.dumps(line) + "\n" for line in lines)


@settings(max_examples=200, deadline=None)
@given(events)
def test_pairing_conserves_counts(sequence: list[tuple[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.jsonl"
        path.write_text(transcript(sequence))
        report = replay_file(str(path))
    results = sum(1 for kind, _ in sequence if kind == "result")
    assert report.results == results and report.lines == len(sequence)
    # every call instance is either answered or still open at the end
    assert report.calls == report.paired + len(report.unanswered)
    # every result pairs, is an orphan, or repeats an answered id
    duplicate_result_events = report.results - report.paired - len(report.orphans)
    assert duplicate_result_events >= len(report.duplicate_results)
    assert (duplicate_result_events == 0) == (not report.duplicate_results)
    # an id that has both a call and a result somewhere is never an orphan or unanswered at once
    assert not ({o.id for o in report.orphans} & {u.id for u in report.unanswered})


@settings(max_examples=100, deadline=None)
@given(st.permutations(["call:a", "result:a", "call:b", "result:b"]))
def test_order_does_not_matter_for_one_call_and_one_result_per_id(order: list[str]) -> None:
    sequence = [tuple(item.split(":")) for item in order]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.jsonl"
        path.write_text(transcript(sequence))  # type: ignore[arg-type]
        report = replay_file(str(path))
    assert (report.paired, report.orphans, report.unanswered) == (2, (), ())
