"""The checks of a request's values (serve/values.py): each wrong value is one message that
names its key, and the one `RequestError` a route answers with."""

from __future__ import annotations

from typing import Any

import pytest

from toolsel.registry.model import Permission
from toolsel.serve.models import (
    AgentSelectRequest,
    Body,
    RankRequest,
    SelectRequest,
    UsageRecordBody,
)
from toolsel.serve.values import (
    RequestError,
    choice,
    flag,
    number,
    optional_text,
    read,
    shown,
    strings,
    text,
    timestamp,
)

KINDS = [({}, "an object"), ([], "a list"), ("", "a string"), (True, "a boolean"), (3, "a number"), (2.5, "a number"), (None, "null")]  # fmt: skip


@pytest.mark.parametrize(("value", "kind"), KINDS)
def test_a_wrong_value_is_named_by_its_json_kind(value: Any, kind: str) -> None:
    for check in (lambda: read(RankRequest, {"query": value}), lambda: text(value, "query")):
        with pytest.raises(RequestError) as caught:
            check()
        assert str(caught.value) == f"`query` must be a non-empty string, got {kind}"
        assert caught.value.status == 422


def test_text_fields() -> None:
    assert text(" x ", "q") == " x "
    with pytest.raises(RequestError, match="non-empty string, got a string"):
        text(" \t", "q")
    assert optional_text(None, "s") is None and optional_text("x", "s") == "x"
    assert read(UsageRecordBody, {"tool": "t", "ok": True}).session is None  # absent: None
    for value, message in [
        (3, "`s` must be a string, got a number"),
        ("a\x00b", "`s` contains a NUL character"),
        ("\ud800", "`s` is not valid Unicode (a lone surrogate)"),
    ]:
        with pytest.raises(RequestError) as caught:
            optional_text(value, "s")
        assert (str(caught.value), caught.value.status) == (message, 422)


def test_flags_numbers_and_integers() -> None:
    defaults = read(RankRequest, {"query": "x"})
    assert defaults.explain is False and flag(True, "f") is True
    with pytest.raises(RequestError, match=r"^`f` must be true or false, got a number$") as bad:
        flag(1, "f")
    assert bad.value.status == 422
    assert read(UsageRecordBody, {"tool": "t", "ok": True}).latency_ms is None
    assert defaults.min_score == 0.0
    assert number(0, "n") == 0.0 and type(number(2, "n")) is float
    for value, message in [
        (True, "`n` must be a number >= 0, got a boolean"),
        ("1", "`n` must be a number >= 0, got a string"),
        (-0.5, "`n` must be a number >= 0, got -0.5"),
    ]:
        with pytest.raises(RequestError) as caught:
            number(value, "n")
        assert (str(caught.value), caught.value.status) == (message, 422)
    assert read(AgentSelectRequest, {"message": "x"}).maxTools == 8
    assert read(RankRequest, {"query": "x", "top": 1}).top == 1
    assert read(AgentSelectRequest, {"message": "x", "maxTools": 1000}).maxTools == 1000
    integers: list[tuple[type[Body], dict[str, Any], str]] = [
        (RankRequest, {"query": "x"}, "top"),
        (AgentSelectRequest, {"message": "x"}, "maxTools"),
    ]
    for value in (0, 1001, True, 2.0, "3"):
        for model, body, key in integers:
            with pytest.raises(RequestError) as caught:
                read(model, {**body, key: value})
            assert str(caught.value) == f"`{key}` must be an integer from 1 to 1000"
            assert caught.value.status == 422


def test_string_lists_and_choices() -> None:
    assert strings(None, "tags") == () and strings("a", "tags") == ("a",)
    assert strings(["a", "b"], "tags") == ("a", "b")
    for value in ([], ["a", 1], 3):
        with pytest.raises(RequestError) as caught:
            strings(value, "tags")
        assert (str(caught.value), caught.value.status) == ("`tags` must be a list of strings", 422)
    with pytest.raises(RequestError) as caught:
        read(SelectRequest, {})  # a list the request needs
    assert (str(caught.value), caught.value.status) == ("`names` must be a list of strings", 422)
    assert choice(Permission)(None, "permission") is None
    assert choice(Permission)("read", "permission") is Permission.READ
    with pytest.raises(RequestError) as caught:
        choice(Permission)("root", "permission")
    assert (
        str(caught.value) == "`permission` must be one of read, write, admin, dangerous, got 'root'"
    )
    assert caught.value.status == 422


def test_times_are_stored_in_utc() -> None:
    assert timestamp(None, "at") is None and timestamp("", "at") is None
    assert timestamp("2026-01-02T03:04:05+01:00", "at") == "2026-01-02T02:04:05.000Z"
    with pytest.raises(RequestError) as caught:
        timestamp(5, "at")
    assert (str(caught.value), caught.value.status) == ("`at` must be an ISO 8601 time", 422)
    with pytest.raises(RequestError) as caught:
        timestamp("soon", "since")
    assert str(caught.value) == (
        "`since` must be an ISO 8601 time between years 1 and 9999, got 'soon' (not an ISO 8601 time (Invalid isoformat string: 'soon'))"
    )
    with pytest.raises(RequestError) as caught:
        timestamp("2026-01-02T03:04:05" + "x" * 300, "at")
    reason = str(caught.value).split(" (", 1)[1]
    assert len(reason) == 121 and reason.endswith("…)")  # the parser's reason, cut short


def test_values_quoted_in_errors_are_cut_short() -> None:
    assert shown("abc") == "'abc'"
    assert shown("x" * 78) == "'" + "x" * 78 + "'"  # 80 characters: kept
    assert shown("x" * 79) == "'" + "x" * 78 + "…"
    assert shown("x" * 200, limit=10) == "'xxxxxxxx…"
