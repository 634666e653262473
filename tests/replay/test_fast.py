"""The fast decoding path gives what the full path (orjson, then `detect`) gives: the same
events, formats, unreadable lines, blank lines, line count and progress, line for line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsel.replay import lines
from toolsel.replay.events import UNKNOWN, Call
from toolsel.replay.formats import codex, detect, fast
from toolsel.replay.lines import Reading, read_objects

ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPTS = sorted(
    str(p)
    for folder in ("transcripts", "tests/corpus/transcripts")
    for p in (ROOT / folder).rglob("*")
    if p.suffix in (".jsonl", ".ndjson")
)


def _events(decoded: Any) -> Any:
    """A decoding as comparable values (a call's input compared decoded: the fast path
    keeps it as JSON text)."""
    if decoded is None:
        return None
    name, events = decoded
    shown = []
    for event in events:
        if isinstance(event, Call):
            fields = ("id", "tool", "message_id", "parent", "timestamp", "sidechain", "implicit")
            shown.append(("Call", event.arguments, *(getattr(event, f) for f in fields)))
        else:
            shown.append((type(event).__name__, *(getattr(event, f) for f in event.__slots__)))
    return name, shown, events is UNKNOWN


def _both(path: str) -> tuple[Any, Any]:
    """(full path, fast path): every record, then what reading found, then progress."""
    full_seen: list[int] = []
    full_reading = Reading()
    full = [
        (n, obj, _events(detect(obj)))
        for n, obj in read_objects(path, full_reading, full_seen.append)
    ]
    fast_seen: list[int] = []
    fast_reading = Reading()
    quick = [
        (n, fast.value(obj), _events(decoded))
        for n, obj, decoded in fast.records(path, fast_reading, fast_seen.append, detect)
    ]
    return (full, full_reading, full_seen), (quick, fast_reading, fast_seen)


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.split("/transcripts/")[-1])
def test_every_bundled_and_corpus_transcript_decodes_the_same(path: str) -> None:
    full, quick = _both(path)
    assert quick == full


def test_the_fast_path_reads_the_common_shapes() -> None:
    """Claude Code, stream-json and Codex rollout lines never take the full path."""
    claude = {
        "type": "assistant",
        "uuid": "a",
        "message": {
            "id": "m",
            "content": [{"type": "tool_use", "id": "t", "name": "Read", "input": {"path": "x"}}],
        },
    }
    stream = {
        "type": "user",
        "parent_tool_use_id": None,
        "session_id": "s",
        "message": {"content": [{"type": "tool_result", "tool_use_id": "t", "content": "x" * 100}]},
    }
    rollout = {
        "type": "response_item",
        "payload": {
            "type": "function_call_output",
            "call_id": "c",
            "output": '{"output": "x", "metadata": {"exit_code": 1}}',
        },
    }
    for record in (claude, stream, rollout):
        line = fast.msgspec.json.decode(json.dumps(record).encode(), type=fast.Line)
        decoded = fast.decode_line(line)
        assert decoded is not fast.FALLBACK
        assert _events(decoded) == _events(detect(record))


def _text(size: int = 8) -> st.SearchStrategy[str]:
    return st.text(st.characters(codec="utf-8"), max_size=size)


def _odd() -> st.SearchStrategy[Any]:
    """Values of the wrong type for any field."""
    return (
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | _text()
    )


def _one_of(*names: str) -> st.SearchStrategy[Any]:
    return st.sampled_from(names) | _odd()


def _valid(*names: str) -> st.SearchStrategy[Any]:
    """Values the fast path's struct accepts (any other type sends the line to the full
    path, so the shapes below keep to these to test the fast path itself)."""
    return st.sampled_from([*names, None])


flags = st.booleans() | st.none()


json_values = st.recursive(
    _odd(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text(4), inner, max_size=3),
    max_leaves=6,
)
blocks = st.fixed_dictionaries(
    {},
    optional={
        "type": _one_of(
            "tool_use",
            "tool_result",
            "text",
            "input_text",
            "server_tool_use",
            "mcp_tool_result",
            "thinking",
        ),
        "id": _one_of("t1", "t2"),
        "name": _one_of("Read", "Task", ""),
        "input": json_values,
        "tool_use_id": _one_of("t1", "t2"),
        "is_error": _odd(),
        "text": _odd(),
        "content": json_values,
    },
)
content = st.lists(blocks | _odd(), max_size=3) | _odd()
OUTPUTS = [
    '{"output": "x", "metadata": {"exit_code": 1}}',
    '{"metadata": {"exit_code": 0}}',
    '{"metadata": {"exit_code": 99999999999999999999}}',
    '{"metadata": 5}',
    "{not json",
    "Exit code: 2\nboom",
    "failed in sandbox",
    "{}",
    "[1]",
    '{"a": 1} x',
]
outputs = st.sampled_from(OUTPUTS) | _odd()
payloads = st.fixed_dictionaries(
    {},
    optional={
        "type": _one_of(
            "function_call",
            "custom_tool_call",
            "function_call_output",
            "custom_tool_call_output",
            "message",
            "reasoning",
            "local_shell_call",
            "exec_command_end",
            "token_count",
            "web_search_call",
        ),
        "role": _one_of("user", "assistant"),
        "id": _one_of("s1"),
        "name": _one_of("shell", ""),
        "call_id": _one_of("t1", "t2"),
        "arguments": _one_of('{"a": 1}', "not json") | json_values,
        "input": _one_of("patch"),
        "action": json_values,
        "output": outputs,
        "status": _one_of("completed", "failed"),
        "success": _odd(),
        "content": content,
    },
)
records = st.fixed_dictionaries(
    {},
    optional={
        "type": _one_of(
            "user",
            "assistant",
            "system",
            "summary",
            "progress",
            "result",
            "tool_use",
            "response_item",
            "event_msg",
            "session_meta",
            "turn_context",
            "item.started",
            "error",
            "weird",
        ),
        "uuid": _one_of("u1"),
        "role": _one_of("user", "tool"),
        "parent_tool_use_id": _one_of("t1"),
        "session_id": _one_of("s1"),
        "sessionId": _one_of("s1"),
        "agentId": _one_of("a1", ""),
        "isSidechain": _odd(),
        "isMeta": _odd(),
        "parentUuid": _odd(),
        "timestamp": _one_of("2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z"),
        "toolUseResult": _one_of("Error: no", "ok") | json_values,
        "tool_use_result": json_values,
        "payload": payloads | _odd(),
        "message": st.fixed_dictionaries({}, optional={"id": _odd(), "content": content}) | _odd(),
    },
)
tool_blocks = st.fixed_dictionaries(
    {"type": _valid("tool_use", "tool_result", "text", "mcp_tool_use", "x_tool_result")},
    optional={
        "id": _valid("t1", "t2"),
        "name": _valid("Task", "Read", ""),
        "input": st.just({"prompt": "p"}) | json_values,
        "tool_use_id": _valid("t1", "t2"),
        "is_error": flags,
        "text": _valid("please fix it", "<command-name>x", " "),
        "content": json_values,
    },
)
messages = st.fixed_dictionaries(
    {},
    optional={
        "content": st.lists(tool_blocks, max_size=3) | _valid("do it", ""),
        "id": _valid("m1"),
    },
)
timestamps = _valid("2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z")
SHAPES = {
    "claude_code": st.fixed_dictionaries(
        {
            "type": _valid("user", "assistant", "summary", "progress", "tool_use"),
            "uuid": st.just("u"),
            "message": messages | st.none(),
        },
        optional={
            "isSidechain": flags,
            "isMeta": flags,
            "parentUuid": _valid("p"),
            "toolUseResult": _valid("Error: no", "User rejected", "ok")
            | st.just({"agentId": "a1"})
            | st.just([1]),
            "tool_use_result": st.just({"agentId": "a3"}) | st.none(),
            "agentId": _valid("a1", ""),
            "timestamp": timestamps,
            "sessionId": _valid("s"),
        },
    ),
    "stream_json": st.fixed_dictionaries(
        {"type": _valid("user", "assistant", "system", "result")},
        optional={
            "parent_tool_use_id": _valid("t1"),
            "message": messages | st.none(),
            "session_id": _valid("s1"),
            "isSidechain": flags,
            "timestamp": timestamps,
            "tool_use_result": _valid("Error: x") | st.just({"agentId": "a2"}),
        },
    ),
    "codex_rollout": st.fixed_dictionaries(
        {
            "type": _valid("response_item", "event_msg", "session_meta", "turn_context", "x"),
            "payload": st.fixed_dictionaries(
                {
                    "type": _valid(
                        "function_call",
                        "custom_tool_call",
                        "function_call_output",
                        "custom_tool_call_output",
                        "message",
                        "exec_command_end",
                        "reasoning",
                        "token_count",
                        "local_shell_call",
                        "x",
                    )
                },
                optional={
                    "call_id": _valid("t1"),
                    "name": _valid("shell", ""),
                    "arguments": _valid('{"a": 1}', "not json"),
                    "input": _valid("patch"),
                    "action": json_values,
                    "output": st.sampled_from(OUTPUTS) | st.none(),
                    "role": _valid("user", "assistant"),
                    "content": st.lists(tool_blocks, max_size=2) | _valid("hi"),
                    "status": _valid("completed"),
                    "success": flags,
                    "id": _valid("s1"),
                },
            ),
        },
        optional={"timestamp": timestamps},
    ),
}
#: Lines the full path refuses or reads specially, and edge cases of the JSON parsers.
HOSTILE = [
    b"",
    b"   ",
    b"\r",
    b"\xef\xbb\xbf{}",
    b'{"type": "user", "uuid": "\xff"}',
    b'{"type": "user"',
    b"[1, 2]",
    b"42",
    b'"text"',
    b"null",
    b"{} {}",
    b"\x00",
    b'{"type": "assistant", "uuid": "u", "n": 123456789012345678901234567890}',
    b'{"type": "assistant", "uuid": "u", "s": "\\ud800"}',
    b'{"type": "x", "type": "user", "uuid": 1}',
    b'{"type": "assistant", "uuid": "u", "message": {"content": [{"type": "tool_use", "input": '
    + b"[" * 1100
    + b"]" * 1100
    + b"}]}}",
    b'{"type": "user", "uuid": "u", "message": {"content": "\xc3\xa9t\xc3\xa9"}}',
    "\u2028".encode(),
]


@pytest.mark.parametrize("shape", list(SHAPES))
@settings(max_examples=2500, deadline=None)
@given(data=st.data())
def test_generated_records_decode_the_same(shape: str, data: st.DataObject) -> None:
    """One record at a time (many more than whole files), of each common shape with values
    of the types its struct accepts: what the fast path decodes is what `detect` gives."""
    record = data.draw(SHAPES[shape])
    raw = json.dumps(record, ensure_ascii=False).encode()
    decoded = fast.decode_line(fast.msgspec.json.decode(raw, type=fast.Line))
    if decoded is not fast.FALLBACK:
        assert _events(decoded) == _events(detect(json.loads(raw)))


def _line(record: dict[str, Any] | int) -> bytes:
    if isinstance(record, int):
        return HOSTILE[record % len(HOSTILE)]
    return json.dumps(record, ensure_ascii=False).encode()


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.one_of(*SHAPES.values(), records, st.integers(0, 100)), max_size=12),
    st.sampled_from([b"\n", b"\r\n"]),
    st.booleans(),
    st.integers(16, 400),
)
def test_generated_lines_decode_the_same(
    tmp_path_factory: pytest.TempPathFactory,
    generated: list[Any],
    newline: bytes,
    final_newline: bool,
    block: int,
) -> None:
    """Any mix of lines (of every shape, with values of every type, and hostile ones), with
    blocks and a line limit small enough that lines cross blocks and some are too long."""
    path = tmp_path_factory.mktemp("fast") / "t.jsonl"
    text = newline.join(_line(r) for r in generated) + (newline if final_newline else b"")
    path.write_bytes(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lines, "BLOCK_BYTES", block)
        patch.setattr(lines, "MAX_LINE_BYTES", 600)
        patch.setattr(lines, "PROGRESS_LINES", 3)
        full, quick = _both(str(path))
    assert quick == full


@pytest.mark.parametrize(
    "data",
    [b"\xff\xfe{\x00}\x00\n", b"x" * 2000 + b"\x00\n{}\n", b"x" * 2000 + b"\n{}\n", b""],
    ids=["UTF-16", "binary long line", "long line", "empty"],
)
def test_binary_and_long_lines_read_the_same(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lines, "BLOCK_BYTES", 64)
        patch.setattr(lines, "MAX_LINE_BYTES", 1000)
        full, quick = _both(str(path))
    assert quick == full


def test_the_one_difference_a_number_beyond_a_double_in_a_field_not_read(tmp_path: Path) -> None:
    """orjson refuses the whole line; the fast path skips the field it does not read."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"type": "summary", "uuid": "u", "tokens": 1e400}\n')
    (full, full_reading, _), (quick, fast_reading, _) = _both(str(path))
    assert full == [] and "infinity" in full_reading.unreadable[0].error
    assert quick == [(1, None, ("claude-code", [], False))] and fast_reading.unreadable == []


