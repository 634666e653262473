"""The fast decoding path gives what the full path (orjson, then `detect`) gives: the same
events, formats, unreadable lines, blank lines, line count and progress, line for line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsel.replay import lines
from toolsel.replay.events import UNKNOWN, Call
from toolsel.replay.formats import codex, detect, fast, fast_codex, fast_shapes
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
        line = msgspec.json.decode(json.dumps(record).encode(), type=fast_shapes.Line)
        decoded = fast.decode_line(line)
        assert decoded is not fast_shapes.FALLBACK
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
    decoded = fast.decode_line(msgspec.json.decode(raw, type=fast_shapes.Line))
    if decoded is not fast_shapes.FALLBACK:
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
        patch.setattr(fast, "BLOCK_BYTES", block)
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
        patch.setattr(fast, "BLOCK_BYTES", 64)
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
    assert fast_codex.output_failed(output) is codex.output_failed(output)


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
    {"type": "user", "sessionId": "s", "message": {"content": "hi"}},
    {"type": "assistant", "sessionId": "s", "message": {"content": [{"type": "tool_use", "id": "t", "name": "Read"}]}},
    {"type": "item.started", "parent_tool_use_id": "t", "item": {"id": "i", "type": "command_execution", "command": "ls"}},
]  # fmt: skip


#: The edges the fast path leaves to the full path (by their place in EDGES): a Codex
#: function call with an `action` and no arguments, and a stream-json item of Codex exec.
LEFT_TO_THE_FULL_PATH = {0, 11}


@pytest.mark.parametrize(("number", "record"), list(enumerate(EDGES)))
def test_edge_records_decode_as_detect_does(number: int, record: dict[str, Any]) -> None:
    line = msgspec.json.decode(json.dumps(record).encode(), type=fast_shapes.Line)
    decoded = fast.decode_line(line)
    if number in LEFT_TO_THE_FULL_PATH:  # read by the full path: nothing to compare
        assert decoded is fast_shapes.FALLBACK
    else:  # read here, exactly as the full path reads it
        assert decoded is not fast_shapes.FALLBACK
        assert _events(decoded) == _events(detect(record))


def test_a_file_of_other_shapes_stops_trying_the_fast_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After TRIAL_LINES lines mostly left to the full path, the next blocks take it directly."""
    monkeypatch.setattr(fast, "BLOCK_BYTES", 256)
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


# -- what `records` gives, line by line --------------------------------------------------

