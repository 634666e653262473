"""The ignore file: each entry located, with a reason and a fingerprint or a rule; an entry
that expired or matches nothing is a warning; the changes an unexpired entry accepts move
to `ignored`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import pytest

from toolsel.diff.ignore import IgnoreEntry, apply_ignores, read_ignore_file
from toolsel.diff.model import Category, Change, ChangeClass, DiffResult, IgnoreWarning
from toolsel.errors import UsageError


def read(write: Callable[..., Path], text: str | bytes) -> tuple[IgnoreEntry, ...]:
    return read_ignore_file(write("ignore.yaml", text))


def refusal(write: Callable[..., Path], text: str | bytes) -> tuple[str, str | None]:
    path = write("ignore.yaml", text)
    with pytest.raises(UsageError) as raised:
        read_ignore_file(path)
    return raised.value.message.replace(str(path), "FILE"), raised.value.hint


def test_entries_are_read_with_their_place(write: Callable[..., Path]) -> None:
    path = write(
        "ignore.yaml",
        """\
        # accepted changes
        ignore:
          - fingerprint: 3f2a9c0d1e4b5a6f
            reason: the search team approved it
            expires: 2026-12-31
          - rule: TD201
            tool: search
            reason: tuned weekly
          - {rule: TD009, reason: "order is free", expires: "20270102"}
        """,
    )
    assert read_ignore_file(path) == (
        IgnoreEntry(str(path), 3, "the search team approved it", fingerprint="3f2a9c0d1e4b5a6f",
                    expires=dt.date(2026, 12, 31)),
        IgnoreEntry(str(path), 6, "tuned weekly", rule="TD201", tool="search"),
        IgnoreEntry(str(path), 9, "order is free", rule="TD009", expires=dt.date(2027, 1, 2)),
    )  # fmt: skip


def test_an_empty_file_accepts_nothing(write: Callable[..., Path]) -> None:
    assert read(write, "") == ()
    assert read(write, "  \n\n") == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ignore: [a\n", "FILE:2:1: cannot parse: did not find expected ',' or ']' "
         "(while parsing a flow sequence that starts at line 1, column 9)"),
        ("- rule: TD001\n", "FILE:1:1: expected a top-level `ignore:` list of entries"),
        ("ignore:\n  rule: TD001\n", "FILE:1:1: expected a top-level `ignore:` list of entries"),
        ("other: []\n", "FILE:1:1: expected a top-level `ignore:` list of entries"),
        ("ignore:\n  - TD001\n", "FILE:2:5: an entry must be a mapping with `reason` and "
         "`fingerprint` or `rule`"),
        ("ignore:\n  - {rule: TD001}\n", "FILE:2:5: every entry needs a `reason` (why the "
         "change is accepted)"),
        ("ignore:\n  - {rule: TD001, reason: '  '}\n", "FILE:2:5: every entry needs a `reason` "
         "(why the change is accepted)"),
        ("ignore:\n  - {rule: TD001, reason: 3}\n", "FILE:2:5: every entry needs a `reason` "
         "(why the change is accepted)"),
        ("ignore:\n  - {tool: a, reason: r}\n", "FILE:2:5: give a `fingerprint` (from the "
         "report) or a `rule`"),
        ("ignore:\n  - {fingerprint: 12, reason: r}\n", "FILE:2:5: `fingerprint` must be text"),
        ("ignore:\n  - {rule: [TD001], reason: r}\n", "FILE:2:5: `rule` must be text"),
        ("ignore:\n  - {rule: TD001, tool: 1, reason: r}\n", "FILE:2:5: `tool` must be text"),
        ("ignore:\n  - {rule: TD001, reason: r, expires: soon}\n", "FILE:2:5: `expires` must "
         "be a date like 2026-12-31, got 'soon'"),
        ("ignore:\n  - {rule: TD001, reason: r, expires: 2026-12-31T10:00:00}\n", "FILE:2:5: "
         "`expires` must be a date like 2026-12-31, got '2026-12-31T10:00:00'"),
    ],
)  # fmt: skip
def test_a_bad_file_or_entry_is_one_located_error(
    write: Callable[..., Path], text: str, message: str
) -> None:
    assert refusal(write, text) == (message, None)


def test_an_unknown_key_is_named_with_the_keys_there_are(write: Callable[..., Path]) -> None:
    text = "ignore:\n  - rule: TD001\n    reason: r\n  - {rule: TD1, resaon: x, zz: 1}\n"
    assert refusal(write, text) == (
        "FILE:4:5: unknown key 'resaon'",
        "keys: fingerprint, rule, tool, reason, expires",
    )


def test_a_file_that_cannot_be_read_is_said(write: Callable[..., Path], tmp_path: Path) -> None:
    assert refusal(write, b"ignore: \xff\n")[0].startswith(
        "FILE: cannot read the ignore file: 'utf-8' codec can't decode byte 0xff"
    )
    with pytest.raises(UsageError) as raised:
        read_ignore_file(tmp_path)
    assert raised.value.message == (
        f"{tmp_path}: cannot read the ignore file: [Errno 21] Is a directory: '{tmp_path}'"
    )


def change(rule: str, tool: str, fingerprint: str) -> Change:
    return Change(rule, ChangeClass.RISKY, Category.SELECTION, tool, f"{rule} on {tool}",
                  fingerprint=fingerprint)  # fmt: skip


TODAY = dt.date(2026, 6, 1)


def entry(line: int, **fields: object) -> IgnoreEntry:
    return IgnoreEntry("i.yaml", line, "because", **fields)  # type: ignore[arg-type]


def test_matching_entries_move_changes_to_ignored_and_the_rest_warn() -> None:
    a1, a2, b1 = change("TD201", "a", "f1"), change("TD203", "a", "f2"), change("TD201", "b", "f3")
    earlier = change("TD001", "z", "f0")
    warned = IgnoreWarning("x.yaml", 1, "earlier")
    result = DiffResult("o", "n", (a1, a2, b1), ignored=(earlier,), warnings=(warned,))
    entries = (
        entry(1, fingerprint="f2"),
        entry(2, rule="TD201", tool="b"),
        entry(3, rule="TD201", tool="c"),  # no such tool
        entry(4, fingerprint="TD201"),  # a fingerprint is not a rule
        entry(5, rule="TD203", expires=dt.date(2026, 5, 31)),  # expired: matches nothing
        entry(6, rule="TD201", tool="a", expires=TODAY),  # its last day
        entry(7, rule="TD999", expires=dt.date(2020, 1, 1)),
    )
    applied = apply_ignores(result, entries, today=TODAY)
    assert applied.changes == ()
    assert applied.ignored == (earlier, a1, a2, b1)
    assert applied.warnings == (
        warned,
        IgnoreWarning("i.yaml", 5, "ignore entry expired on 2026-05-31; renew it or remove it"),
        IgnoreWarning("i.yaml", 7, "ignore entry expired on 2020-01-01; renew it or remove it"),
        IgnoreWarning("i.yaml", 3, "ignore entry matches no change; remove it"),
        IgnoreWarning("i.yaml", 4, "ignore entry matches no change; remove it"),
    )
    assert (applied.old, applied.new) == ("o", "n")


def test_an_entry_without_a_tool_takes_the_rule_for_every_tool() -> None:
    a, b, other = change("TD201", "a", "f1"), change("TD201", "b", "f2"), change("TD204", "a", "f3")
    applied = apply_ignores(
        DiffResult("o", "n", (a, other, b)), (entry(1, rule="TD201"),), today=TODAY
    )
    assert (applied.changes, applied.ignored, applied.warnings) == ((other,), (a, b), ())


def test_expiry_is_against_today_by_default() -> None:
    kept = change("TD201", "a", "f1")
    today = dt.date.today()
    entries = (
        entry(1, rule="TD201", expires=today - dt.timedelta(days=1)),
        entry(2, rule="TD201", expires=today + dt.timedelta(days=1)),
    )
    applied = apply_ignores(DiffResult("o", "n", (kept,)), entries)
    assert applied.ignored == (kept,)
    assert [w.line for w in applied.warnings] == [1]
