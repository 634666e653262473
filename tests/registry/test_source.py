"""Parsing with positions: pointers, duplicates, merges, and hostile documents."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsel.registry.source import SourceSyntaxError, join_pointer, parse_text, split_pointer


def test_positions_are_one_based_and_addressed_by_pointer() -> None:
    parsed = parse_text("tools:\n  - name: a\n    requires: [b, c]\n")
    assert parsed.value == {"tools": [{"name": "a", "requires": ["b", "c"]}]}
    assert parsed.source.values["/tools/0/name"] == (2, 11)
    assert parsed.source.keys["/tools/0/name"] == (2, 5)
    assert parsed.source.values["/tools/0/requires/1"] == (3, 19)


def test_locate_falls_back_to_nearest_ancestor() -> None:
    parsed = parse_text("tools:\n  - name: a\n")
    assert parsed.source.locate("/tools/0/parameters/properties") == (2, 5)
    assert parsed.source.locate("/tools/0/name", key=True) == (2, 5)


def test_duplicate_keys_are_reported_and_last_wins() -> None:
    parsed = parse_text("a: 1\nb: 2\na: 3\n")
    assert parsed.value == {"a": 3, "b": 2}
    (dup,) = parsed.duplicate_keys
    assert (dup.pointer, dup.key, dup.line, dup.column, dup.first_line) == ("/a", "a", 3, 1, 1)


def test_pointer_tokens_are_escaped() -> None:
    parsed = parse_text('"a/b": {"c~d": 1}\n')
    assert "/a~1b/c~0d" in parsed.source.values
    assert split_pointer("/a~1b/c~0d") == ["a/b", "c~d"]


@given(st.lists(st.text(min_size=0, max_size=8), max_size=5))
def test_pointer_round_trip(tokens: list[str]) -> None:
    assert split_pointer(join_pointer("", *tokens)) == tokens


def test_merge_keys_are_expanded_without_overriding_explicit_keys() -> None:
    parsed = parse_text(
        "base: &b {type: string, description: x}\nprop:\n  <<: *b\n  description: y\n"
    )
    assert parsed.value["prop"] == {"description": "y", "type": "string"}


def test_scalars_keep_json_types_and_timestamps_stay_text() -> None:
    parsed = parse_text("a: 1\nb: 1.5\nc: true\nd: ~\ne: 2024-01-01\nf: '01'\n")
    assert parsed.value == {"a": 1, "b": 1.5, "c": True, "d": None, "e": "2024-01-01", "f": "01"}


def test_syntax_error_has_line_and_column() -> None:
    with pytest.raises(SourceSyntaxError) as caught:
        parse_text("tools:\n  - name: a\n    description: [unclosed\n")
    assert caught.value.line >= 3 and caught.value.column >= 1
    assert "flow sequence" in caught.value.message or "expected" in caught.value.message


BILLION_LAUGHS = "\n".join(
    ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 9) + "]"
        for i in range(8)
    ]
)


def test_alias_bomb_is_refused_quickly() -> None:
    started = time.perf_counter()
    with pytest.raises(SourceSyntaxError, match="alias bomb"):
        parse_text(BILLION_LAUGHS)
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(
    ("anchor_bytes", "aliases"),
    [(100_000, 200), (10_000, 27_000)],
    ids=["a 100 kB string aliased 200 times", "27k aliases of 10 kB"],
)
def test_amplification_by_bytes_is_refused(anchor_bytes: int, aliases: int) -> None:
    text = f"big: &big {'x' * anchor_bytes}\nitems:\n" + "  - *big\n" * aliases
    with pytest.raises(SourceSyntaxError, match=r"alias bomb") as caught:
        parse_text(text)
    assert "bytes" in caught.value.message


def test_modest_alias_reuse_is_allowed() -> None:
    text = "shared: &s {type: string, description: shared}\nitems:\n" + "".join(
        "  - *s\n" for _ in range(100)
    )
    assert len(parse_text(text).value["items"]) == 100
    # sharing one large block a few times is what anchors are for
    shared = f"big: &big {'x' * 100_000}\nitems:\n" + "  - *big\n" * 5
    assert len(parse_text(shared).value["items"]) == 5


def test_recursive_alias_is_refused() -> None:
    with pytest.raises(SourceSyntaxError, match="recursive"):
        parse_text("a: &x [1, *x]\n")


def test_nesting_ten_thousand_deep_is_a_clear_error() -> None:
    with pytest.raises(SourceSyntaxError, match=r"nesting|depth|deep"):
        parse_text("a: " + "[" * 10_000 + "]" * 10_000)


def test_nesting_up_to_the_limit_is_read_and_deeper_is_refused_where_it_starts() -> None:
    from toolsel.registry.nodes import MAX_NESTING

    depth = MAX_NESTING - 1  # plus the top-level mapping
    parsed = parse_text("a: " + "[" * depth + "]" * depth)
    node = parsed.value["a"]
    for _ in range(depth - 1):
        node = node[0]
    assert node == []
    with pytest.raises(SourceSyntaxError) as refused:
        parse_text("a: " + "[" * (depth + 1) + "]" * (depth + 1))
    assert "more than 128 levels deep" in refused.value.message
    assert (refused.value.line, refused.value.column) == (1, 4 + depth)


def test_json_with_tabs_keeps_columns() -> None:
    parsed = parse_text('{\n\t"tools": [\n\t\t{"name": "a"}\n\t]\n}\n', is_json=True)
    assert parsed.value == {"tools": [{"name": "a"}]}
    assert parsed.source.values["/tools/0/name"] == (3, 12)  # tab, tab, {, "name", :, space


@settings(max_examples=60, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=10),
        lambda c: (
            st.lists(c, max_size=3)
            | st.dictionaries(st.text(min_size=1, max_size=5), c, max_size=3)
        ),
        max_leaves=20,
    )
)
def test_any_json_value_round_trips_through_the_parser(value: object) -> None:
    import json

    parsed = parse_text(json.dumps({"v": value}), is_json=True)
    assert parsed.value == {"v": value}


HUGE = "9" * 5000


@pytest.mark.parametrize(
    ("text", "is_json", "where", "words"),
    [
        (f"a:\n  b: {HUGE}\n", False, (2, 6), "5,000 digits"),
        (f"a:\n  b: -{HUGE}\n", False, (2, 6), "5,000 digits"),
        (f'{{"a": [1, {HUGE}]}}', True, (1, 11), "5,000 digits"),
        (f"a: 0x{'f' * 5000}\n", False, (1, 4), "digits"),
        (f"a: 0{'7' * 20000}\n", False, (1, 4), "digits"),
        (f"a: !!int {HUGE}\n", False, (1, 4), "5,000 digits"),
        ("a:\n  - 1.0e+999\n", False, (2, 5), "infinity"),
        ("a: -.inf\n", False, (1, 4), "infinity"),
        ("a: .nan\n", False, (1, 4), "not a number"),
        ('{"a": 1e999}', True, (1, 7), "infinity"),
        ('{"a": -1e400}', True, (1, 7), "infinity"),
        ('{"a": NaN}', True, (1, 7), "not a number"),
        ('{"a": Infinity}', True, (1, 7), "infinity"),
        ("a: !!int abc\n", False, (1, 4), "not an integer"),
        ("a: !!int 1.5\n", False, (1, 4), "not an integer"),
        ("a: !!float abc\n", False, (1, 4), "not a number"),
        ("a: !!bool maybe\n", False, (1, 4), "not a boolean"),
    ],
    ids=[
        "5,000-digit integer",
        "negative",
        "in JSON",
        "hex",
        "octal",
        "tagged",
        "1.0e+999",
        "-.inf",
        ".nan",
        "JSON 1e999",
        "JSON -1e400",
        "JSON NaN",
        "JSON Infinity",
        "!!int abc",
        "!!int 1.5",
        "!!float abc",
        "!!bool maybe",
    ],
)
def test_numbers_json_cannot_hold_are_refused_where_they_start(
    text: str, is_json: bool, where: tuple[int, int], words: str
) -> None:
    """Python cannot turn an integer of more than 4,300 digits into text (or back), and
    JSON has no infinity or NaN: such a value is refused with its position, never a
    traceback later (in the int constructor, in orjson, in the JSON writer)."""
    with pytest.raises(SourceSyntaxError) as refused:
        parse_text(text, is_json=is_json)
    assert (refused.value.line, refused.value.column) == where
    assert words in refused.value.message
    assert len(refused.value.message) < 200 and "\n" not in refused.value.message


@pytest.mark.parametrize("is_json", [False, True], ids=["yaml", "json"])
def test_integers_beyond_64_bits_and_up_to_the_limit_are_kept_exactly(is_json: bool) -> None:
    import json
    import sys

    limit = sys.get_int_max_str_digits()
    values = [2**64, -(2**63) - 1, 10**100, int("9" * limit), -int("9" * limit), 1.5e308]
    parsed = parse_text(json.dumps({"v": values}), is_json=is_json)
    assert parsed.value["v"] == values
    assert type(parsed.value["v"][0]) is int


def test_hex_octal_and_sexagesimal_integers_within_the_limit_are_read() -> None:
    parsed = parse_text("a: 0x10\nb: 017\nc: 1_000\nd: 190:20:30\ne: 0x" + "f" * 100 + "\n")
    assert parsed.value == {"a": 16, "b": 15, "c": 1000, "d": 685230, "e": 16**100 - 1}
