"""What a tool costs the context: result and input sizes, measured alike on the fast and
the full decoding path, counted once for a resumed session's copies, in every engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import Cli
from tests.replay.pools import InProcessPool
from toolsel.replay import parallel
from toolsel.replay.driver import usage_paths
from toolsel.replay.sizes import (
    content_size,
    estimated_tokens,
    input_size,
    raw_content_size,
    response_size,
)

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)
CONTENT = st.one_of(
    TEXT,
    st.lists(st.one_of(st.fixed_dictionaries({"type": st.just("text"), "text": TEXT}), TEXT)),
    st.none(),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)


@given(content=CONTENT, ascii_only=st.booleans(), indent=st.booleans())
def test_raw_size_is_the_decoded_size(content: object, ascii_only: bool, indent: bool) -> None:
    """However the JSON was written (escaped or not, spaced or not), the raw text's size
    is the size of the value it holds."""
    raw = json.dumps(content, ensure_ascii=ascii_only, indent=1 if indent else None)
    assert raw_content_size(raw.encode()) == content_size(content)


@pytest.mark.parametrize(
    ("content", "size"),
    [
        ("héllo", 6),
        ([{"type": "text", "text": "ab"}, {"type": "image", "source": {"data": "xxxx"}}], 2),
        ('line\n"q"\\', 9),
        (None, 0),
        ({"a": 1}, 0),
        ({"content": [{"type": "text", "text": "abc"}], "isError": False}, 3),
        ({"output": "total 0\n", "exitCode": 0}, 8),  # a command's run (Amp)
        ({"content": "ab", "output": "abcd"}, 2),  # the content is what the model reads
        ({"text": "a", "output": "abcd"}, 1),
        ({"content": None, "output": "abcd"}, 0),
        ({"output": [{"type": "text", "text": "é"}]}, 2),
        ({"output": {"output": {"output": {"output": "deep"}}}}, 0),  # past three levels
        ({"output": 3}, 0),
    ],
)
def test_a_result_counts_the_bytes_of_its_text(content: object, size: int) -> None:
    assert content_size(content) == size
    assert raw_content_size(json.dumps(content).encode()) == size


@pytest.mark.parametrize(
    ("response", "size"),
    [
        ({"output": "Edit successful"}, 15),
        ({"error": "Path must be absolute: ."}, 24),
        ({"output": "ok", "error": "boom"}, 2),
        ({"error": {"message": "boom"}}, 0),
        ({"error": [{"text": "boom"}]}, 4),
        ({}, 0),
        ("bare", 4),
        (None, 0),
    ],
)
def test_a_function_response_counts_its_output_else_its_error(response: object, size: int) -> None:
    assert response_size(response) == size


def test_inputs_count_their_json_text_and_tokens_are_bytes_over_four() -> None:
    assert input_size({"path": "a"}, encoded=False) == len(b'{"path":"a"}')
    assert input_size(b'{"path": "a"}', encoded=True) == 12  # written compact
    assert input_size('{"é":1}', encoded=True) == 8
    assert [estimated_tokens(n) for n in (0, 1, 4, 5, 4000)] == [0, 1, 1, 2, 1000]


def _session(path: Path, session: str, calls: list[tuple[str, str, str]]) -> None:
    """A Claude Code session file: each (id, tool, result text)."""
    lines = []
    for ident, tool, text in calls:
        use = {"type": "tool_use", "id": ident, "name": tool, "input": {"q": ident}}
        result = {"type": "tool_result", "tool_use_id": ident, "content": text}
        lines.append({"type": "assistant", "uuid": f"a{ident}", "sessionId": session,
                      "message": {"id": f"m{ident}", "content": [use]}})  # fmt: skip
        lines.append({"type": "user", "uuid": f"u{ident}", "sessionId": session,
                      "message": {"content": [result]}})  # fmt: skip
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))


@pytest.fixture
def resumed(tmp_path: Path) -> Path:
    """Two files; the second resumes the first (copies its two calls) and adds one."""
    first = [("t1", "Read", "x" * 100), ("t2", "Read", "y" * 300)]
    _session(tmp_path / "a.jsonl", "s", first)
    _session(tmp_path / "b.jsonl", "s", [*first, ("t3", "Bash", "z" * 7000)])
    return tmp_path


def test_a_copied_call_is_measured_once_in_one_process_and_in_workers(
    resumed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = usage_paths([str(resumed)]).stats()
    by_name = {t.name: t for t in one.tools}
    read = by_name["Read"].result_size
    assert read is not None
    assert (read.count, read.total, read.median, read.p95) == (2, 400, 200.0, 300.0)
    bash = by_name["Bash"].result_size
    assert bash is not None and bash.total == 7000
    given_input = by_name["Read"].input_size
    assert given_input is not None and given_input.total == 2 * len(b'{"q":"t1"}')
    monkeypatch.setattr(parallel, "MIN_FILES", 1)
    monkeypatch.setattr(parallel, "CHUNK", 1)
    monkeypatch.setattr(parallel, "_pool", InProcessPool)
    assert usage_paths([str(resumed)], jobs=2).stats() == one


def test_stats_shows_sizes_in_every_format(cli: Cli, resumed: Path) -> None:
    document = json.loads(cli("stats", str(resumed), "--format", "json").stdout)
    assert document["token_method"] == "bytes/4"
    assert document["tools"]["Bash"]["result_bytes"] == {
        "count": 1, "total": 7000, "median": 7000.0, "p95": 7000.0,
        "total_tokens": 1750, "median_tokens": 1750, "p95_tokens": 1750,
    }  # fmt: skip
    human = cli("stats", str(resumed)).stdout
    assert "7.0 kB (1,750 tok)" in human
    page = cli("stats", str(resumed), "--format", "html").stdout
    assert '"median_tokens":1750' in page.replace(" ", "")


@pytest.mark.parametrize(
    "value",
    [[2**70, 1.5, True, None, 'é"\n'], {"a": [1, {"b": []}], "": {}}, [], {}, "x"],
)
def test_an_input_orjson_cannot_write_is_measured_as_compact_json(value: Any) -> None:
    """An integer past 64 bits, or nesting past orjson's 255 levels (1,000 here, past
    Python's own recursion): still its compact JSON's bytes."""
    deep = value
    for _ in range(1000):
        deep = [deep]
    compact = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    assert input_size(deep, False) == len(compact) + 2000
