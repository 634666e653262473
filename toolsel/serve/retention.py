"""Keeping the usage store bounded: `serve --retain 30d` deletes what is older in the
background, in small transactions; `serve --max-store 2GB` stops recording (507) at a size."""

from __future__ import annotations

import logging
import re
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

from toolsel.errors import ConfigError

log = logging.getLogger("toolsel.serve")

#: Seconds between two pruning passes (and before the first).
PRUNE_EVERY = 300.0
_UNITS = {"m": 60, "h": 3600, "d": 86400}
_SIZES = {"b": 1} | {f"{unit}b": 10 ** (3 * n) for n, unit in enumerate("kmgt", 1)}
_SIZES |= {f"{unit}ib": 2 ** (10 * n) for n, unit in enumerate("kmgt", 1)}


def parse_duration(text: str) -> timedelta:
    """`30d`, `12h`, `90m`; ValueError with the reason otherwise."""
    found = re.fullmatch(r"\s*(\d{1,7})\s*([mhd])\s*", text, re.IGNORECASE)
    if not found or int(found[1]) == 0:
        raise ValueError(
            f"must be a whole number of minutes, hours or days (90m, 12h, 30d), got {text!r}"
        )
    return timedelta(seconds=int(found[1]) * _UNITS[found[2].lower()])


def parse_size(text: str) -> int:
    """`500MB`, `2GB`, `1.5GiB`, `1000000` (bytes); ValueError with the reason otherwise."""
    found = re.fullmatch(r"\s*(\d{1,15}(?:\.\d{1,6})?)\s*([kmgt]i?b|b)?\s*", text, re.IGNORECASE)
    size = int(float(found[1]) * _SIZES[(found[2] or "b").lower()]) if found else 0
    if size <= 0:
        raise ValueError(f"must be a size such as 500MB, 2GB or 1GiB, got {text!r}")
    return size


def serve_settings(table: dict[str, Any], where: str) -> tuple[timedelta | None, int | None]:
    """(retain, max_store) from a `[tool.toolsel.serve]` table."""
    unknown = sorted(set(table) - {"retain", "max_store"})
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {unknown[0]!r} in [tool.toolsel.serve] (retain, max_store)"
        )
    retain = max_store = None
    try:
        if "retain" in table:
            retain = parse_duration(str(table["retain"]))
        if "max_store" in table:
            max_store = parse_size(str(table["max_store"]))
    except ValueError as error:
        raise ConfigError(f"{where}: [tool.toolsel.serve] {error}") from None
    return retain, max_store


class Pruner:
    """A background thread that prunes the store every PRUNE_EVERY seconds until `stop`."""

    def __init__(self, store: Any, retain: timedelta, every: float = PRUNE_EVERY) -> None:
        self.store = store
        self.retain = retain
        self.every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="toolsel-prune", daemon=True)

    def start(self) -> Pruner:
        self._thread.start()
        return self

    def prune_once(self) -> int:
        from toolsel.timeparse import iso

        before = iso(datetime.now(UTC) - self.retain)
        deleted = int(self.store.prune(before))
        if deleted:
            log.info("pruned %s rows older than %s", deleted, before)
        return deleted

    def _loop(self) -> None:
        wait = min(self.every, 5.0)  # soon after start, then every so often
        while not self._stop.wait(wait):
            wait = self.every
            try:
                self.prune_once()
            except Exception:  # a pass that failed (store down) is tried again later
                log.exception("pruning the usage store")

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)
