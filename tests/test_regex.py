"""toolsel/regex.py: patterns run in RE2 (linear time), catastrophic ones are recognised."""

from __future__ import annotations

import subprocess
import sys

import pytest

from toolsel.regex import UnsafePattern, catastrophic, compile_safe, search


@pytest.mark.parametrize(
    "pattern",
    [
        r"^(a+)+$",
        r"^(\w*)*$",
        r"(x+x+)+y",
        r"^(a|aa)*$",
        r"^(a|b|ab)*$",
        r"^(.*,)*$",
        r"^(\s*,\s*)*$",  # the space between two commas: the end of one round or the next
        r"^([a-zA-Z0-9])(([\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+$",
        r"^([a-z]+\.?)+@",
        r"^(-?\d+)*$",
    ],
)
def test_catastrophic_patterns_are_recognised(pattern: str) -> None:
    assert catastrophic(pattern)


@pytest.mark.parametrize(
    "pattern",
    [
        r"^[a-z]+$",
        r"^\d{3}-\d{4}$",
        r"^(foo|bar)+$",
        r"^[A-Z][a-z]*( [A-Z][a-z]*)*$",
        r"^v\d+(\.\d+){0,2}$",
        "not a (valid regex",
        r"^(,\d+)*$",
        r"^([a-z]+,)*$",
        # the separators cannot be read by the classes around them (issue 18's false alarm)
        r"^[.\-A-Za-z0-9]+([=!,]{1,2}[./\-A-Za-z0-9]+)+$",
        r"^([a-z0-9]+(-[a-z0-9]+)*\.)+[a-z]{2,}$",
        r"^(\w+\s)+$",
        r"^(a|ab)*$",  # one way to read any text: a round is `a`, or `ab` when b follows
        r"^(a?){25}a{25}$",  # ambiguous, but bounded: polynomial, not exponential
        r"(.*a){12}",
        r"^[a-zA-Z0-9_-]{1,64}$",
        r"(a)\1",  # a backreference: not analysed, so no verdict
    ],
)
def test_ordinary_patterns_are_not(pattern: str) -> None:
    assert catastrophic(pattern) is None


def test_re2_matches_what_json_schema_means_and_refuses_what_it_cannot_run() -> None:
    assert search(r"^[a-z]+$", "abc") and not search(r"^[a-z]+$", "abc1")
    assert search(r"b", "abc")  # `pattern` is not anchored: a match anywhere counts
    with pytest.raises(UnsafePattern, match=r"lookahead|perl operator"):
        compile_safe(r"(?=x)x")
    with pytest.raises(UnsafePattern):
        compile_safe(r"(a)\1")


def test_a_redos_pattern_on_a_hostile_input_finishes_at_once() -> None:
    """With Python's `re` this takes minutes (28 s at 29 characters); bounded here."""
    script = "from toolsel.regex import search; print(search(r'^(a+)+$', 'a' * 100_000 + 'b'))"
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=20, check=True
    )
    assert run.stdout.strip() == "False" and run.stderr == ""  # RE2 logs nothing
