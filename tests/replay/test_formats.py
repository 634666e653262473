"""The decoders: auto-detection agrees with each forced `--input-format` decoder, and no
JSON value, however odd, makes a decoder fail."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
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


def _list_paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path to every list inside a JSON value (itself included)."""
    found = []
    if isinstance(value, list):
        found.append(path)
        for index, item in enumerate(value):
            found += _list_paths(item, (*path, index))
    elif isinstance(value, dict):
        for key, item in value.items():
            found += _list_paths(item, (*path, key))
    return found


#: The samples by the format they are detected as: each format drawn as often as another.
BY_FORMAT: dict[str, list[Any]] = {}
for _sample in SAMPLES:
    BY_FORMAT.setdefault((detect(_sample) or ("none",))[0], []).append(_sample)


@st.composite
def lines_with_odd_items(draw: st.DrawFn) -> Any:
    """A real line or document of any format in which some list (at the top, or at any
    depth) holds a value of any shape: anywhere, or after three more of its items, past
    the first three a signature looks at."""
    line = copy.deepcopy(draw(st.sampled_from(BY_FORMAT[draw(st.sampled_from(sorted(BY_FORMAT)))])))
    for _ in range(draw(st.integers(1, 2))):
        paths = _list_paths(line)
        shallow = [path for path in paths if len(path) <= 1]
        if not paths:
            break
        target = line
        for step in draw(st.sampled_from(shallow if shallow and draw(st.booleans()) else paths)):
            target = target[step]
        if target and draw(st.booleans()):
            target.extend([copy.deepcopy(target[0]) for _ in range(3)])
            target.append(draw(json_values))
        else:
            target.insert(draw(st.integers(0, len(target))), draw(json_values))
    return line


@settings(max_examples=500, deadline=None)
@given(lines_with_odd_items())
def test_an_odd_value_in_any_list_makes_no_decoder_fail(line: Any) -> None:
    """Readers check each item they read, not only the few their signature looked at (a
    fourth prompt or request that was not one made two readers fail)."""
    detect(line)
    for decoder in DECODERS.values():
        decoded = decoder(line)
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

    from toolsel.replay.file import replay_file

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


