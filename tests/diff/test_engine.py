"""`diff_registries`: every family's changes, breaking first, then by tool, rule and
pointer; no two changes share a fingerprint."""

from __future__ import annotations

from pathlib import Path

from tests.diff.helpers import changes
from toolsel.diff.canonical import FINGERPRINT_DOMAIN, domain_hash
from toolsel.diff.engine import distinct_fingerprints, sort_changes
from toolsel.diff.model import Category, Change, ChangeClass

B, R, S = ChangeClass.BREAKING, ChangeClass.RISKY, ChangeClass.SAFE


def test_changes_come_breaking_first_then_by_tool_rule_and_pointer(tmp_path: Path) -> None:
    old = """
    - name: b
      description: Reads b.
      permission: write
      tags: [x]
      parameters: {type: object, properties: {q: {type: string}, r: {type: string}}}
    - name: a
      description: Reads a.
      permission: read
    """
    new = """
    - name: a
      description: Reads all of a.
      permission: write
      display_name: A
    - name: b
      description: Reads b now.
      permission: read
      tags: [y]
      parameters: {type: object, properties: {q: {type: integer}, r: {type: integer}}}
    - name: c
      description: Reads c.
    """
    assert [(c.change_class.value, c.tool, c.rule, c.pointer) for c in changes(old, new, tmp_path)] == [
        ("breaking", "a", "TD301", "/permission"),
        ("breaking", "b", "TD106", "/parameters/properties/q/type"),
        ("breaking", "b", "TD106", "/parameters/properties/r/type"),
        ("risky", "a", "TD201", "/description"),
        ("risky", "b", "TD201", "/description"),
        ("risky", "b", "TD203", "/tags"),
        ("risky", "b", "TD302", "/permission"),
        ("safe", "a", "TD009", "/name"),
        ("safe", "a", "TD203", "/display_name"),
        ("safe", "c", "TD008", "/name"),
    ]  # fmt: skip


def made(
    rule: str, change_class: ChangeClass, tool: str, pointer: str, fp: str = "", message: str = "m"
) -> Change:
    return Change(
        rule, change_class, Category.PARAMS, tool, message, pointer=pointer, fingerprint=fp
    )


def test_sort_orders_by_class_tool_rule_pointer_and_keeps_ties_in_place() -> None:
    given = [
        made("TD103", S, "a", "/p"),
        made("TD111", R, "b", "/p"),
        made("TD106", B, "z", "/p"),
        made("TD111", R, "a", "/q"),
        made("TD105", R, "a", "/p", message="first"),
        made("TD111", R, "a", "/p"),
        made("TD105", R, "a", "/p", message="second"),
    ]
    assert [(c.rule, c.tool, c.pointer, c.message) for c in sort_changes(given)] == [
        ("TD106", "z", "/p", "m"),
        ("TD105", "a", "/p", "first"),
        ("TD105", "a", "/p", "second"),
        ("TD111", "a", "/p", "m"),
        ("TD111", "a", "/q", "m"),
        ("TD111", "b", "/p", "m"),
        ("TD103", "a", "/p", "m"),
    ]


def test_a_shared_fingerprint_also_hashes_each_message() -> None:
    one, two = (
        made("TD105", S, "a", "/r", "f" * 16, "x"),
        made("TD105", S, "a", "/r", "f" * 16, "y"),
    )
    alone = made("TD105", S, "a", "/s", "e" * 16, "x")
    renamed = distinct_fingerprints([one, alone, two])
    assert [c.fingerprint for c in renamed] == [
        domain_hash(FINGERPRINT_DOMAIN, ["f" * 16, "x"])[:16],
        "e" * 16,
        domain_hash(FINGERPRINT_DOMAIN, ["f" * 16, "y"])[:16],
    ]
    assert [c.message for c in renamed] == ["x", "x", "y"]
    assert len({c.fingerprint for c in renamed}) == 3
