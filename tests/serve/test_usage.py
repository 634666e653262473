"""Reading POST /v1/usage bodies (serve/usage.py): plain records and replay events, each
checked whole, every bad value one 4xx naming the record and key at fault."""

from __future__ import annotations

import pytest

from toolsel.serve.store import UsageRecord
from toolsel.serve.usage import parse_records
from toolsel.serve.values import RequestError

EVENT = {"schema": "toolsel.replay-event/v1", "event": "tool_result", "file": "s.jsonl", "id": "t1"}


def test_a_replay_event_records_whether_the_call_failed() -> None:
    ok, failed, timed = parse_records(
        [
            {**EVENT, "tool": "Read"},
            {**EVENT, "tool": "Bash", "is_error": True},
            {**EVENT, "tool": "Bash", "is_error": False, "latency_ms": 12},
        ]
    )
    assert (ok.ok, failed.ok, timed.ok) == (True, False, True)
    assert (ok.tool, ok.session, ok.id, ok.latency_ms, ok.error) == ("Read", "s.jsonl", "s.jsonl#t1", None, None)  # fmt: skip
    assert timed.latency_ms == 12.0 and ok.at.endswith("Z")
    without_schema = {k: v for k, v in EVENT.items() if k != "schema"}
    with pytest.raises(RequestError) as caught:  # a plain record, which takes no `event`
        parse_records({**without_schema, "tool": "Read", "is_error": True})
    assert str(caught.value) == (
        "record 0: a usage record does not take `event`; it takes at, error, id, latency_ms, ok, "
        "session, tool"
    )
    with pytest.raises(RequestError, match="record 0: `ok` must be true or false"):
        parse_records({"tool": "Read"})  # a plain record, without `ok`
    with pytest.raises(RequestError) as caught:
        parse_records([{**EVENT, "tool": "Read"}, {**EVENT, "tool": "Read", "is_error": "no"}])
    assert str(caught.value) == "record 1: `is_error` must be true or false, got a string"
    assert parse_records({**EVENT, "event": "tool_start", "tool": "Read"}) == []  # its result
    assert parse_records({**EVENT, "tool": "Read", "copied": True}) == []  # counted in its file
    assert parse_records({**EVENT, "tool": None}) == []
    with pytest.raises(RequestError) as caught:
        parse_records({**EVENT, "schema": "toolsel.replay-event/v9", "tool": "Read"})
    assert str(caught.value).startswith("record 0: `schema` must be toolsel.replay-event/v1")


def test_a_replay_event_is_recorded_at_its_call_s_time_under_a_stable_id() -> None:
    at = "2026-03-04T05:06:07.250Z"
    (first,) = parse_records({**EVENT, "tool": "Read", "at": at, "display_name": "R", "new": 1})
    (moved,) = parse_records({**EVENT, "tool": "Read", "at": at, "file": "/elsewhere/s.jsonl"})
    assert first.at == at and first.id == moved.id == f"replay:t1@{at}/Read"
    (zoned,) = parse_records({**EVENT, "tool": "Read", "at": "2026-03-04T06:06:07.25+01:00"})
    assert zoned.at == at
    (noid,) = parse_records({**EVENT, "tool": "Read", "at": at, "id": "noid:3:0"})
    assert noid.id == "s.jsonl#noid:3:0"  # made up from its line: only its file tells it apart
    (odd,) = parse_records({**EVENT, "tool": "Read", "at": "yesterday"})
    assert odd.id == "s.jsonl#t1" and odd.at.endswith("Z")  # no time: received now, not refused


def test_a_record_keeps_what_it_was_sent() -> None:
    (record,) = parse_records(
        {
            "records": [
                {
                    "tool": "run_tests",
                    "ok": False,
                    "at": "2026-01-02T03:04:05Z",
                    "latency_ms": 7,
                    "session": "s",
                    "error": "boom",
                    "id": "1",
                }
            ]
        }
    )
    assert record == UsageRecord("run_tests", False, "2026-01-02T03:04:05.000Z", 7.0, "s", "boom", "1")  # fmt: skip
    (plain,) = parse_records({"tool": "t", "ok": True})
    assert (plain.latency_ms, plain.session, plain.error, plain.id) == (None, None, None, None)
    assert plain.at.endswith("Z")


def test_a_batch_is_checked_whole() -> None:
    from toolsel.serve.limits import MAX_BATCH, MAX_NAME

    for body, message, status in [
        ([], "no usage records", 400),
        ({"records": []}, "no usage records", 400),
        (
            [{"tool": "t", "ok": True}] * (MAX_BATCH + 1),
            f"at most {MAX_BATCH} records per request, got {MAX_BATCH + 1}",
            413,
        ),
        ([{"tool": "t", "ok": True}, ["t"]], "record 1: expected an object, got a list", 422),
        (
            [{"tool": "x" * (MAX_NAME + 1), "ok": True}],
            f"record 0: `tool` is {MAX_NAME + 1} characters long; at most {MAX_NAME}",
            422,
        ),
        ([{"tool": "a\x00", "ok": True}], "record 0: `tool` contains a NUL character", 422),
    ]:
        with pytest.raises(RequestError) as caught:
            parse_records(body)
        assert (str(caught.value), caught.value.status) == (message, status)
    assert len(parse_records([{"tool": "t", "ok": True}] * MAX_BATCH)) == MAX_BATCH
    assert len(parse_records([{"tool": "x" * MAX_NAME, "ok": True}])) == 1


def test_a_bad_record_names_the_key_at_fault() -> None:
    for item, message in [
        ({**EVENT, "tool": "Read", "id": "t\x00"}, "record 0: `id` contains a NUL character"),
        ({"tool": "Read", "ok": True, "at": 5}, "record 0: `at` must be an ISO 8601 time"),
    ]:
        with pytest.raises(RequestError) as caught:
            parse_records([item])
        assert (str(caught.value), caught.value.status) == (message, 422)
