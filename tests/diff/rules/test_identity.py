"""TD001-TD009: names are the wire identity. Each case's whole report."""

from __future__ import annotations

from pathlib import Path

from tests.diff.helpers import changes, rows

ORDER = "tools listed in a different order; a cached prompt prefix is invalidated (one more uncached request)"


def tool(name: str, *extra: str, description: str = "") -> str:
    lines = [f"- name: {name}", f"  description: {description or 'Reads ' + name + '.'}"]
    return "\n".join(lines + [f"  {e}" for e in extra]) + "\n"


def test_a_removed_tool_and_an_added_one(tmp_path: Path) -> None:
    old = tool("a") + tool("gone", description="Deletes every file.")
    new = tool("a") + tool("fresh", description="Sends one email.")
    assert rows(old, new, tmp_path) == [
        ("TD001", "breaking", "gone", "/name", "tool 'gone' removed; calls to it now fail as unknown"),
        ("TD008", "safe", "fresh", "/name", "tool 'fresh' added"),
    ]  # fmt: skip
    (removed, added) = changes(old, new, tmp_path)
    assert removed.hint is None
    assert (removed.old.value, removed.new) == ("gone", None)  # type: ignore[union-attr]
    assert (added.old, added.new.value) == (None, "fresh")  # type: ignore[union-attr]


def test_a_removed_tool_that_looks_renamed_is_hinted_and_still_breaking(tmp_path: Path) -> None:
    old = tool("search_web", description="Searches the web for pages.")
    new = tool("web_search", description="Searches the web for pages!")
    removed, added = changes(old, new, tmp_path)
    assert (removed.rule, removed.change_class.value, added.rule) == ("TD001", "breaking", "TD008")
    assert removed.hint == (
        "looks renamed to 'web_search' (same parameters, similar description); keep "
        "'search_web' in its aliases to make the rename safe"
    )


def test_a_deprecated_tool_removed_is_risky_and_names_its_successor(tmp_path: Path) -> None:
    old = (
        tool("a")
        + tool("b", "deprecated: true", "deprecated_by: a")
        + tool("c", "deprecated: true")
    )
    assert rows(old, tool("a"), tmp_path) == [
        ("TD002", "risky", "b", "/name",
         "tool 'b' removed (it was deprecated); its successor is 'a'; old calls to it now fail"),
        ("TD002", "risky", "c", "/name", "tool 'c' removed (it was deprecated); old calls to it now fail"),
    ]  # fmt: skip
    assert [(c.old.value, c.new) for c in changes(old, tool("a"), tmp_path)] == [
        ("b", None),
        ("c", None),
    ]  # type: ignore[union-attr]


def test_renamed_to_its_successor_without_an_alias(tmp_path: Path) -> None:
    old = tool("a", "deprecated_by: c") + tool("c")
    (change,) = changes(old, tool("c"), tmp_path)
    assert (change.rule, change.change_class.value, change.tool, change.pointer) == (
        "TD004", "breaking", "a", "/name"
    )  # fmt: skip
    assert change.message == (
        "tool 'a' renamed to 'c' without keeping 'a' in its aliases; old calls, approvals "
        "and transcripts name the old tool"
    )
    assert change.hint == "add 'a' to 'c''s aliases"
    assert (change.old.value, change.new) == ("a", None)  # type: ignore[union-attr]
    # a successor NEW lacks: plainly removed
    assert rows(tool("a", "deprecated_by: zz", description="Deletes all."), tool("b"), tmp_path)[0][:2] == (
        "TD001", "breaking"
    )  # fmt: skip


def test_a_removed_name_that_is_now_another_tool_s_alias(tmp_path: Path) -> None:
    old = tool("x") + tool("y")
    new = tool("y", "aliases: [x]")
    (change,) = changes(old, new, tmp_path)
    assert (change.rule, change.change_class.value, change.tool, change.old_tool, change.pointer) == (
        "TD006", "breaking", "y", "x", "/aliases"
    )  # fmt: skip
    assert change.message == (
        "tool 'x' removed, and its name is now an alias of 'y'; old calls silently reach a "
        "different tool"
    )
    assert (change.old.value, change.new.value) == ("x", "y")  # type: ignore[union-attr]