CLAUDE = {"type": "assistant", "uuid": "a", "message": {"id": "m", "content": [{"type": "tool_use", "id": "t", "name": "Read", "input": {"path": "x"}}]}}  # fmt: skip
CHAT = {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": "{}"}}]}  # fmt: skip


def _write(path: Path, records: list[Any]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def test_a_fast_line_comes_as_its_bytes_and_another_as_its_value(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(json.dumps(CLAUDE).encode() + b"\n\n" + json.dumps(CHAT).encode() + b"\n{oops\n" + json.dumps(CLAUDE).encode())  # fmt: skip
    reading = Reading()
    got = list(fast.records(str(path), reading, None, detect))
    assert [(n, type(obj).__name__) for n, obj, _ in got] == [(1, "bytes"), (3, "dict"), (5, "bytes")]  # fmt: skip
    assert got[0][1] == json.dumps(CLAUDE).encode() and got[1][1] == CHAT
    assert got[2][1] == json.dumps(CLAUDE).encode()  # the last line, without a line break
    assert _events(got[0][2]) == _events(detect(CLAUDE)) and got[1][2] == detect(CHAT)
    assert (reading.lines, reading.blank) == (5, 1)
    assert [u.line for u in reading.unreadable] == [4]


def test_a_line_that_crosses_a_blocks_end_comes_whole_without_its_line_break(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fast, "BLOCK_BYTES", 16)
    got = list(
        fast.records(_write(tmp_path / "t.jsonl", [CLAUDE, CLAUDE]), Reading(), None, detect)
    )
    line = json.dumps(CLAUDE).encode()
    assert [(n, obj) for n, obj, _ in got] == [(1, line), (2, line)]


def test_a_whole_document_is_read_by_the_full_path(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps([CLAUDE, CHAT], indent=1))
    got = list(fast.records(str(path), Reading(), None, detect))
    assert [(obj, decoded) for _, obj, decoded in got] == [(CLAUDE, detect(CLAUDE)), (CHAT, detect(CHAT))]  # fmt: skip
    assert [n for n, _, _ in got] == [2, 19]  # the lines its elements open on


def test_a_line_of_utf_8_beside_a_broken_one_still_takes_the_fast_path(tmp_path: Path) -> None:
    """A block that is not valid UTF-8 is checked line by line: its good lines stay fast."""
    good = json.dumps({**CLAUDE, "pad": "café"}, ensure_ascii=False).encode()
    path = tmp_path / "t.jsonl"
    path.write_bytes(good + b"\n" + b'{"type": "summary", "summary": "caf\xe9"}\n')
    full, quick = _both(str(path))
    assert quick == full
    (number, obj, _), *_ = fast.records(str(path), Reading(), None, detect)
    assert (number, obj) == (1, good)  # its bytes: decoded by the fast path


def test_a_json_file_of_lines_is_read_line_by_line_with_progress(tmp_path: Path) -> None:
    """A `.json` file that is no single document takes the full path, progress and all."""
    path = _write(tmp_path / "t.json", [CLAUDE, CHAT])
    full, quick = _both(path)
    assert quick == full
    records, _, told = quick
    assert [n for n, _, _ in records] == [1, 2] and sum(told) == Path(path).stat().st_size


def test_a_line_over_the_limit_is_unreadable_and_the_rest_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setattr(fast, "BLOCK_BYTES", 64)
    monkeypatch.setattr(lines, "MAX_LINE_BYTES", 300)
    long = {**CLAUDE, "pad": "x" * 400}
    reading = Reading()
    got = list(fast.records(_write(tmp_path / "t.jsonl", [CLAUDE, long, CLAUDE]), reading, None, detect))  # fmt: skip
    assert [n for n, _, _ in got] == [1, 3]
    assert [u.line for u in reading.unreadable] == [2] and reading.lines == 3


def test_the_value_of_a_record() -> None:
    assert fast.value(b'{"type": "summary", "n": [1, 2]}') == {"type": "summary", "n": [1, 2]}
    record = {"type": "summary"}
    assert fast.value(record) is record
    assert fast.value(b'{"type": "summary", "tokens": 1e400}') is None


@pytest.mark.parametrize("block", [1, 1 << 20], ids=["a block per line", "one block"])
def test_progress_is_told_every_progress_lines_lines_and_at_the_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int) -> None:  # fmt: skip
    monkeypatch.setattr(lines, "PROGRESS_LINES", 2)
    monkeypatch.setattr(fast, "BLOCK_BYTES", block)
    text = [json.dumps({**CLAUDE, "pad": "x" * n}).encode() for n in range(5)]
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\n".join(text))  # no line break after the last line
    told: list[int] = []
    list(fast.records(str(path), Reading(), told.append, detect))
    sizes = [len(line) + 1 for line in text]
    assert told == [sizes[0] + sizes[1], sizes[2] + sizes[3], sizes[4] - 1]
    assert sum(told) == path.stat().st_size


@pytest.mark.parametrize(
    ("first", "tried"),
    [
        ([CHAT, CLAUDE, CHAT, CLAUDE], bytes),  # half of the trial lines missed: still tried
        ([CHAT, CHAT, CHAT, CLAUDE], dict),  # more than half: the full path only
        ([CHAT, CHAT], bytes),  # fewer lines than the trial
    ],
)
def test_the_fast_path_is_tried_until_the_trial_lines_mostly_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: list[dict], tried: type
) -> None:
    monkeypatch.setattr(fast, "TRIAL_LINES", 4)
    monkeypatch.setattr(fast, "BLOCK_BYTES", 1)  # a block per line
    path = _write(tmp_path / "t.jsonl", [*first, CLAUDE, CLAUDE])
    got = list(fast.records(path, Reading(), None, detect))
    assert [type(obj) for _, obj, _ in got[-2:]] == [tried, tried]
    assert [_events(decoded) for _, _, decoded in got[-2:]] == [_events(detect(CLAUDE))] * 2


#: Lines of the common shapes beyond the first three: each takes the fast path.
COMMON = [
    {"type": "summary", "summary": "Fix the parser", "leafUuid": "u9"},
    {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "result": "done",
        "duration_ms": 6500,
    },
    {
        "timestamp": "2026-08-03T10:48:56.000Z",
        "type": "response_item",
        "payload": {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"},
    },
    {
        "timestamp": "2026-08-03T10:48:56.000Z",
        "type": "response_item",
        "payload": {
            "type": "custom_tool_call",
            "name": "apply_patch",
            "input": "*** Begin Patch",
            "call_id": "c2",
        },
    },
    {
        "timestamp": "2026-08-03T10:48:57.000Z",
        "type": "event_msg",
        "payload": {"type": "token_count", "info": None},
    },
    {
        "timestamp": "2026-08-03T10:48:56.000Z",
        "type": "turn_context",
        "payload": {"turn_id": "t1", "cwd": "/tmp/repo"},
    },
    {"type": "user", "uuid": "u", "message": {"role": "user", "content": "café crème"}},
    # a Claude Code line of a type with no events: known by its uuid, its sessionId, or (a
    # snapshot, a summary) its type alone
    {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}, "isSnapshotUpdate": False},
    {"type": "progress", "uuid": "u", "data": {"type": "hook_progress"}},
    {"type": "progress", "sessionId": "s", "data": {"type": "hook_progress"}},
]


@pytest.mark.parametrize("record", COMMON)
def test_more_common_shapes_take_the_fast_path(tmp_path: Path, record: dict[str, Any]) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(json.dumps(record, ensure_ascii=False).encode() + b"\n")
    ((number, obj, decoded),) = fast.records(str(path), Reading(), None, detect)
    assert (number, obj) == (1, json.dumps(record, ensure_ascii=False).encode())
    assert _events(decoded) == _events(detect(record))
