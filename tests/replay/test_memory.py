"""The run's compact memory of call ids answers as a plain dict of every id would."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsel.replay import memory as memory_module
from toolsel.replay.memory import RunMemory


class Plain:
    """The memory as it was: each id's (tool, message id, first file) in a dict."""

    def __init__(self) -> None:
        self.calls: dict[str, tuple[str, str | None, int]] = {}
        self.sessions: dict[str, set[int]] = {}
        self.files = 0

    def is_copy(self, call_id: str, tool: str, message_id: str | None, linked: set[int]) -> bool:
        earlier = self.calls.get(call_id)
        if earlier is None or earlier[0] != tool:
            return False
        if message_id is not None and earlier[1] == message_id:
            return True
        return earlier[2] in linked

    def remember(self, started: dict[str, tuple[str, str | None]], sessions: list[str]) -> None:
        for call_id, (tool, message_id) in started.items():
            self.calls.setdefault(call_id, (tool, message_id, self.files))
        for session in sessions:
            self.sessions.setdefault(session, set()).add(self.files)
        self.files += 1


Call = tuple[str, str, str | None]
calls = st.tuples(
    st.sampled_from([f"id{i}" for i in range(40)]),
    st.sampled_from(["Bash", "Read"]),
    st.sampled_from([None, "m1", "m2", "m3"]),
)
files = st.lists(
    st.tuples(st.lists(calls, max_size=12), st.lists(st.sampled_from(["s", "t", "u"]), max_size=2)),
    max_size=12,
)


@pytest.fixture(autouse=True)
def _merge_often(monkeypatch: pytest.MonkeyPatch) -> None:
    """A few ids wait in the dict before the sorted arrays take them (and the Bloom filter
    grows), so that every path is taken."""
    monkeypatch.setattr(memory_module, "PENDING", 4)


@settings(max_examples=150, deadline=None)
@given(files)
def test_answers_as_a_dict_of_every_id(run: list[tuple[list[Call], list[str]]]) -> None:
    """`compact` is told each file's calls (`remember`); `asked` takes them from what
    `is_copy` was asked (`file_done`, as a matcher's file ends)."""
    compact, asked, plain = RunMemory(), RunMemory(), Plain()
    for opened, sessions in run:
        linked = set().union(*(plain.sessions.get(s, set()) for s in sessions))
        assert linked == set().union(*(set(compact.linked(s)) for s in sessions))
        started: dict[str, tuple[str, str | None]] = {}
        for call_id, tool, message_id in opened:
            expected = plain.is_copy(call_id, tool, message_id, linked)
            assert compact.is_copy(call_id, tool, message_id, linked) == expected
            assert asked.is_copy(call_id, tool, message_id, linked) == expected
            started.setdefault(call_id, (tool, message_id))
        compact.remember(started, sessions)
        asked.file_done(sessions)
        plain.remember(started, sessions)
    assert len(compact) == len(asked) == len(plain.calls)
    assert compact.files == asked.files == plain.files


def test_grows_past_its_first_bloom_filter() -> None:
    memory = RunMemory()
    for file in range(300):
        memory.remember({f"{file}-{i}": ("Bash", f"m{file}") for i in range(20)}, [])
    assert len(memory) == 6000
    assert memory.is_copy("7-3", "Bash", "m7", set())
    assert not memory.is_copy("7-3", "Read", "m7", set())
    assert not memory.is_copy("7-3", "Bash", "other", set())
    assert memory.is_copy("7-3", "Bash", "other", {7})
    assert not memory.is_copy("new", "Bash", "m7", {7})


@settings(max_examples=100, deadline=None)
@given(files, st.lists(st.sampled_from([f"id{i}" for i in range(60)]), max_size=10))
def test_none_of_is_never_wrong_when_it_says_none(
    run: list[tuple[list[Call], list[str]]], asked: list[str]
) -> None:
    """Past the pending dict (PENDING is 4 here), the Bloom filter answers; a "none" is sure."""
    memory = RunMemory()
    for opened, sessions in run:
        memory.remember({call_id: (tool, message) for call_id, tool, message in opened}, sessions)
    keys = [hash(call_id) for call_id in asked]
    known = any(memory.find(key) is not None for key in keys)
    if memory.none_of(keys):
        assert not known
    if known:
        assert not memory.none_of(keys)
    assert memory.none_of([])