#: One line of each shape detection tells apart, and the format it is (None: no format).
SHAPES: list[tuple[Any, str | None]] = [
    ([{"role": "user"}], None),
    ("user", None),
    # chat messages, and Cursor's transcript lines ({role, message})
    ({"role": "user", "content": "deploy"}, "openai-chat"),
    ({"role": "user", "message": {"content": "ls"}}, "cursor-transcript"),
    ({"role": "user", "content": "ls", "message": {"content": "ls"}}, "openai-chat"),
    ({"role": "user", "message": "ls"}, "openai-chat"),
    ({"role": "user", "payload": {"type": "message", "role": "user"}}, "codex-rollout"),
    ({"role": "user", "parent_tool_use_id": None, "message": {"content": "x"}}, "stream-json"),
    ({"type": "message", "role": "user", "content": "hi"}, "openai-chat"),
    # Claude Code and stream-json
    ({"type": "user", "uuid": "u1", "message": {"content": "hi"}}, "claude-code"),
    ({"type": "assistant", "uuid": "a1", "message": {"content": []}}, "claude-code"),
    (
        {"type": "assistant", "uuid": "a1", "parent_tool_use_id": None, "message": {"content": []}},
        "stream-json",
    ),
    ({"type": "assistant", "message": {"content": []}}, "stream-json"),
    # a Claude Code line stays Claude Code's whatever other keys it gains
    ({"type": "user", "uuid": "u1", "payload": {}, "message": {"content": "hi"}}, "claude-code"),
    ({"type": "assistant", "uuid": "a1", "payload": {}, "message": {"content": []}}, "claude-code"),
    ({"type": "user", "message": {"content": "hi"}, "session_id": "s"}, "stream-json"),
    ({"type": "assistant", "sessionId": "s", "message": {"content": []}}, "claude-code"),
    ({"type": "assistant", "message": "hi"}, None),
    ({"type": "result", "subtype": "success", "is_error": False}, "stream-json"),
    ({"type": "system", "subtype": "init", "session_id": "s"}, "stream-json"),
    ({"type": "system", "subtype": "init", "sessionId": "s"}, "claude-code"),
    ({"type": "system", "uuid": "u", "content": "x"}, "claude-code"),
    ({"type": "system", "content": "You are Grok."}, "grok-cli"),
    ({"type": "summary", "summary": "x", "leafUuid": "u"}, "claude-code"),
    ({"type": "file-history-snapshot", "messageId": "m"}, "claude-code"),
    ({"type": "progress", "sessionId": "s", "data": {}}, "claude-code"),
    ({"type": "progress", "data": {}}, None),
    ({"type": "tool_use", "uuid": "t", "name": "bash", "input": {}}, "claude-code"),
    ({"type": "tool_use", "sessionId": "s", "name": "bash", "input": {}}, None),
    ({"type": "tool_result", "sessionId": "s", "tool_use_id": "t"}, "grok-cli"),
    # Codex
    (
        {"type": "response_item", "payload": {"type": "function_call", "call_id": "c"}},
        "codex-rollout",
    ),
    ({"type": "response_item", "payload": "x"}, None),
    ({"type": "item.started", "item": {"id": "i", "type": "command_execution"}}, "codex-exec"),
    ({"type": "thread.started", "thread_id": "t"}, "codex-exec"),
    ({"type": "turn.failed", "error": {}}, "codex-exec"),
    ({"type": "error", "item": {"type": "error"}}, "codex-exec"),
    ({"type": "error", "message": "quota"}, None),
    (
        {"type": "error", "id": "e1", "timestamp": "2026-01-01T00:00:00Z", "content": "x"},
        "gemini-cli",
    ),
    (
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        "openai-responses",
    ),
    ({"type": "web_search_call", "id": "ws", "status": "completed"}, "openai-responses"),
    ({"type": "reasoning", "id": "rs", "summary": []}, "openai-responses"),
    ({"id": "resp_1", "object": "response", "output": []}, "openai-responses"),
    # the other agents
    ({"type": "session.start", "data": {"sessionId": "s"}}, "copilot-cli"),
    ({"type": "llm.request", "model": "kimi", "time": 1}, "kimi"),
    ({"type": "session.start", "data": "s", "time": 1}, "kimi"),
    ({"type": "metadata", "protocol_version": "1.4"}, "kimi"),
    ({"type": "tool_call", "subtype": "started", "call_id": "c"}, None),  # Cursor's, no tool
    ({"type": "tool_call", "tool_call": {"readToolCall": {}}}, "cursor-stream-json"),
    ({"type": "thinking", "subtype": "delta", "text": "x"}, "cursor-stream-json"),
    ({"type": "tool_call", "id": "c", "toolName": "Execute"}, "droid"),
    ({"type": "thinking", "text": "x"}, None),
    ({"type": "tool_result", "id": "c", "isError": True}, "droid"),
    ({"type": "tool_result", "toolId": "Execute"}, "droid"),
    ({"type": "completion", "finalText": "Done"}, "droid"),
    ({"type": "completion", "text": "Done"}, None),
    ({"type": "tool_result", "tool_call_id": "c", "content": "x"}, "grok-cli"),
    ({"type": "tool_use", "tool_name": "Bash", "tool_id": "t1"}, "gemini-stream-json"),
    ({"type": "tool_result", "tool_id": "t1", "status": "success"}, "gemini-stream-json"),
    ({"type": "init", "session_id": "s", "model": "gemini"}, "gemini-stream-json"),
    ({"type": "init", "model": "gemini"}, None),
    ({"type": "message", "session_id": "s", "content": "x"}, "gemini-stream-json"),
    ({"type": "message", "id": "e1", "message": {"role": "user", "content": []}}, "pi"),
    ({"type": "session", "version": 3, "id": "s"}, "pi"),
    ({"type": "model_change", "id": "m"}, "pi"),
    (
        {"type": "gemini", "id": "g1", "timestamp": "2026-01-01T00:00:00Z", "toolCalls": []},
        "gemini-cli",
    ),
    ({"type": "gemini", "id": "g1", "toolCalls": []}, None),
    ({"type": "info", "timestamp": "2026-01-01T00:00:00Z", "content": "x"}, None),
    ({"type": "backend_tool_call", "kind": {"id": "ws"}}, "grok-cli"),
    ({"type": "future", "id": "x"}, None),
    ({"event": "init", "conversation_id": "c"}, "antigravity"),
    ({"id": 1, "action": "run", "args": {}}, "openhands"),
    ({"id": 2, "observation": "run", "content": "x"}, "openhands"),
    ({"sessionId": "s", "projectHash": "ab", "startTime": "x"}, "gemini-cli"),
    ({"$set": {"lastUpdated": "x"}}, "gemini-cli"),
    ({"$rewindTo": "m2"}, "gemini-cli"),
    ({"$patch": {}}, "gemini-cli"),
    ({"sessionId": "s", "startTime": "x"}, None),
    ({"object": "list", "data": []}, None),
    # a type that is not text is never looked up among the known ones
    ({"type": {"user": 1}, "uuid": "u", "sessionId": "s"}, None),
    ({"type": ["function_call"], "call_id": "c"}, None),
]


@pytest.mark.parametrize(("line", "fmt"), SHAPES)
def test_each_shape_is_detected_as_its_format(line: Any, fmt: str | None) -> None:
    detected = detect(line)
    assert (detected[0] if detected is not None else None) == fmt
    if fmt is not None:
        assert detected == DECODERS[fmt](line)
