"""The decoders: auto-detection agrees with each forced `--input-format` decoder, and no
JSON value, however odd, makes a decoder fail."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT
from toolsel.replay.events import Call, Result
from toolsel.replay.formats import DECODERS, detect


#: Real lines of every format: the fixtures and the generated grid (the records of its JSON
#: documents too).
def _samples() -> list[dict[str, Any]]:
    from toolsel.replay.lines import Reading, read_objects

    found = []
    for path in sorted((ROOT / "transcripts").rglob("*.jsonl")):
        for raw in path.read_bytes().splitlines():
            try:
                line = json.loads(raw)
            except ValueError:
                continue  # the fixtures hold unreadable lines on purpose
            if isinstance(line, dict):
                found.append(line)
    for path in sorted((ROOT / "transcripts").rglob("*.json")):
        found += [obj for _, obj in read_objects(str(path), Reading()) if isinstance(obj, dict)]
    return found


SAMPLES = _samples()
KEYS = ["type", "role", "uuid", "sessionId", "payload", "parent_tool_use_id", "message",
        "tool_calls", "content", "item", "call_id", "agentId", "isSidechain", "parentUuid",
        "timestamp", "toolUseResult", "tool_use_result", "tool_call_id", "session_id", "name"]  # fmt: skip
TYPES = ["assistant", "user", "system", "result", "summary", "progress", "response_item",
         "event_msg", "function_call", "function_call_output", "item.started", "item.completed",
         "thread.started", "turn.completed", "error", "message", "reasoning", None, 3, ""]  # fmt: skip
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from([*KEYS, "id", "input", "is_error", "output"]), inner, max_size=5
        )
    ),
    max_leaves=20,
)


@st.composite
def mutated_lines(draw: st.DrawFn) -> dict[str, Any]:
    """A real line with keys removed, replaced or added, and its type changed."""
    line = dict(draw(st.sampled_from(SAMPLES)))
    for key in draw(st.lists(st.sampled_from(sorted(line)), max_size=3)):
        line.pop(key, None)
    for key in draw(st.lists(st.sampled_from(KEYS), max_size=3)):
        line[key] = draw(json_values)
    if draw(st.booleans()):
        line["type"] = draw(st.sampled_from(TYPES))
    return line


def test_the_samples_cover_every_format() -> None:
    found = {decoded[0] for line in SAMPLES if (decoded := detect(line)) is not None}
    assert found == set(DECODERS)


@settings(max_examples=400, deadline=None)
@given(mutated_lines())
def test_detection_gives_what_the_forced_decoder_gives(line: dict[str, Any]) -> None:
    """Wherever a line is detected as format F, forcing F decodes it to the same events:
    detection's fast paths (most common shapes first) take no shortcut the decoders don't."""
    detected = detect(line)
    if detected is None:
        return
    fmt, events = detected
    assert DECODERS[fmt](line) == (fmt, events)
    for event in events:
        assert isinstance(event.id, str) if isinstance(event, (Call, Result)) else True


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_no_json_value_makes_a_decoder_fail(value: Any) -> None:
    detect(value)
    for decoder in DECODERS.values():
        decoded = decoder(value)
        assert decoded is None or isinstance(decoded[0], str)


@settings(max_examples=150, deadline=None)
@given(st.lists(mutated_lines(), max_size=25))
def test_replaying_any_mix_of_lines_conserves_calls_and_results(
    lines: list[dict[str, Any]],
) -> None:
    """Every call is answered or left open; every result pairs, repeats an answered id, or
    is an orphan, whatever the lines are and in whatever order they come."""
    import tempfile
    from pathlib import Path

    from toolsel.replay.driver import replay_file

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        report = replay_file(str(path))
    assert report.lines == len(lines)
    assert report.calls == report.paired + len(report.unanswered)
    repeats = sum(len(d.lines) - 1 for d in report.duplicate_results)
    assert report.results == report.paired + len(report.orphans) + repeats
    assert report.error_results <= report.results
    assert sum(t.calls for t in report.tools.values()) == report.calls
    assert sum(t.answered for t in report.tools.values()) == report.paired


def test_every_decoder_can_be_forced_from_the_command_line() -> None:
    from toolsel.render.formats import InputFormat

    assert {f.value for f in InputFormat} == {"auto", *DECODERS}


def test_openai_calls_without_ids_are_counted(tmp_path) -> None:
    from tests.replay.records import replay

    r = replay(
        tmp_path,
        [
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "get_weather", "arguments": "{}"},
            },
            {"role": "function", "name": "get_weather", "content": "sunny"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{}"}}],
            },
            {"role": "tool", "content": "ok"},
        ],
    )
    assert (r.calls, r.paired, r.calls_without_id, r.results_without_id) == (2, 2, 2, 2)
