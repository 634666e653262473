"""The records of a POST /v1/usage body: plain usage records, or the `tool_result` events of
`toolsel replay --format jsonl`, each checked by its model (`toolsel.serve.models`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolsel.serve.limits import MAX_BATCH
from toolsel.serve.records import UsageRecord
from toolsel.serve.values import RequestError, kind, read, stored_text

if TYPE_CHECKING:
    from toolsel.serve.models import ReplayEvent


def parse_records(body: Any) -> list[UsageRecord]:
    """The records of a POST /v1/usage body (`models.USAGE_BODY`), each checked by its
    model; an error names the item at fault."""
    return records_of(usage_items(body))


def usage_items(body: Any) -> list[Any]:
    """The items a POST /v1/usage body holds (one record, a list, `{records: [...]}`)."""
    if isinstance(body, dict) and "records" in body:
        from toolsel.serve.models import UsageBatch

        body = read(UsageBatch, body).records
    items = body if isinstance(body, list) else [body]
    if not items:
        raise RequestError("no usage records")
    if len(items) > MAX_BATCH:
        raise RequestError(f"at most {MAX_BATCH} records per request, got {len(items)}", 413)
    return items


def records_of(items: list[Any]) -> list[UsageRecord]:
    records = []
    for number, item in enumerate(items):
        if not isinstance(item, dict):
            raise RequestError(f"record {number}: expected an object, got {kind(item)}", 422)
        try:
            record = _record(item)
        except RequestError as error:
            raise RequestError(f"record {number}: {error}", 422) from None
        if record is not None:
            records.append(record)
    return records


def _record(item: dict[str, Any]) -> UsageRecord | None:
    if "event" in item and "schema" in item:  # a line of `replay --format jsonl`
        from toolsel.serve.models import ReplayEvent

        return replay_record(read(ReplayEvent, item))
    from toolsel.serve.models import UsageRecordBody

    sent = read(UsageRecordBody, item)
    at = sent.at or received_now()
    return UsageRecord(sent.tool, sent.ok, at, sent.latency_ms, sent.session, sent.error, sent.id)


def replay_record(event: ReplayEvent) -> UsageRecord | None:
    """The record of a `tool_result` event, at its call's own time (else when received);
    none for a `tool_start`, a resumed session's copy (`copied`, uncounted by `stats` too)
    or a call without a tool. Its id (`replay_id`) does not depend on where the file lies,
    so posting a folder again, or a copy of it, stores nothing twice."""
    if event.event != "tool_result" or event.copied or event.tool is None:
        return None
    return UsageRecord(
        tool=event.tool,
        ok=not event.is_error,
        at=event.at or received_now(),
        latency_ms=event.latency_ms,
        session=event.file,
        id=stored_text(replay_id(event), "id"),
    )


def replay_id(event: ReplayEvent) -> str:
    """A call's idempotency key: its id, tool and time (`replay:ID@TIME/TOOL`), which name
    one call wherever its transcript lies; a call without a time, or whose id toolsel made
    up from its line (`noid:`), is named by its file too (`FILE#ID`)."""
    call = str(event.id)
    if event.at is None or call.startswith("noid:"):
        return f"{event.file}#{call}"
    return f"replay:{call}@{event.at}/{event.tool}"


def received_now() -> str:
    """The time a record is received, as records store it."""
    from toolsel.serve.store import now

    return now()
