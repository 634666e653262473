"""The example checks lint reports (TS702, TS703) and `learn` leaves out: one place."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import ROOT
from toolsel.example_checks import Collision, collision, duplicates, example_key
from toolsel.ranking.index import build_index
from toolsel.ranking.prepared import PreparedIndex
from toolsel.registry.loader import load_registry

INDEX = PreparedIndex(build_index(load_registry(ROOT / "registries", use_cache=False)))


def test_a_collision_names_the_tool_ranked_first_and_where_the_own_tool_is() -> None:
    found = collision(INDEX, "create_issue", "file a bug about the login page")
    assert found is not None and found.first == "search_issues"
    assert found.place is not None and found.place > 1 and found.where == f"#{found.place}"
    assert collision(INDEX, "deploy_service", "deploy the billing service to production") is None
    elsewhere = collision(INDEX, "nowhere_tool", "deploy the billing service")
    assert elsewhere == Collision("deploy_service", None)
    assert elsewhere.where == "not in the top 10"


def test_a_prompt_with_nothing_to_search_never_collides() -> None:
    assert collision(INDEX, "deploy_service", "do it") is None


def test_the_first_tool_given_a_prompt_keeps_it_case_and_spacing_ignored() -> None:
    pairs = [("a", "List my  files"), ("a", "list my files"), ("b", "list MY files"), ("c", "x")]
    assert list(duplicates(pairs)) == [(2, 0)]
    assert example_key(" List\tmy  FILES ") == "list my files"


@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from(["x", "X ", "y", "z"]))))
def test_after_leaving_out_the_duplicates_none_is_left(pairs: list[tuple[str, str]]) -> None:
    flagged = {position for position, _ in duplicates(pairs)}
    rest = [pair for i, pair in enumerate(pairs) if i not in flagged]
    assert not list(duplicates(rest))
    for position, first in duplicates(pairs):
        assert first < position and pairs[first][0] != pairs[position][0]
