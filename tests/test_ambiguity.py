"""toolsel/ambiguity.py: exponential backtracking is proved on the pattern's automaton."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from toolsel.ambiguity import COUNT_LIMIT, exponential

ATOMS = ["a", "b", "[ab]", "[a-z]", r"\d", r"\w", r"\s", ",", "."]


@st.composite
def patterns(draw: st.DrawFn, depth: int = 3) -> str:
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from(ATOMS))
    kind = draw(st.sampled_from(["seq", "alt", "star", "plus", "opt", "count"]))
    a = draw(patterns(depth - 1))
    if kind == "seq":
        return a + draw(patterns(depth - 1))
    if kind == "alt":
        return f"(?:{a}|{draw(patterns(depth - 1))})"
    suffix = {"star": "*", "plus": "+", "opt": "?", "count": "{1,3}"}[kind]
    return f"(?:{a}){suffix}"


@given(patterns())
def test_a_verdict_survives_any_context(pattern: str) -> None:
    """Ambiguity around a loop stays when text is put before or after the pattern, and a
    pattern proved linear stays linear inside a group."""
    verdict = exponential(pattern) is not None
    assert (exponential(f"^x{pattern}y$") is not None) == verdict
    assert (exponential(f"(?:{pattern})") is not None) == verdict


@given(patterns())
def test_repeating_a_repetition_of_non_empty_text_is_exponential(pattern: str) -> None:
    if re.fullmatch(f"(?:{pattern})", "") is None:  # X never matches the empty string
        assert exponential(f"(?:(?:{pattern})+)+$") is not None


def test_linear_verdicts_match_what_python_re_does() -> None:
    """A few proved-linear patterns under a backtracking engine: a failing input of 5,000
    characters is answered in one linear pass (an exponential one would never finish)."""
    for pattern, text in (
        (r"^[.\-A-Za-z0-9]+([=!,]{1,2}[./\-A-Za-z0-9]+)+$", "a" + "=a" * 2500 + "!"),
        (r"^(\w+\s)+$", "ab " * 1700 + "!"),
    ):
        assert exponential(pattern) is None
        assert re.search(pattern, text) is None


def test_large_counts_and_backreferences_get_no_verdict_or_a_safe_one() -> None:
    assert exponential(r"(a)\1") is None  # not regular: no verdict
    assert exponential(f"(a{{1,{COUNT_LIMIT * 10}}})+$") is not None  # taken as unbounded
    assert exponential("[") is None
