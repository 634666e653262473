"""The method table (toolsel/ranking/methods.py): one entry per method, read by everything."""

from __future__ import annotations

import inspect

from toolsel.ranking.core import RankOptions, rank_options
from toolsel.ranking.methods import SCORERS, default_top
from toolsel.ranking.options import EMBEDDING_METHODS, Method


def test_every_method_has_one_scorer() -> None:
    assert set(SCORERS) == set(Method) - {Method.AUTO}  # auto stands for one of them
    assert set(Method) >= EMBEDDING_METHODS


def test_default_tops_come_from_the_table() -> None:
    assert default_top(Method.CC) == 5
    assert {default_top(m) for m in Method if m is not Method.CC} == {8}
    for method in Method:
        assert rank_options(method=method).top == default_top(method)
        assert rank_options(method=method, top=3).top == 3


def test_rank_options_takes_every_option_of_rank_options() -> None:
    """`rank_options` is the one builder: each field of RankOptions a caller may set is one
    of its parameters (pin_always_include is eval's own)."""
    fields = set(RankOptions.__dataclass_fields__) - {"pin_always_include", "requested", "reason"}
    assert set(inspect.signature(rank_options).parameters) == fields
