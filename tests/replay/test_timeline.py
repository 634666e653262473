"""The timeline `replay --format html` draws: each call paired with its result, in order,
and bounded on huge files (calls past the cap are kept only when they went wrong)."""

from __future__ import annotations

from toolsel.replay.report import ToolEvent
from toolsel.replay.timeline import TimelineCall, TimelineRecorder


def start(call_id: str, line: int, tool: str = "t", parent: str | None = None) -> ToolEvent:
    return ToolEvent("tool_start", call_id, tool, parent, None, None, "f", line)


def result(call_id: str, line: int, error: bool = False) -> ToolEvent:
    return ToolEvent("tool_result", call_id, "t", None, None, None, "f", line, error, 5.0)


def test_each_call_is_paired_with_its_result_once() -> None:
    recorder = TimelineRecorder()
    for event in (start("a", 1), start("a", 2), start("b", 3, parent="a"), result("a", 4),
                  result("b", 5, error=True), start("a", 6), start("c", 7)):  # fmt: skip
        recorder(event)
    calls = recorder.finish().of("f").calls
    assert calls == (
        TimelineCall("a", "t", 1, None, 4, False, 5.0),
        TimelineCall("b", "t", 3, "a", 5, True, 5.0),
        TimelineCall("a", "t", 6),  # an id reused after its answer: a new call
        TimelineCall("c", "t", 7),  # never answered
    )
    assert recorder.finish().of("other").calls == ()


def test_past_the_cap_only_calls_that_went_wrong_are_kept() -> None:
    recorder = TimelineRecorder(max_calls=2)
    for n in range(10):
        recorder(start(f"c{n}", n))
    for n in range(10):
        if n != 7:
            recorder(result(f"c{n}", 100 + n, error=n == 5))
    timeline = recorder.finish().of("f")
    assert [c.id for c in timeline.calls] == ["c0", "c1", "c5", "c7"]
    assert timeline.omitted == 6


def test_a_call_keeps_its_results_size_where_the_reader_measures_it() -> None:
    recorder = TimelineRecorder()
    measured = ToolEvent("tool_result", "a", "t", None, None, None, "f", 2, result_bytes=42)
    for event in (start("a", 1), measured, start("b", 3), result("b", 4)):
        recorder(event)
    assert [c.result_bytes for c in recorder.finish().of("f").calls] == [42, None]
