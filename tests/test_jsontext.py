"""JSON text that keeps every integer exact: orjson's bytes, and Python's digits for the
integers orjson refuses (beyond 64 bits)."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsel.jsontext import dumps

BEYOND_64_BITS = [2**64, -(2**63) - 1, 10**100, -(10**300), int("9" * 4300)]
OPTIONS = [0, orjson.OPT_SORT_KEYS, orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS]

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from(BEYOND_64_BITS)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


@pytest.mark.parametrize("value", BEYOND_64_BITS)
def test_orjson_refuses_these_integers_and_dumps_writes_them_exactly(value: int) -> None:
    with pytest.raises(orjson.JSONEncodeError):
        orjson.dumps(value)
    document = {"schema": {"maximum": value, "enum": [1, value]}}
    assert json.loads(dumps(document)) == document
    assert str(value).encode() in dumps(document)


@settings(max_examples=200, deadline=None)
@given(values, st.sampled_from(OPTIONS))
def test_every_value_reads_back_exactly(value: Any, option: int) -> None:
    assert json.loads(dumps(value, option=option)) == value


@settings(max_examples=200, deadline=None)
@given(values, st.sampled_from(OPTIONS))
def test_what_orjson_writes_is_written_unchanged(value: Any, option: int) -> None:
    try:
        expected = orjson.dumps(value, option=option)
    except orjson.JSONEncodeError:
        return
    assert dumps(value, option=option) == expected


def test_big_integers_sit_in_orjsons_layout() -> None:
    written = dumps({"b": [2**64, 1.5], "a": -(2**63) - 1}, option=OPTIONS[2])
    assert written == (
        b'{\n  "a": -9223372036854775809,\n  "b": [\n    18446744073709551616,\n    1.5\n  ]\n}'
    )
    assert dumps([2**64, "x"]) == b'[18446744073709551616,"x"]'


def test_other_refusals_are_orjsons() -> None:
    with pytest.raises(orjson.JSONEncodeError, match="not JSON serializable"):
        dumps({"a": object(), "b": 2**64})


def test_too_deep_for_orjson_is_orjsons_refusal_whatever_it_holds() -> None:
    deep: list[object] = [2**64]
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(orjson.JSONEncodeError, match="Recursion limit"):
        dumps(deep)
