"""A JSON document's records carry the line they start on, not their index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsel.replay.lines import Reading, element_lines, read_objects

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None)
@given(st.lists(values, max_size=8), st.sampled_from([None, "messages", "output"]))
def test_each_record_has_the_line_it_starts_on(elements: list, key: str | None) -> None:
    document = elements if key is None else {"model": "x", key: elements, "after": [1, 2]}
    text = json.dumps(document, indent=2)
    lines = element_lines(text.encode(), key, len(elements))
    # the element starts on the line after the previous element ends: compare with a scan
    if not elements:
        assert lines == []
        return
    expected = []
    line = 2 if key is None else text.splitlines().index(f'  "{key}": [') + 2
    for element in elements:
        expected.append(line)
        line += json.dumps(element, indent=2).count("\n") + 1
    assert lines == expected


def test_a_document_on_one_line_has_every_record_on_line_1() -> None:
    assert element_lines(b'[{"a": 1}, {"b": 2}]\n', None, 2) == [1, 1]


def test_a_document_that_does_not_scan_as_expected_gives_its_first_line() -> None:
    # orjson reads it, the scan cannot find the key where it expects it: no wrong line
    assert element_lines(b'\n\n{"messages": 5,\n "x": [1]}', "messages", 1) == [3]
    # nested deeper than the standard library's scanner goes (orjson reads 1,024 levels)
    deep = b"[\n" + b"[" * 1000 + b"]" * 1000 + b',\n{"a": 1}\n]'
    assert element_lines(deep, None, 2) == [1, 1]


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ('[\n  {"role": "user"},\n\n  {"role": "assistant"}\n]\n', [2, 4]),
        ('{"title": "t",\n "messages": [\n  {"role": "user"}, {"role": "tool"}\n ]}\n', [3, 3]),
        ('\ufeff[\r\n {"a": "x\\n"},\r\n {"b": "]"}\r\n]', [2, 3]),
    ],
)
def test_read_objects_gives_real_lines(tmp_path: Path, text: str, lines: list[int]) -> None:
    path = tmp_path / "doc.json"
    path.write_text(text, encoding="utf-8")
    reading = Reading()
    assert [line for line, _ in read_objects(str(path), reading)] == lines
    assert reading.lines == text.count("\n") + (0 if text.endswith("\n") else 1)