def test_renames_by_alias_and_by_case(tmp_path: Path) -> None:
    old = tool("a", description="Reads.") + tool("Fetch", description="Fetches.")
    new = tool("fetch", description="Fetches.") + tool("c", "aliases: [a]", description="Reads.")
    assert rows(old, new, tmp_path) == [
        ("TD007", "breaking", "fetch", "/name",
         "tool 'Fetch' renamed to 'fetch' (case only); tool names are case-sensitive, old calls fail"),
        ("TD003", "safe", "c", "/name", "tool 'a' renamed to 'c', old name kept as an alias"),
        ("TD009", "safe", "fetch", "/name", "2 " + ORDER),
    ]  # fmt: skip
    by_rule = {c.rule: c for c in changes(old, new, tmp_path)}
    assert (by_rule["TD007"].old.value, by_rule["TD007"].new.value) == ("Fetch", "fetch")  # type: ignore[union-attr]
    assert (by_rule["TD003"].old.value, by_rule["TD003"].new.value) == ("a", "c")  # type: ignore[union-attr]


def test_an_alias_removed_or_now_naming_another_tool(tmp_path: Path) -> None:
    old = tool("a", "aliases: [x, y, z]") + tool("b")
    new = tool("a", "aliases: [z]") + tool("b") + tool("y", description="Writes y.")
    assert rows(old, new, tmp_path) == [
        ("TD005", "breaking", "a", "/aliases", "alias 'x' of 'a' removed; calls by that name fail"),
        ("TD006", "breaking", "y", "/aliases",
         "alias 'y' of 'a' now names another tool; old calls through it reach a different tool"),
        ("TD008", "safe", "y", "/name", "tool 'y' added"),
    ]  # fmt: skip
    removed, reused, _ = changes(old, new, tmp_path)
    assert (removed.old.value, removed.new.value, removed.old_tool) == ("x", None, None)  # type: ignore[union-attr]
    assert (reused.old.value, reused.new.value, reused.old_tool) == ("y", "y", "a")  # type: ignore[union-attr]


def test_renamed_to_its_own_alias_keeps_the_old_name_both_ways(tmp_path: Path) -> None:
    """`x` (alias `y`) becomes `y` (alias `x`): every name still reaches the tool."""
    old = tool("x", "aliases: [y]", description="Reads.")
    new = tool("y", "aliases: [x]", description="Reads.")
    assert rows(old, new, tmp_path) == [
        ("TD003", "safe", "y", "/name", "tool 'x' renamed to 'y', old name kept as an alias"),
    ]


def test_an_alias_that_stays_on_its_tool_is_no_change(tmp_path: Path) -> None:
    old = tool("a", "aliases: [x]")
    assert rows(old, tool("a", "aliases: [w, x]"), tmp_path) == []


def test_reordering_counts_the_moved_tools_and_points_at_the_first(tmp_path: Path) -> None:
    old = tool("a") + tool("b") + tool("c") + tool("d")
    new = tool("a") + tool("c") + tool("b") + tool("d")
    (change,) = changes(old, new, tmp_path)
    assert (change.rule, change.change_class.value, change.tool, change.message) == (
        "TD009", "safe", "c", "2 " + ORDER
    )  # fmt: skip
    assert (change.old.value, change.new.value) == (2, 1)  # type: ignore[union-attr]
    assert (change.old.line, change.new.line) == (6, 4)  # type: ignore[union-attr]
    rotated = tool("d") + tool("a") + tool("b") + tool("c")
    (change,) = changes(old, rotated, tmp_path)
    assert (change.tool, change.message, change.old.value, change.new.value) == (  # type: ignore[union-attr]
        "d", "4 " + ORDER, 3, 0
    )  # fmt: skip


def test_added_and_removed_tools_do_not_reorder_the_rest(tmp_path: Path) -> None:
    old = tool("a") + tool("gone", description="Deletes all.") + tool("b")
    new = tool("new", description="Writes notes.") + tool("a") + tool("b")
    assert [r[0] for r in rows(old, new, tmp_path)] == ["TD001", "TD008"]


def test_a_renamed_tool_reorders_by_its_new_place(tmp_path: Path) -> None:
    old = tool("a", description="Reads.") + tool("b")
    new = tool("b") + tool("c", "aliases: [a]", description="Reads.")
    assert rows(old, new, tmp_path) == [
        ("TD009", "safe", "b", "/name", "2 " + ORDER),
        ("TD003", "safe", "c", "/name", "tool 'a' renamed to 'c', old name kept as an alias"),
    ]
