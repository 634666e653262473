"""Invalid JSON in JSON's words, at JSON's first error (toolsel/jsonsyntax.py)."""

from __future__ import annotations

import pytest

from toolsel.jsonsyntax import json_syntax_error, looks_like_json


@pytest.mark.parametrize(
    ("text", "words", "line", "column"),
    [
        ('{"a": 1\n  "b": 2}', "expected ',' or '}'", 2, 3),
        ("[1\n 2]", "expected ',' or ']'", 2, 2),
        ('{"a": [1, {"b": 2}\n "c"]}', "expected ',' or ']'", 2, 2),
        ('{"a": "}{[", "b" 1}', "expected ':' after the property name", 1, 18),
        ('{"a": 1,\n}', "trailing comma before '}' (JSON allows none)", 1, 8),
        ('{"a": [1, 2,\n  ]}', "trailing comma before ']' (JSON allows none)", 1, 12),
        ('{"tools": [{"name": "a"', "unexpected end of file: expected ',' or '}'", 1, 24),
        ('{"a": ', "unexpected end of file: expected a value", 1, 7),
        ("{'a': 1}", "expected a property name in double quotes, found \"'\"", 1, 2),
        ('{"a": tru}', "expected a value, found 't'", 1, 7),
        ("--- x\n", "expected a value, found '-'", 1, 1),
        ('{"a": 1}}', "unexpected text after the JSON value", 1, 9),
        ('{"a": "x\ny"}', "a control character (a raw newline or tab) inside a string; "
         "write \\n or \\t", 1, 9),
        ('{"a": "\\q"}', "invalid escape in a string", 1, 8),
        ('{"a": "open', "unterminated string", 1, 7),
    ],
)  # fmt: skip
def test_the_first_error_in_jsons_words(text: str, words: str, line: int, column: int) -> None:
    found = json_syntax_error(text)
    assert found is not None
    assert (found.problem, found.line, found.column) == (words, line, column)
    assert found.message == f"invalid JSON: {words}"
    assert "YAML" not in found.message and "did not find" not in found.message


@pytest.mark.parametrize(
    "text",
    ['{"a": [1, {"b": null}]}', "[]", '"x"', "[" * 5000 + "]" * 5000, "9" * 5000],
    ids=["object", "array", "string", "nested 5,000 deep", "5,000 digits"],
)
def test_json_and_what_only_size_refuses_is_no_syntax_error(text: str) -> None:
    assert json_syntax_error(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [("{}", True), ("\ufeff  \n[1]", True), ("tools: []", False), ("- a", False), ("", False)],
)
def test_what_looks_like_json(text: str, expected: bool) -> None:
    assert looks_like_json(text) is expected
