"""The diff's result objects: classes ordered safe < risky < breaking, `--fail-on`, where
an annotation goes, and the JSON each object writes."""

from __future__ import annotations

import pytest

from toolsel.diff.model import (
    Category,
    Change,
    ChangeClass,
    DiffResult,
    Evidence,
    FailOn,
    Side,
)

B, R, S = ChangeClass.BREAKING, ChangeClass.RISKY, ChangeClass.SAFE


def test_classes_are_ordered() -> None:
    assert [c.level for c in (S, R, B)] == [0, 1, 2]


@pytest.mark.parametrize(
    ("fail_on", "failing"),
    [(FailOn.BREAKING, {B}), (FailOn.RISKY, {B, R}), (FailOn.ANY, {B, R, S}), (FailOn.NONE, set())],
)  # fmt: skip
def test_fail_on_fails_at_its_class_and_above(fail_on: FailOn, failing: set[ChangeClass]) -> None:
    assert {c for c in ChangeClass if fail_on.fails(c)} == failing


OLD = Side("old.yaml", 3, 5, "/tools/0/name", "a")
NEW = Side("new.yaml", 7, 9, "/tools/2/name", "b")
REVISION = Side("main:old.yaml", 3, 5, "/tools/0/name", "a", revision=True)
ANCHOR = Side("new.yaml", 1, 1, "/tools")


def made(**sides: Side | None) -> Change:
    return Change("TD001", B, Category.IDENTITY, "a", "m", **sides)  # type: ignore[arg-type]


def test_an_annotation_goes_to_new_then_the_anchor_then_an_old_file_on_disk() -> None:
    assert made(old=OLD, new=NEW, anchor=ANCHOR).reported_at is NEW
    assert made(old=OLD, anchor=ANCHOR).reported_at is ANCHOR
    assert made(old=OLD).reported_at is OLD
    assert made(old=REVISION).reported_at is None
    assert made(old=REVISION, anchor=ANCHOR).reported_at is ANCHOR
    assert made().reported_at is None


def test_a_change_as_json() -> None:
    change = Change(
        "TD301", B, Category.SECURITY, "b", "raised", old=OLD, new=NEW, old_tool="a",
        pointer="/permission", fingerprint="0123456789abcdef",
        evidence=(Evidence("transcript", "s.jsonl", 4, "call t1: rejected"),),
        hint="h", anchor=ANCHOR,
    )  # fmt: skip
    assert change.to_dict() == {
        "rule": "TD301",
        "class": "breaking",
        "category": "security",
        "tool": "b",
        "old_tool": "a",
        "message": "raised",
        "pointer": "/permission",
        "old": {"file": "old.yaml", "line": 3, "column": 5, "pointer": "/tools/0/name", "value": "a"},
        "new": {"file": "new.yaml", "line": 7, "column": 9, "pointer": "/tools/2/name", "value": "b"},
        "fingerprint": "0123456789abcdef",
        "evidence": [{"kind": "transcript", "file": "s.jsonl", "line": 4, "message": "call t1: rejected"}],
        "hint": "h",
        "anchor": {"file": "new.yaml", "line": 1, "column": 1, "pointer": "/tools", "value": None},
    }  # fmt: skip
    bare = Change("TD008", S, Category.IDENTITY, "c", "added").to_dict()
    assert (bare["old"], bare["new"], bare["anchor"], bare["evidence"], bare["hint"]) == (
        None,
        None,
        None,
        [],
        None,
    )
    assert (bare["old_tool"], bare["pointer"], bare["fingerprint"]) == (None, "", "")


def change(change_class: ChangeClass) -> Change:
    return Change("TD201", change_class, Category.SELECTION, "a", "m")


def test_a_result_counts_each_class_and_fails_by_its_fail_on() -> None:
    result = DiffResult(
        "main:reg/", "reg/", (change(R), change(S), change(R)), ignored=(change(B),),
        old_tools=4, new_tools=5,
    )  # fmt: skip
    assert result.counts() == {"breaking": 0, "risky": 2, "safe": 1}
    assert result.failed is False
    assert result.summary() == {
        "breaking": 0,
        "risky": 2,
        "safe": 1,
        "ignored": 1,
        "old_tools": 4,
        "new_tools": 5,
        "failed": False,
        "fail_on": "breaking",
    }
    risky = DiffResult("o", "n", (change(S), change(R)), fail_on=FailOn.RISKY)
    assert risky.failed is True and risky.summary()["fail_on"] == "risky"
    assert DiffResult("o", "n", (change(S),), fail_on=FailOn.RISKY).failed is False
    assert DiffResult("o", "n", ()).summary() == {
        "breaking": 0, "risky": 0, "safe": 0, "ignored": 0, "old_tools": 0, "new_tools": 0,
        "failed": False, "fail_on": "breaking",
    }  # fmt: skip
