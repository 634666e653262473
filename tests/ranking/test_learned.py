"""Ranking with example prompts: learned weights, the examples field, votes, explain, and
the index on disk."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT
from toolsel.ranking import Method, RankOptions, load_index, rank_index, taught
from toolsel.ranking import learned as learned_module
from toolsel.ranking.fields import tokens
from toolsel.ranking.index import build_index
from toolsel.ranking.prepared import PreparedIndex
from toolsel.registry import load_registry

TOOLS = """\
tools:
  - name: get_weather
    description: Current conditions for a city.
  - name: book_flight
    description: Reserve a seat on a plane.
  - name: convert_currency
    description: Convert an amount between currencies.
"""
OVERLAY = """\
examples:
  get_weather:
    - "do I need an umbrella in Oslo today"
    - "is it going to rain in Paris"
    - "how cold is it in Berlin"
  book_flight:
    - "get me to Lisbon on friday"
    - "I need to fly to Rome next week"
    - "find me a ticket to Madrid"
  convert_currency:
    - "how many dollars is 50 euros"
    - "what are 100 pounds in yen"
    - "euros to dollars for 20"
"""


def _index(tmp_path: Path, *, examples: bool = True, overlay: str = OVERLAY) -> PreparedIndex:
    (tmp_path / "tools.yaml").write_text(TOOLS, encoding="utf-8")
    (tmp_path / "examples.yaml").write_text(overlay, encoding="utf-8")
    return load_index(tmp_path, use_cache=False, examples=examples)


def _first(index: PreparedIndex, query: str, **options: object) -> str:
    return rank_index(index, query, RankOptions(**options)).results[0].name  # type: ignore[arg-type]


def test_examples_teach_how_people_ask(tmp_path: Path) -> None:
    with_examples = _index(tmp_path)
    without = _index(tmp_path, examples=False)
    assert with_examples.index.learned and not without.index.learned
    # no word of these prompts is in any description
    for query, tool in [
        ("do I need an umbrella in Vienna", "get_weather"),
        ("I need to fly to Vienna", "book_flight"),
        ("how many yen is 50 dollars", "convert_currency"),
    ]:
        for method in (Method.HYBRID, Method.BM25, Method.TFIDF):
            assert _first(with_examples, query, method=method) == tool, (query, method)
    assert rank_index(without, "do I need an umbrella in Vienna").results == () or (
        _first(without, "do I need an umbrella in Vienna") != "get_weather"
    )


def test_explain_quotes_the_nearest_example(tmp_path: Path) -> None:
    index = _index(tmp_path)
    result = rank_index(index, "do I need an umbrella in Vienna", RankOptions(explain=True))
    top = result.results[0]
    examples = [c for c in top.contributions if c.field == "example"]
    assert examples and examples[0].term == '"do I need an umbrella in Oslo today"'


def test_learned_words_are_the_query_words_that_speak_for_a_tool(tmp_path: Path) -> None:
    index = _index(tmp_path)
    names = [t.name for t in index.tools]
    currency, weather = names.index("convert_currency"), names.index("get_weather")
    # words in two or more training prompts are learned: "dollars" and "euros" are
    words = taught.learned_words(index, tokens("dollars and euros please"), currency)
    assert {word for word, _ in words} == {"dollar", "euro"}
    assert all(0 < share <= 1 for _, share in words)
    assert sum(share for _, share in words) <= 1 + 1e-9
    assert [share for _, share in words] == sorted((share for _, share in words), reverse=True)
    # a word that speaks for another tool is never named for this one
    assert taught.learned_words(index, tokens("dollars and euros please"), weather) == []


def test_explain_never_gives_a_reason_the_query_does_not_hold(tmp_path: Path) -> None:
    index = _index(tmp_path)
    query = "do I need an umbrella in Vienna"
    features = set(learned_module.features(query))
    for method in (Method.HYBRID, Method.BM25):
        result = rank_index(index, query, RankOptions(method=method, explain=True))
        for ranked in result.results:
            for c in ranked.contributions:
                assert c.term != "learned weights"
                if c.field == "learned":
                    assert c.term in features


def test_cc_ignores_examples(tmp_path: Path) -> None:
    with_examples = _index(tmp_path)
    without = _index(tmp_path, examples=False)
    for query in ("umbrella", "weather", "fly to Rome"):
        options = RankOptions(method=Method.CC)
        a = [(r.name, r.score) for r in rank_index(with_examples, query, options).results]
        b = [(r.name, r.score) for r in rank_index(without, query, options).results]
        assert a == b


def test_learned_weights_survive_the_cache_round_trip(tmp_path: Path) -> None:
    from toolsel.ranking import persist

    index = _index(tmp_path).index
    again = persist.loads(persist.dumps(index))
    assert again.lw_terms == tuple(index.lw_terms) and list(again.lw_weights) == list(
        index.lw_weights
    )
    assert again.field_weights == index.field_weights
    for query in ("is it cold in Rome", "a ticket to Paris", "pounds to euros"):
        a = rank_index(index, query).results
        b = rank_index(again, query).results
        assert [(r.name, r.score) for r in a] == [(r.name, r.score) for r in b]


def test_editing_an_overlay_rebuilds_the_cached_index(tmp_path: Path) -> None:
    (tmp_path / "tools.yaml").write_text(TOOLS, encoding="utf-8")
    overlay = tmp_path / "examples.yaml"
    overlay.write_text(OVERLAY, encoding="utf-8")
    first = load_index(tmp_path)
    overlay.write_text(
        OVERLAY.replace("do I need an umbrella in Oslo today", "bring a raincoat"), encoding="utf-8"
    )
    second = load_index(tmp_path)
    assert "bring a raincoat" in second.index.example_texts
    assert "bring a raincoat" not in first.index.example_texts


def test_nothing_to_learn_gives_no_weights() -> None:
    assert learned_module.fit(["a tool", "b tool"], []) is None  # no examples
    assert learned_module.fit(["only one"], [(0, "x y")]) is None  # one tool
    # no word is in two texts: nothing generalises
    assert learned_module.fit(["alpha", "beta"], [(0, "gamma"), (1, "delta")]) is None


def test_a_prompt_given_for_every_tool_teaches_nothing_about_it() -> None:
    fitted = learned_module.fit(["read file", "read file"], [(0, "read file"), (1, "read file")])
    assert fitted is None or all(w == 0 for w in fitted["lw_weights"])


words = st.sampled_from(
    ["read", "file", "deploy", "service", "rain", "city", "fly", "ticket", "euro", "dollar"]
)
prompts = st.lists(words, min_size=1, max_size=5).map(" ".join)


@settings(max_examples=25, deadline=None)
@given(
    examples=st.lists(st.tuples(st.integers(0, 2), prompts), min_size=1, max_size=12),
    query=prompts,
)
def test_learned_ranking_is_deterministic_and_in_range(
    examples: list[tuple[int, str]], query: str
) -> None:
    texts = ["get_weather rain city", "book_flight fly ticket", "convert euro dollar"]
    first = learned_module.fit(texts, examples)
    second = learned_module.fit(texts, examples)
    assert first == second
    registry = load_registry([ROOT / "registries"], use_cache=False)
    index = PreparedIndex(build_index(registry))
    for method in (Method.HYBRID, Method.BM25, Method.TFIDF):
        a = rank_index(index, query, RankOptions(method=method))
        b = rank_index(index, query, RankOptions(method=method))
        assert [(r.name, r.score) for r in a.results] == [(r.name, r.score) for r in b.results]
        assert all(0.0 <= r.score <= 1.0 for r in a.results)


def test_rank_no_examples_flag(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import json

    (tmp_path / "tools.yaml").write_text(TOOLS, encoding="utf-8")
    (tmp_path / "examples.yaml").write_text(OVERLAY, encoding="utf-8")
    query = "do I need an umbrella in Vienna"
    learned = json.loads(cli("rank", "-r", str(tmp_path), query, "-f", "json").stdout)
    plain = json.loads(
        cli("rank", "-r", str(tmp_path), query, "-f", "json", "--no-examples").stdout
    )
    assert learned["results"][0]["name"] == "get_weather"
    assert (
        not plain["results"]
        or plain["results"][0]["name"] != "get_weather"
        or (plain["results"][0]["score"] != learned["results"][0]["score"])
    )
    human = cli("rank", "-r", str(tmp_path), query, "--explain").stdout
    assert '"do I need an umbrella in Oslo today"' in human


@pytest.mark.parametrize(
    "bad",
    [
        "examples: [a, b]\n",  # not a mapping
        "examples:\n  get_weather: [1]\n",  # not a string
        "examples:\n  get_weather: [a b]\n  get_weather: [c d]\n",  # a tool twice
        "examples:\n  get_weather: [a b\n",  # malformed YAML
    ],
)
def test_malformed_overlays_are_findings_with_positions(cli, tmp_path: Path, bad: str) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "tools.yaml").write_text(TOOLS, encoding="utf-8")
    (tmp_path / "examples.yaml").write_text(bad, encoding="utf-8")
    run = cli("lint", str(tmp_path), "--select", "TS0")
    assert run.exit_code == 1 and "examples.yaml:" in run.stdout
    rank = cli("rank", "-r", str(tmp_path), "weather")
    assert (
        rank.exit_code == 2 and "examples.yaml:" in rank.stderr and "Traceback" not in rank.stderr
    )


def _many_tools(count: int) -> list[str]:
    topics = ["weather", "flight", "currency", "invoice", "calendar", "printer", "garden"]
    return [f"tool_{i} handles {topics[i % len(topics)]} item {i}" for i in range(count)]


def test_learning_fits_only_the_tools_with_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    # 60 documents x 50 tools is over this budget; 60 x the 3 tools with examples is not
    monkeypatch.setattr(learned_module, "BUDGET", 1000)
    texts = _many_tools(50)
    examples = [(t, f"{verb} the {topic} now") for t, topic in ((0, "rain"), (1, "plane"),
                (2, "euros")) for verb in ("show", "check", "get", "find")]  # fmt: skip
    fitted = learned_module.fit(texts, examples)
    assert fitted is not None
    assert set(fitted["lw_tools"]) <= {0, 1, 2}
    decisions = dict(enumerate(fitted["lw_bias"]))
    assert all(decisions[t] <= learned_module.UNFITTED_BIAS for t in range(3, 50))


def test_only_the_tools_with_examples_are_fitted_at_every_size() -> None:
    # a tool without examples has no learned score to give, within the budget or over it
    assert learned_module.fitted(3, 10, {1}) == [1]
    assert learned_module.fitted(3, learned_module.BUDGET, {0, 2}) == [0, 2]
    texts = _many_tools(5)
    examples = [(1, "show the plane now"), (1, "find the plane now")]
    fitted = learned_module.fit(texts, examples)
    assert fitted is not None and set(fitted["lw_tools"]) == {1}


def test_over_budget_a_tool_without_examples_gets_no_learned_score(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(learned_module, "BUDGET", 10)  # 6 texts x 3 tools is over; x 1 not
    overlay = 'examples:\n  get_weather:\n    - "do I need an umbrella in Oslo"\n'
    overlay += '    - "is it going to rain in Oslo"\n    - "umbrella weather Oslo"\n'
    index = _index(tmp_path, overlay=overlay)
    assert index.index.learned
    positions = index.positions
    found = taught.learned(index, tokens("book a seat on a plane to Oslo"))
    assert set(found) <= {positions["get_weather"]}


def test_a_classifier_must_be_surer_where_examples_cover_less_of_the_registry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import math
    from types import SimpleNamespace

    # one tool's classifier gives the prompt 0.1 (its empty prompt -1): what that is worth
    # depends on how much of the registry examples cover, not only on the decision
    monkeypatch.setattr(taught, "decisions", lambda prepared, terms: {0: 0.1})

    def learned_at(coverage: float) -> float:
        prepared = SimpleNamespace(
            index=SimpleNamespace(learned=True, lw_bias=[-1.0]),
            coverage=coverage,
            confidence=coverage**8,
        )
        return taught.learned(prepared, ["x"])[0]  # type: ignore[arg-type]

    def sure(centre: float) -> float:
        def logistic(z: float) -> float:
            return 1 / (1 + math.exp(-z))

        return logistic((0.1 - centre) / 0.1) - logistic((-1.0 - centre) / 0.1)

    assert learned_at(1.0) == 1.0  # every tool taught: the best model names the tool
    assert learned_at(0.5) == pytest.approx(sure(0.25 * 0.5**4))  # 0.70: half of them
    assert learned_at(0.03) == pytest.approx(sure(0.25 * 0.97**4))  # 0.23: a sliver
    assert learned_at(0.03) < learned_at(0.5) < learned_at(1.0)