@pytest.mark.parametrize("output", OUTPUTS)
def test_a_codex_output_fails_as_the_full_path_says(output: str) -> None:
    assert fast.output_failed(output) is codex.output_failed(output)


EDGES = [
    {"type": "response_item", "payload": {"type": "function_call", "call_id": "c", "action": {"a": 1}}},
    {"type": "response_item", "payload": {"type": "function_call", "call_id": "c", "arguments": None, "action": {}}},
    {"type": "user", "uuid": "u", "isSidechain": True, "parentUuid": "p", "message": {"content": "go"}},
    {"type": "user", "uuid": "u", "isSidechain": True, "message": {"content": "go"}},
    {"type": "user", "uuid": "u", "isMeta": True, "message": {"content": "go"}},
    {"type": "assistant", "uuid": "u", "message": {"content": [{"type": "tool_use", "name": None}]}},
    {"type": "user", "uuid": "u", "toolUseResult": {"agentId": "a"}, "message": {"content": [{"type": "tool_result", "tool_use_id": "t"}]}},
    {"type": "user", "uuid": "u", "toolUseResult": "Error: no", "message": {"content": [{"type": "tool_result", "tool_use_id": "t"}]}},
    {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c", "output": OUTPUTS[0]}},
]  # fmt: skip


@pytest.mark.parametrize("record", EDGES)
def test_edge_records_decode_as_detect_does(record: dict[str, Any]) -> None:
    line = fast.msgspec.json.decode(json.dumps(record).encode(), type=fast.Line)
    decoded = fast.decode_line(line)
    if decoded is not fast.FALLBACK:
        assert _events(decoded) == _events(detect(record))


def test_a_file_of_other_shapes_stops_trying_the_fast_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After TRIAL_LINES lines mostly left to the full path, the next blocks take it directly."""
    monkeypatch.setattr(lines, "BLOCK_BYTES", 256)
    chat = [{"role": "assistant", "tool_calls": [{"id": f"c{n}", "function": {"name": "f"}}]}
            for n in range(fast.TRIAL_LINES + 500)]  # fmt: skip
    claude = [{"type": "assistant", "uuid": "u", "message": {"content": [
        {"type": "tool_use", "id": "t", "name": "Read"}]}}] * 3  # fmt: skip
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in chat + claude))
    full, quick = _both(str(path))
    assert quick == full
    tail = list(fast.records(str(path), Reading(), None, detect))[-3:]
    assert [type(obj) for _, obj, _ in tail] == [dict] * 3  # parsed by the full path
