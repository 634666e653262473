"""`toolsel replay --post URL`: a run's `tool_result` events sent to `toolsel serve`'s
`/v1/usage` while the transcripts are read, in batches of bounded size, each retried a
bounded number of times. The server names each call by its id, time and tool, so sending
a folder again stores nothing twice (`toolsel.serve.usage.replay_id`).

Only the events the server records are sent: results, not a resumed session's copies. Nothing here prints;
a batch the server refuses, or that cannot be delivered, raises `PostError` with one line.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolsel.errors import PostError

if TYPE_CHECKING:
    from toolsel.replay.report import ToolEvent

#: Events a batch holds at most, and its body's size at most (the server's default cap is
#: 1 MB, and 10,000 records a request).
BATCH_EVENTS = 1000
BATCH_BYTES = 512 * 1024
#: Tries per batch, and the first wait between them (doubled each time, or the server's
#: Retry-After, at most MAX_WAIT seconds).
ATTEMPTS = 4
FIRST_WAIT = 0.5
MAX_WAIT = 10.0
#: Seconds a request may take.
TIMEOUT = 60.0
#: Answers worth trying again: the server busy, past a deadline, or a proxy's.
RETRIED = frozenset({408, 429, 500, 502, 503, 504})
JSON_LINES = "application/x-ndjson"


@dataclass(frozen=True, slots=True)
class PostResult:
    """What was sent: the events, the batches, and the records the server stored anew."""

    url: str
    events: int
    batches: int
    stored: int
    retries: int


Send = Callable[[str, bytes, dict[str, str]], tuple[int, bytes, str | None]]


class EventPoster:
    """A replay event sink that posts `tool_result` events in batches; `finish` sends the
    last batch and says what was sent. `send` is the HTTP call (replaced in tests)."""

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        batch_events: int | None = None,
        batch_bytes: int | None = None,
        send: Send | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.url = url
        self.headers = {"Content-Type": JSON_LINES, "Accept": "application/json"}
        token = token if token is not None else os.environ.get("TOOLSEL_TOKEN")
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        self.batch_events = batch_events or BATCH_EVENTS
        self.batch_bytes = batch_bytes or BATCH_BYTES
        self.send = send or http_post
        self.sleep = sleep
        self._lines: list[bytes] = []
        self._size = 0
        self._first: str = ""  # where the batch's first event came from, for errors
        self.events = self.batches = self.stored = self.retries = 0

    def __call__(self, event: ToolEvent) -> None:
        from toolsel.replay.report import event_payload

        if event.event != "tool_result" or event.copied or not event.tool:
            return  # what the server would not record (`toolsel.serve.usage.replay_record`)
        line = json.dumps(event_payload(event, None), ensure_ascii=False).encode()
        if self._lines and (
            len(self._lines) >= self.batch_events or self._size + len(line) + 1 > self.batch_bytes
        ):
            self._flush()
        if not self._lines:
            self._first = f"{event.file}:{event.line}"
        self._lines.append(line)
        self._size += len(line) + 1
        self.events += 1

    def finish(self) -> PostResult:
        if self._lines:
            self._flush()
        return PostResult(self.url, self.events, self.batches, self.stored, self.retries)

    def _flush(self) -> None:
        body = b"\n".join(self._lines) + b"\n"
        count = len(self._lines)
        self._lines, self._size = [], 0
        self.batches += 1
        where = f"batch {self.batches} ({count} events from {self._first} on)"
        self.stored += self._deliver(body, where)

    def _deliver(self, body: bytes, where: str) -> int:
        """Send one batch, trying again while the server is busy or unreachable; the
        records it stored anew."""
        wait = FIRST_WAIT
        for attempt in range(1, ATTEMPTS + 1):
            try:
                status, answer, retry_after = self.send(self.url, body, self.headers)
            except OSError as error:
                status, answer, retry_after = 0, str(error).encode(), None
            if status == 200:
                return stored_count(answer, self.url, where)
            if status and status not in RETRIED:
                raise PostError(
                    f"{self.url} refused {where}: HTTP {status}: {error_text(answer)}",
                    hint=refusal_hint(status),
                )
            if attempt == ATTEMPTS:
                said = f"HTTP {status}: {error_text(answer)}" if status else error_text(answer)
                raise PostError(
                    f"could not post {where} to {self.url} after {ATTEMPTS} tries: {said}",
                    hint="is `toolsel serve` running there? Posting again never counts a "
                    "call twice",
                )
            self.retries += 1
            self.sleep(min(MAX_WAIT, parse_retry_after(retry_after) or wait))
            wait *= 2
        raise AssertionError("unreachable")  # pragma: no cover


def http_post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes, str | None]:
    """POST `body`: the status, the answer's body and its Retry-After."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status, response.read(), None
    except urllib.error.HTTPError as error:
        return error.code, error.read(), error.headers.get("Retry-After")
    except urllib.error.URLError as error:
        raise OSError(str(error.reason)) from None


def stored_count(answer: bytes, url: str, where: str) -> int:
    try:
        document = json.loads(answer)
        stored = document["stored"]
    except (ValueError, KeyError, TypeError):
        raise PostError(
            f"{url} answered {where} with something that is not a toolsel.usage document: "
            f"{error_text(answer)}",
            hint="--post takes the URL of toolsel serve's /v1/usage",
        ) from None
    if not isinstance(stored, int):
        raise PostError(f"{url} answered {where} with a `stored` that is not a number")
    return stored


def error_text(answer: bytes) -> str:
    """The server's error message (or the start of its answer), on one line."""
    text = answer.decode("utf-8", "replace")
    try:
        document = json.loads(text)
        if isinstance(document, dict) and isinstance(document.get("error"), str):
            text = document["error"]
    except ValueError:
        pass
    text = " ".join(text.split())
    return text if len(text) <= 300 else text[:299] + "…"


def refusal_hint(status: int) -> str | None:
    return {
        401: "set TOOLSEL_TOKEN to the server's token",
        404: "--post takes the URL of toolsel serve's /v1/usage",
        413: "the server's --max-body is under 512 KB; raise it",
        507: "the server's store is full (--max-store)",
    }.get(status)


def parse_retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None
