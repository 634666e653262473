"""A JSON document's records carry the line they start on, not their index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsel.replay.documents import element_lines
from toolsel.replay.lines import (
    TRANSCRIPT_SUFFIXES,
    Reading,
    read_objects,
    transcripts_under,
)

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


NAMES = st.sampled_from(
    [
        "a.jsonl",
        "b.json",
        "c.traj",
        "d.ndjson",
        ".jsonl",
        "e.JSONL",
        "f.txt",
        "g",
        ".h.jsonl",
        "i.jsonl.",
    ]
)


@settings(max_examples=40, deadline=None)
@given(
    tree=st.lists(
        st.tuples(
            st.sampled_from(["", "x", "x/y", ".hidden", "x/.z"]),
            NAMES,
            st.sampled_from(["file", "dir", "link-file", "link-dir", "dangling", "loop"]),
        ),
        max_size=14,
    )
)
def test_transcripts_under_finds_what_rglob_finds(
    tree: list[tuple[str, str, str]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Files, directories named like transcripts, symlinks to either (a symlinked directory
    is not entered), dangling symlinks, symlink loops and hidden folders."""
    top = tmp_path_factory.mktemp("tree")
    (top / "target-dir").mkdir()
    (top / "target-dir" / "inside.jsonl").write_text("")
    (top / "target.jsonl").write_text("")
    for folder, name, kind in tree:
        where = top / folder
        where.mkdir(parents=True, exist_ok=True)
        path = where / name
        if path.exists() or path.is_symlink():
            continue
        if kind == "file":
            path.write_text("")
        elif kind == "dir":
            path.mkdir()
            (path / "nested.jsonl").write_text("")
        elif kind == "loop":
            path.symlink_to(path)
        else:
            target = {"link-file": "target.jsonl", "link-dir": "target-dir", "dangling": "gone"}
            path.symlink_to(top / target[kind])
    expected = sorted(
        str(p) for p in top.rglob("*") if p.suffix in TRANSCRIPT_SUFFIXES and not p.is_dir()
    )
    assert transcripts_under(str(top)) == expected
    assert transcripts_under(str(top) + "/") == expected


def test_transcripts_under_the_current_directory_are_relative(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "a.jsonl").write_text("")
    (tmp_path / "b.json").write_text("")
    monkeypatch.chdir(tmp_path)
    assert transcripts_under(".") == ["b.json", "s/a.jsonl"]
    assert transcripts_under("./s") == ["s/a.jsonl"]
