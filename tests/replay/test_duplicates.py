"""`replay.duplicates`: how a call seen again under an open id compares with the first."""

from __future__ import annotations

from typing import Any

import pytest

from toolsel.replay.duplicates import DUPLICATE_SEVERITY, duplicate_kind, enrich
from toolsel.replay.events import Call


def call(tool: str = "Read", given: Any = None, *, encoded: bool = False) -> Call:
    return Call("c1", tool, given, encoded=encoded)


@pytest.mark.parametrize(
    ("first", "again", "kind"),
    [
        (call("Read", {"path": "a"}), call("Write", {"path": "a"}), "conflicting"),
        (call(given={"path": "a"}), call(given={"path": "a"}), "identical"),
        (call(given=None), call(given={"path": "a"}), "enriched"),
        (call(given=""), call(given={"path": "a"}), "enriched"),
        (call(given={"path": "a"}), call(given={"path": "a", "limit": 5}), "enriched"),
        (call(given={"path": "a"}), call(given={"path": "b", "limit": 5}), "conflicting"),
        (call(given={"path": "a", "limit": 5}), call(given={"path": "a"}), "conflicting"),
        (call(given='{"path": "a"}', encoded=True), call(given={"path": "a"}), "identical"),
    ],
)
def test_duplicate_kind(first: Call, again: Call, kind: str) -> None:
    assert duplicate_kind(first, again) == kind
    assert kind in DUPLICATE_SEVERITY


def test_the_most_severe_kind_ranks_highest() -> None:
    assert sorted(DUPLICATE_SEVERITY, key=DUPLICATE_SEVERITY.__getitem__) == [
        "reused",
        "identical",
        "enriched",
        "conflicting",
    ]


def test_enrich_takes_a_richer_input_only() -> None:
    first = call(given={"path": "a"})
    assert enrich(first, call(given='{"path": "a", "limit": 5}', encoded=True))
    assert (first.input, first.encoded) == ('{"path": "a", "limit": 5}', True)
    assert not enrich(first, call(given={"path": "b"}))
    assert first.arguments == {"path": "a", "limit": 5}
    empty = call(given=[])
    assert not enrich(empty, call(given={})) and empty.input == []  # empty for empty
    assert enrich(empty, call(given="text")) and empty.input == "text"


def _nested(levels: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("leaf", "other", "kind"), [(1, 1, "identical"), (1, 2, "conflicting"), (1, [1], "conflicting")]
)
def test_inputs_nested_past_pythons_recursion_are_compared(
    leaf: Any, other: Any, kind: str
) -> None:
    """`==` fails some 900 levels down; a JSON line may nest 1,024 (a RecursionError)."""
    first, again = (
        call("Read", {"a": _nested(1000, leaf)}),
        call("Read", {"a": _nested(1000, other)}),
    )
    assert duplicate_kind(first, again) == kind
