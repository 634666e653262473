"""A content-addressed cache of parsed registry files, stored as JSON (never pickle).

The key is the sha256 of the file's bytes plus the cache format version, so an edited file
is never served stale and nothing needs invalidating. Failures to read or write the cache
are silent: the cache only ever saves time.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path

from toolsel.registry.source import DuplicateKey, ParsedDocument, SourceMap

CACHE_FORMAT = "toolsel-parse/1"
#: Files smaller than this parse faster than a cache round-trip, so they are not cached.
MIN_CACHED_BYTES = 64 * 1024


def cache_dir() -> Path:
    override = os.environ.get("TOOLSEL_CACHE_DIR")
    if override:
        return Path(override)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("toolsel", appauthor=False))


def cache_enabled() -> bool:
    return os.environ.get("TOOLSEL_NO_CACHE", "") in ("", "0")


def content_key(data: bytes, kind: str = CACHE_FORMAT) -> str:
    return hashlib.sha256(kind.encode() + b"\0" + data).hexdigest()


def _path_for(key: str, suffix: str) -> Path:
    return cache_dir() / key[:2] / f"{key}{suffix}"


def load_parsed(data: bytes) -> ParsedDocument | None:
    if len(data) < MIN_CACHED_BYTES or not cache_enabled():
        return None
    path = _path_for(content_key(data), ".json")
    try:
        payload = json.loads(path.read_bytes())
        if payload.get("format") != CACHE_FORMAT:
            return None
        duplicates = tuple(DuplicateKey(*d) for d in payload["duplicates"])
        return ParsedDocument(
            payload["document"], SourceMap.from_json(payload["source"]), duplicates
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store_parsed(data: bytes, parsed: ParsedDocument) -> None:
    if len(data) < MIN_CACHED_BYTES or not cache_enabled():
        return
    payload = {
        "format": CACHE_FORMAT,
        "document": parsed.value,
        "source": parsed.source.to_json(),
        "duplicates": [
            [d.pointer, d.key, d.line, d.column, d.first_line] for d in parsed.duplicate_keys
        ],
    }
    with contextlib.suppress(OSError, ValueError, TypeError):
        write_atomic(_path_for(content_key(data), ".json"), json.dumps(payload).encode())


def write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
