"""The `fuzzy` method's index (`ranking.fuzzy`) against rapidfuzz over every raw string."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from rapidfuzz import fuzz, process, utils

from toolsel.ranking.fuzzy import EVERY_STRING_MAX_WORDS, PREFIX, FuzzyIndex

_WORDS = ["read", "raed", "file", "fle", "files", "deploy", "deployment", "db", "exec",
          "Send", "message", "git-hub", "über", "a", "x", "!!", "ok?", "123",
          "internationalisation-of-everything"]  # fmt: skip
_text = st.lists(st.sampled_from(_WORDS), min_size=0, max_size=4).map(" ".join)
_registry = st.lists(st.tuples(_text, st.integers(0, 7)), min_size=1, max_size=25)


def every_string(strings: list[str], owners: list[int], query: str) -> dict[int, float]:
    """What `fuzzy` scored before it had an index: every raw string, normalised per call."""
    found: dict[int, float] = {}
    for _, score, key in process.extract(
        query, strings, scorer=fuzz.WRatio, processor=utils.default_process,
        limit=None, score_cutoff=60,
    ):  # fmt: skip
        found[owners[key]] = max(found.get(owners[key], 0.0), score)
    return found


def shares_a_word(text: str, query: str) -> bool:
    words = set(utils.default_process(text).split())
    asked = utils.default_process(query).split()
    return any(
        w in words or (len(w) >= PREFIX and any(x[:PREFIX] == w[:PREFIX] for x in words))
        for w in asked
        if len(w) >= PREFIX or w in words
    )


@given(registry=_registry, query=_text)
def test_a_short_prompt_is_compared_with_every_string(
    registry: list[tuple[str, int]], query: str
) -> None:
    strings, owners = [s for s, _ in registry], [o for _, o in registry]
    index = FuzzyIndex(strings, owners)
    expected = every_string(strings, owners, query)
    assert index.scores(query, 60, every_string=True) == expected
    if len(utils.default_process(query).split()) <= EVERY_STRING_MAX_WORDS:
        assert index.scores(query, 60) == expected


@given(
    registry=_registry,
    query=st.lists(st.sampled_from(_WORDS), min_size=4, max_size=8).map(" ".join),
)
def test_a_sentence_is_compared_with_the_strings_sharing_a_word(
    registry: list[tuple[str, int]], query: str
) -> None:
    assume(len(utils.default_process(query).split()) > EVERY_STRING_MAX_WORDS)
    strings, owners = [s for s, _ in registry], [o for _, o in registry]
    kept = [(s, o) for s, o in registry if shares_a_word(s, query)]
    expected = every_string([s for s, _ in kept], [o for _, o in kept], query) if kept else {}
    assert FuzzyIndex(strings, owners).scores(query, 60) == expected


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("raed fle", {0}),  # a typo, typed: every string is compared
        ("show me the deployment status now", {1}),  # a sentence: strings sharing a word
        ("nothing in common with any of these", set()),
    ],
)
def test_fuzzy_finds(query: str, found: set[int]) -> None:
    index = FuzzyIndex(["read file", "deployment status", "send message"], [0, 1, 2])
    assert set(index.scores(query, 60)) == found


def test_a_word_finds_the_strings_whose_words_begin_as_it_does() -> None:
    index = FuzzyIndex(["read file", "deployment status", "send message"], [0, 1, 2])
    assert index.candidates(["please", "deploy", "it"]) == [1]
    assert index.candidates(["dep"]) == []  # shorter than PREFIX: whole words only
