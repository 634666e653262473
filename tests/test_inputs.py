"""toolsel.inputs: bounded reads that never hold more than their limit."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolsel.inputs import (
    BadLine,
    Binary,
    BinaryData,
    InputProblem,
    LongLine,
    TooLarge,
    bounded_lines,
    check_path,
    json_reason,
    jsonl_values,
    read_bounded,
)


class CountingReader(io.BytesIO):
    """Remembers the largest single read, to prove nothing longer was ever held."""

    largest = 0

    def readline(self, size: int | None = -1) -> bytes:  # type: ignore[override]
        line = super().readline(size)
        self.largest = max(self.largest, len(line))
        return line


def test_a_long_line_is_skipped_in_chunks_and_reported_with_its_size() -> None:
    data = b"short\n" + b"x" * 50_000 + b"\r\nafter\n" + b"y" * 20_000
    reader = CountingReader(data)
    items = list(bounded_lines(reader, 1000))
    assert items == [b"short\n", LongLine(50_000), b"after\n", LongLine(20_000)]
    assert reader.largest <= 1024 * 1024  # a chunk, never the whole line


def test_binary_data_ends_the_lines() -> None:
    items = list(bounded_lines(io.BytesIO(b"ok\n" + b"\0" * 5000 + b"\nnever\n"), 100))
    assert items == [b"ok\n", BinaryData("binary data (NUL bytes), not text")]
    (utf16,) = list(bounded_lines(io.BytesIO("tools:\n".encode("utf-16")), 100))
    assert isinstance(utf16, BinaryData) and "UTF-16" in utf16.reason


@given(
    st.lists(
        st.binary(max_size=300).map(lambda b: b.replace(b"\n", b"").replace(b"\0", b"")),
        max_size=20,
    )
)
def test_lines_under_the_limit_come_back_unchanged(lines: list[bytes]) -> None:
    data = b"".join(line + b"\n" for line in lines)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return  # a UTF-16 byte-order mark: binary by design (test_binary_data_ends_the_lines)
    items = list(bounded_lines(io.BytesIO(data), 200))
    assert len(items) == len(lines)
    for line, item in zip(lines, items, strict=True):
        assert item == (line + b"\n" if len(line) <= 200 else LongLine(len(line)))


def test_size_is_checked_before_reading(tmp_path: Path) -> None:
    sparse = tmp_path / "big.yaml"
    with sparse.open("wb") as handle:
        handle.truncate(10 * 1024 * 1024 * 1024)  # 10 GB, no blocks: reading it would take long
    with pytest.raises(TooLarge) as caught:
        read_bounded(sparse, 1024)
    assert caught.value.size == 10 * 1024**3
    assert "10,737,418,240 bytes, over the 1,024-byte limit" in str(caught.value)


def test_a_stream_is_cut_at_the_limit() -> None:
    with pytest.raises(Binary):
        read_bounded("/dev/zero", 10 * 1024 * 1024)
    assert read_bounded("/dev/null", 10) == b""


def test_check_path_reasons(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(InputProblem, match="symlink loop"):
        check_path(loop)
    with pytest.raises(InputProblem) as missing:
        check_path(tmp_path / "nope")
    assert missing.value.missing
    assert check_path(tmp_path).is_dir and check_path("/dev/null").is_stream


def test_jsonl_values_say_why_and_where_each_bad_line_failed(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_bytes(
        b'{"query": "ok"}\n'
        b'{"a": 1, "b": nope}\n'
        b"\xff\xfe\n"
        b"\n"
        b'{"query": "cut'  # the writer was killed mid-line
    )
    found = list(jsonl_values(path))
    good = [item for item in found if not isinstance(item, BadLine)]
    bad = {item.line: item.error for item in found if isinstance(item, BadLine)}
    assert good == [(1, {"query": "ok"})]
    assert bad[2] == "not JSON (invalid literal, expected 'null' at column 15)"
    assert bad[3] == "not valid UTF-8 (byte 0xff at column 1)"
    assert bad[5].startswith("truncated last line (no newline at end of file")
    assert 4 not in bad  # a blank line is not a problem


def test_json_reason_sees_a_cut_line_only_at_the_end_of_the_file() -> None:
    import orjson

    for raw, ends in ((b'{"query": "cut', None), (b'{"query": "cut\n', None)):
        try:
            orjson.loads(raw)
        except orjson.JSONDecodeError as error:
            reason = json_reason(raw, error, ends_with_newline=ends)
        assert reason.startswith("truncated") == (not raw.endswith(b"\n"))
