"""Which OLD tool is which NEW tool: the same name, else a declared alias, else the same
name but for case; the rest removed or added, a removed and an added tool with equal
parameters and a similar description only hinted as a rename."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import tools_document
from tests.diff.helpers import load
from toolsel.diff.match import Matching, match_tools, unique_tools
from toolsel.registry import load_registry
from toolsel.registry.model import Registry


def matching(old: str, new: str, tmp: Path) -> Matching:
    return match_tools(load(old, tmp, "old.yaml"), load(new, tmp, "new.yaml"))  # type: ignore[arg-type]


def summary(m: Matching) -> tuple[list[tuple[str, str, str]], list[str], list[str], dict[str, str]]:
    return (
        [(p.old.name, p.new.name, p.kind.value) for p in m.pairs],
        [t.name for t in m.removed],
        [t.name for t in m.added],
        m.hints,
    )


def entries(*specs: str) -> str:
    """`name` or `name|description|aliases` per tool."""
    out = []
    for spec in specs:
        name, _, rest = spec.partition("|")
        description, _, aliases = rest.partition("|")
        out.append(f"- name: {name}\n  description: {description or 'Does ' + name + '.'}\n")
        if aliases:
            out.append(f"  aliases: [{aliases}]\n")
    return "".join(out)


def test_pairs_by_name_then_alias_then_case_in_old_order(tmp_path: Path) -> None:
    old = entries("z", "Fetch", "b", "a", "gone|Removes old things.")
    new = entries("a", "fetch", "c||b", "z", "new|Adds a note.")
    assert summary(matching(old, new, tmp_path)) == (
        [("z", "z", "name"), ("Fetch", "fetch", "case"), ("b", "c", "alias"), ("a", "a", "name")],
        ["gone"],
        ["new"],
        {},
    )


def test_every_tool_after_one_paired_by_alias_is_still_paired(tmp_path: Path) -> None:
    old = entries("a", "b", "Fetch")
    new = entries("x||a", "y||b", "fetch")
    assert summary(matching(old, new, tmp_path)) == (
        [("a", "x", "alias"), ("b", "y", "alias"), ("Fetch", "fetch", "case")],
        [],
        [],
        {},
    )


def test_a_new_tool_is_paired_once(tmp_path: Path) -> None:
    """`c` keeps both old names as aliases: the first takes it, the second is removed; `C`
    is taken by its own name, so `c` (case) cannot take it too."""
    old = entries("a", "b", "C", "c")
    new = entries("C||a, b")
    assert summary(matching(old, new, tmp_path)) == ([("C", "C", "name")], ["a", "b", "c"], [], {})
    renamed = entries("x||a, b")
    assert summary(matching(entries("a", "b"), renamed, tmp_path)) == (
        [("a", "x", "alias")],
        ["b"],
        [],
        {},
    )


def test_an_alias_paired_before_case(tmp_path: Path) -> None:
    old = entries("Get")
    new = entries("get", "fetch||Get")
    assert summary(matching(old, new, tmp_path)) == ([("Get", "fetch", "alias")], [], ["get"], {})
    # once a folded name is taken, a second old name folding to it is removed
    old = entries("GET", "Get")
    assert summary(matching(old, entries("get"), tmp_path)) == (
        [("GET", "get", "case")],
        ["Get"],
        [],
        {},
    )


def lenient(text: str, path: Path) -> Registry:
    """A registry as `lint` loads it: a duplicate name is a problem, not a refusal."""
    path.write_text(tools_document(text), encoding="utf-8")
    return load_registry(path, use_cache=False, strict=False)


def test_a_duplicate_name_counts_once_first_definition_first(tmp_path: Path) -> None:
    registry = lenient(entries("a|first", "b", "a|second"), tmp_path / "r.yaml")
    assert [(t.name, t.description) for t in unique_tools(registry)] == [
        ("a", "first"),
        ("b", "Does b."),
    ]
    m = match_tools(
        lenient(entries("a|first", "a|second"), tmp_path / "old.yaml"),
        lenient(entries("a|third", "a|fourth"), tmp_path / "new.yaml"),
    )
    assert [(p.old.description, p.new.description) for p in m.pairs] == [("first", "third")]
    assert (m.removed, m.added) == ((), ())


def test_a_rename_is_hinted_at_80_percent_alike_with_equal_parameters(tmp_path: Path) -> None:
    old = entries("r1|abcde", "r2|abcde", "r3|Reads pages.")
    new = entries("n1|abcdf", "n3|Reads pages!")
    # r1 and r2 are both 80% like n1 (the threshold); r3 is 92% like n3, and 0% like n1
    assert summary(matching(old, new, tmp_path))[3] == {"r1": "n1", "r2": "n1", "r3": "n3"}
    assert summary(matching(entries("r|abcde"), entries("n|abcfg"), tmp_path))[3] == {}


def test_the_most_alike_candidate_is_hinted_then_the_last_name(tmp_path: Path) -> None:
    old = entries("r|Reads pages.")
    new = entries("b|Reads pages!", "a|Reads pages.", "c|Reads pages.")
    assert matching(old, new, tmp_path).hints == {"r": "c"}
    new = entries("z|Reads pages!", "a|Reads pages.")
    assert matching(old, new, tmp_path).hints == {"r": "a"}


def test_no_hint_unless_the_parameters_are_equal(tmp_path: Path) -> None:
    old = entries("r|Reads pages.")
    new = (
        "- name: n\n  description: Reads pages.\n"
        "  parameters: {type: object, properties: {q: {type: string}}}\n"
    )
    assert summary(matching(old, new, tmp_path)) == ([], ["r"], ["n"], {})
    # equal parameters written in another key order are equal
    old = (
        "- name: r\n  description: Reads pages.\n"
        "  parameters: {properties: {q: {type: string}}, type: object}\n"
    )
    assert matching(old, new, tmp_path).hints == {"r": "n"}
