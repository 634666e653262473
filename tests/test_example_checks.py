"""The example checks lint reports (TS702, TS703) and `learn` leaves out: one place."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import ROOT
from toolsel.example_checks import (
    Collision,
    collision,
    contradictions,
    example_key,
    groups,
)
from toolsel.ranking.index import build_index
from toolsel.ranking.prepared import PreparedIndex
from toolsel.registry.loader import load_registry
from toolsel.registry.model import Registry, Tool, ToolSource

INDEX = PreparedIndex(build_index(load_registry(ROOT / "registries", use_cache=False)))


def test_a_collision_names_the_tool_ranked_first_and_where_the_own_tool_is() -> None:
    from toolsel.ranking import Method, RankOptions, rank_index

    prompt = "file a bug about the login page"
    ranked = [r.name for r in rank_index(INDEX, prompt, RankOptions(method=Method.HYBRID)).results]
    assert ranked[0] != "create_issue" and "create_issue" in ranked
    found = collision(INDEX, "create_issue", prompt)
    assert found is not None and found.first == ranked[0]
    assert found.place == ranked.index("create_issue") + 1
    assert found.place is not None and found.place > 1 and found.where == f"#{found.place}"
    assert collision(INDEX, "deploy_service", "deploy the billing service to production") is None
    elsewhere = collision(INDEX, "nowhere_tool", "deploy the billing service")
    assert elsewhere == Collision("deploy_service", None)
    assert elsewhere.where == "not in the top 10"


def test_a_prompt_with_nothing_to_search_never_collides() -> None:
    assert collision(INDEX, "deploy_service", "do it") is None


def test_a_prompt_given_for_several_tools_is_an_example_of_each() -> None:
    pairs = [("a", "List my  files"), ("b", "list MY files"), ("c", "x")]
    assert groups(pairs) == {"list my files": frozenset({"a", "b"}), "x": frozenset({"c"})}
    assert example_key(" List\tmy  FILES ") == "list my files"


def test_one_of_the_group_ranked_first_is_no_collision() -> None:
    prompt = "deploy the billing service to production"
    # an example of check_health alone collides: deploy_service ranks first
    alone = collision(INDEX, "check_health", prompt)
    assert alone is not None and alone.first == "deploy_service"
    # the same prompt as a task needing both tools teaches both: no collision
    assert collision(INDEX, "check_health", prompt, frozenset({"deploy_service"})) is None


def test_only_tools_that_conflict_contradict() -> None:
    pairs = [("a", "do x"), ("b", "DO  x"), ("c", "do x"), ("d", "y")]
    conflicting = {frozenset({"a", "c"})}
    found = list(contradictions(pairs, lambda s, t: frozenset({s, t}) in conflicting))
    assert found == [(2, 0)]  # c conflicts with a; b needs no conflict with anyone


def test_a_conflict_declared_on_either_side_counts() -> None:
    source = ToolSource("t.yaml", "toolsel", "/tools/0", {})
    tools = (
        Tool("a", "d", source, conflicts=("b",)),
        Tool("b", "e", source),
        Tool("c", "f", source),
    )
    registry = Registry(files=(), tools=tools, categories={})
    assert registry.in_conflict("a", "b") and registry.in_conflict("b", "a")
    assert not registry.in_conflict("a", "c") and not registry.in_conflict("c", "b")
    assert not registry.in_conflict("a", "nowhere") and not registry.in_conflict("nowhere", "b")
    assert registry.in_conflict("nowhere", "a") is False


@given(
    st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from(["x", "X ", "y", "z"]))),
    st.sets(st.sampled_from([frozenset("ab"), frozenset("bc"), frozenset("ac")])),
)
def test_a_contradiction_names_an_earlier_conflicting_tool_with_the_same_prompt(
    pairs: list[tuple[str, str]], conflicts: set[frozenset[str]]
) -> None:
    def conflicting(s: str, t: str) -> bool:
        return frozenset({s, t}) in conflicts

    for position, earlier in contradictions(pairs, conflicting):
        assert earlier < position
        assert example_key(pairs[earlier][1]) == example_key(pairs[position][1])
        assert conflicting(pairs[earlier][0], pairs[position][0])
    if not conflicts:
        assert not list(contradictions(pairs, conflicting))
