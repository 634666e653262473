"""Misroutes as evidence (`learn --misroutes FILE`, `lint --misroutes FILE`): the pairs of a
`toolsel stats --misroutes --format json` document (`toolsel schema --output misroutes`), read back.

`learn` takes each pair's requests (the prompts that led to the failed call) as examples
of the tool that then worked; `lint` (TS708) reports the failed tool's definition when
`rank` does not put the winner above it for those requests. A file that cannot be read,
is not JSON, or is not such a document is one line on stderr and exit 2.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolsel.errors import UsageError

#: Where a misroutes document comes from.
_HINT = "write one with `toolsel stats --misroutes -f json`"


@dataclass(frozen=True, slots=True)
class MisrouteRequest:
    text: str
    count: int  # the misroutes it led to


@dataclass(frozen=True, slots=True)
class EvidencePair:
    loser: str  # the tool that failed or came back empty
    winner: str  # the different tool that then worked
    count: int
    where: tuple[tuple[str, int], ...]  # the failed calls listed (file, line)
    requests: tuple[MisrouteRequest, ...]  # what led to them (none: an older document)


@dataclass(frozen=True, slots=True)
class MisrouteEvidence:
    path: str  # the document read
    pairs: tuple[EvidencePair, ...]

    @property
    def requests(self) -> int:
        return sum(r.count for pair in self.pairs for r in pair.requests)


def read_misroutes(path: Path) -> MisrouteEvidence:
    """The pairs of the `stats --misroutes -f json` document at `path`."""
    from toolsel.schemas import Output, schema_name

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise UsageError(f"{path}: cannot read the misroutes file: {reason}") from None
    if not text.strip():
        raise UsageError(f"{path}: empty misroutes file", hint=_HINT)
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"{path}:{error.lineno}:{error.colno}: not JSON: {error.msg}") from None
    wanted = schema_name(Output.MISROUTES)
    schema = document.get("schema") if isinstance(document, dict) else None
    if schema != wanted:
        raise UsageError(f"{path}: not a {wanted} document (schema: {schema!r})", hint=_HINT)
    pairs = document.get("pairs")
    if not isinstance(pairs, list):
        raise UsageError(f"{path}: /pairs: expected a list of misroute pairs")
    return MisrouteEvidence(str(path), tuple(_pair(path, n, p) for n, p in enumerate(pairs)))


def _pair(path: Path, number: int, pair: Any) -> EvidencePair:
    where = f"{path}: /pairs/{number}"
    if not isinstance(pair, dict):
        raise UsageError(f"{where}: expected an object")
    loser, winner, count = pair.get("loser"), pair.get("winner"), pair.get("count")
    if not isinstance(loser, str) or not isinstance(winner, str) or not isinstance(count, int):
        raise UsageError(f"{where}: needs `loser` and `winner` (strings) and `count` (a number)")
    occurrences = pair.get("occurrences") or []
    requests = pair.get("requests") or []
    if not isinstance(occurrences, list) or not isinstance(requests, list):
        raise UsageError(f"{where}: `occurrences` and `requests` must be lists")
    listed = tuple(
        (str(o.get("file")), int(o.get("line") or 0)) for o in occurrences if isinstance(o, dict)
    )
    asked = []
    for n, request in enumerate(requests):
        request = request if isinstance(request, dict) else {}
        text, times = request.get("text"), request.get("count")
        if not isinstance(text, str) or not isinstance(times, int):
            raise UsageError(f"{where}/requests/{n}: needs `text` (a string) and `count`")
        asked.append(MisrouteRequest(text, times))
    return EvidencePair(loser, winner, count, listed, tuple(asked))
