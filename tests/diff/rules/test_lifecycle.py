"""TD401-TD406: deprecation and versions. Each case's whole report."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.diff.helpers import changes, rows


def tool(name: str, *extra: str, description: str = "") -> str:
    lines = [f"- name: {name}", f"  description: {description or 'Reads ' + name + '.'}"]
    return "\n".join(lines + [f"  {e}" for e in extra]) + "\n"


DEPRECATED = "deprecated: true"


def test_deprecated_with_a_live_successor_is_safe(tmp_path: Path) -> None:
    (change,) = changes(
        tool("a") + tool("b"), tool("a", DEPRECATED, "deprecated_by: b") + tool("b"), tmp_path
    )
    assert (change.rule, change.change_class.value, change.tool, change.pointer, change.message) == (
        "TD401", "safe", "a", "/deprecated_by", "'a' deprecated; its successor is 'b'"
    )  # fmt: skip
    assert (change.old.value, change.new.value) == (None, "b")  # type: ignore[union-attr]


def test_deprecated_without_a_successor_is_risky(tmp_path: Path) -> None:
    assert rows(tool("a"), tool("a", DEPRECATED), tmp_path) == [
        ("TD402", "risky", "a", "/deprecated_by", "'a' deprecated without a replacement (`deprecated_by`)")
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("others", "successor", "why"),
    [("", "gone", "does not exist"),
     (tool("b", DEPRECATED), "b", "is itself deprecated"),
     ("", "a", "is the tool itself")],
)  # fmt: skip
def test_a_dangling_successor_is_breaking(
    tmp_path: Path, others: str, successor: str, why: str
) -> None:
    old = tool("a") + others
    new = tool("a", DEPRECATED, f"deprecated_by: {successor}") + others
    (change,) = changes(old, new, tmp_path)
    assert (change.rule, change.change_class.value, change.tool, change.pointer, change.message) == (
        "TD403", "breaking", "a", "/deprecated_by", f"'a' deprecated in favour of {successor!r}, which {why}"
    )  # fmt: skip
    assert (change.old.value, change.new.value) == (None, successor)  # type: ignore[union-attr]


def test_no_longer_deprecated_is_risky(tmp_path: Path) -> None:
    (change,) = changes(tool("a", DEPRECATED) + tool("b"), tool("a") + tool("b"), tmp_path)
    assert (change.rule, change.change_class.value, change.pointer, change.message) == (
        "TD404", "risky", "/deprecated", "'a' is no longer deprecated"
    )  # fmt: skip
    assert (change.old.value, change.new.value) == (True, False)  # type: ignore[union-attr]


def test_a_deprecated_tool_given_another_successor_is_judged_again(tmp_path: Path) -> None:
    old = tool("a", DEPRECATED, "deprecated_by: b") + tool("b") + tool("c")
    to_c = tool("a", DEPRECATED, "deprecated_by: c") + tool("b") + tool("c")
    (change,) = changes(old, to_c, tmp_path)
    assert (change.rule, change.message, change.old.value, change.new.value) == (  # type: ignore[union-attr]
        "TD401", "'a' deprecated; its successor is 'c'", "b", "c"
    )  # fmt: skip
    dropped = tool("a", DEPRECATED) + tool("b") + tool("c")
    (change,) = changes(old, dropped, tmp_path)
    assert (change.rule, change.old.value, change.new.value) == ("TD402", "b", None)  # type: ignore[union-attr]
    assert rows(old, old, tmp_path) == []


@pytest.mark.parametrize(
    ("before", "after"),
    [("2.0.0", "1.9.0"), ("1.10.0", "1.9.0"), ("v2", "1.99"), (" V3.0 ", "2.9"),
     ("2.0.0-rc.1", "1.0.0"), ("2.0+build.7", "1.5+build.9"), ("1.0.1", "1.0")],
)  # fmt: skip
def test_a_lowered_version_is_breaking(tmp_path: Path, before: str, after: str) -> None:
    old, new = tool("a", f"version: '{before}'"), tool("a", f"version: '{after}'")
    assert rows(old, new, tmp_path) == [
        ("TD406", "breaking", "a", "/version", f"version of 'a' decreased from {before} to {after}")
    ]
    (change,) = changes(old, new, tmp_path)
    assert (change.old.pointer, change.old.value, change.new.pointer, change.new.value) == (  # type: ignore[union-attr]
        "/tools/0/version",
        before,
        "/tools/0/version",
        after,
    )


@pytest.mark.parametrize(
    ("before", "after"),
    [("1.9.0", "1.10.0"), ("1.0", "1.0.1"), ("beta", "alpha"), ("2.x", "1.0"), ("2.0", "1.x"),
     ("2.0.0-rc.2", "2.0.0-rc.1"), ("1.0.0+b2", "1.0.0+b1")],
)  # fmt: skip
def test_a_raised_or_unreadable_version_is_no_change(
    tmp_path: Path, before: str, after: str
) -> None:
    assert rows(tool("a", f"version: '{before}'"), tool("a", f"version: '{after}'"), tmp_path) == []


def test_a_version_given_on_one_side_only_is_no_change(tmp_path: Path) -> None:
    assert rows(tool("a", "version: '2.0'"), tool("a"), tmp_path) == []
    assert rows(tool("a"), tool("a", "version: '1.0'"), tmp_path) == []
    assert rows(tool("a", description="x"), tool("a", description="y"), tmp_path)[0][0] == "TD201"


STILL = "'a' changed but its version is still 1.0"


@pytest.mark.parametrize(
    ("field", "old", "new", "other"),
    [("description", "description: Reads a.", "description: Reads all.", ("TD201", "risky")),
     ("permission", "permission: read", "permission: write", ("TD301", "breaking")),
     ("parameters", "parameters: {type: object}",
      "parameters: {type: object, properties: {q: {type: string}}}", ("TD103", "safe")),
     ("output_schema", "output_schema: {type: object}", "output_schema: {type: array}",
      ("TD120", "breaking"))],
)  # fmt: skip
def test_a_definition_changed_under_the_same_version_is_risky(
    tmp_path: Path, field: str, old: str, new: str, other: tuple[str, str]
) -> None:
    def entry(line: str) -> str:
        return f"- name: a\n  version: '1.0'\n  {line}\n" + (
            "" if field == "description" else "  description: Reads a.\n"
        )

    found = [(c.rule, c.change_class.value) for c in changes(entry(old), entry(new), tmp_path)]
    assert sorted(found) == sorted([other, ("TD406", "risky")])
    (version,) = [c for c in changes(entry(old), entry(new), tmp_path) if c.rule == "TD406"]
    assert (version.pointer, version.message, version.old.value, version.new.value) == (  # type: ignore[union-attr]
        "/version", STILL, "1.0", "1.0"
    )  # fmt: skip


def test_other_fields_changed_under_the_same_version_are_not_a_version_change(
    tmp_path: Path,
) -> None:
    old, new = tool("a", "version: '1.0'", "tags: [x]"), tool("a", "version: '1.0'", "tags: [y]")
    assert [r[0] for r in rows(old, new, tmp_path)] == ["TD203"]


def test_a_successor_changed_to_a_dangling_one_shows_both(tmp_path: Path) -> None:
    old = tool("a", DEPRECATED, "deprecated_by: b") + tool("b")
    new = tool("a", DEPRECATED, "deprecated_by: gone") + tool("b")
    (change,) = changes(old, new, tmp_path)
    assert (change.rule, change.message, change.old.value, change.new.value) == (  # type: ignore[union-attr]
        "TD403",
        "'a' deprecated in favour of 'gone', which does not exist",
        "b",
        "gone",
    )


def test_only_a_v_prefixes_a_version(tmp_path: Path) -> None:
    old, new = tool("a", "version: 'X2.0'"), tool("a", "version: '1.0'")
    assert rows(old, new, tmp_path) == []
