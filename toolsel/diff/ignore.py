"""The ignore file (`.toolsel-diff-ignore.yaml`): accepted changes, each with a reason.

    ignore:
      - fingerprint: 3f2a9c0d1e4b5a6f     # from the report; survives reformatting
        reason: the search team approved the new description
        expires: 2026-12-31               # optional: warns once past
      - rule: TD201                         # or a rule (and optionally a tool)
        tool: search
        reason: descriptions are tuned weekly

An entry without a reason is an error; an expired entry, or one that matches nothing,
is a warning, so the file cannot rot."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from toolsel.diff.model import Change, DiffResult, IgnoreWarning
from toolsel.errors import UsageError

DEFAULT_IGNORE_FILE = ".toolsel-diff-ignore.yaml"
ENTRY_KEYS = ("fingerprint", "rule", "tool", "reason", "expires")


@dataclass(frozen=True, slots=True)
class IgnoreEntry:
    file: str
    line: int
    reason: str
    fingerprint: str | None = None
    rule: str | None = None
    tool: str | None = None
    expires: dt.date | None = None

    def matches(self, change: Change) -> bool:
        if self.fingerprint is not None:
            return change.fingerprint == self.fingerprint
        return change.rule == self.rule and (self.tool is None or self.tool == change.tool)


def read_ignore_file(path: Path) -> tuple[IgnoreEntry, ...]:
    from toolsel.inputs import display_path
    from toolsel.registry.source import SourceSyntaxError, parse_text

    shown = display_path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{shown}: cannot read the ignore file: {exc}") from None
    if not text.strip():
        return ()
    try:
        parsed = parse_text(text)
    except SourceSyntaxError as exc:
        raise UsageError(f"{shown}:{exc.line}:{exc.column}: cannot parse: {exc.message}") from None
    document = parsed.value
    items = document.get("ignore") if isinstance(document, dict) else None
    if not isinstance(items, list):
        raise UsageError(f"{shown}:1:1: expected a top-level `ignore:` list of entries")
    entries = []
    for i, item in enumerate(items):
        line, column = parsed.source.locate(f"/ignore/{i}")
        entries.append(_entry(item, f"{shown}:{line}:{column}", shown, line))
    return tuple(entries)


def _entry(item: Any, where: str, file: str, line: int) -> IgnoreEntry:
    if not isinstance(item, dict):
        raise UsageError(
            f"{where}: an entry must be a mapping with `reason` and `fingerprint` or `rule`"
        )
    unknown = [k for k in item if k not in ENTRY_KEYS]
    if unknown:
        raise UsageError(
            f"{where}: unknown key {unknown[0]!r}", hint=f"keys: {', '.join(ENTRY_KEYS)}"
        )
    reason = item.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise UsageError(f"{where}: every entry needs a `reason` (why the change is accepted)")
    fingerprint, rule, tool = item.get("fingerprint"), item.get("rule"), item.get("tool")
    if fingerprint is None and rule is None:
        raise UsageError(f"{where}: give a `fingerprint` (from the report) or a `rule`")
    for key, value in (("fingerprint", fingerprint), ("rule", rule), ("tool", tool)):
        if value is not None and not isinstance(value, str):
            raise UsageError(f"{where}: `{key}` must be text")
    return IgnoreEntry(
        file, line, reason, fingerprint, rule, tool, _date(item.get("expires"), where)
    )


def _date(value: Any, where: str) -> dt.date | None:
    if value is None or (isinstance(value, dt.date) and not isinstance(value, dt.datetime)):
        return value
    if isinstance(value, dt.datetime):
        return value.date()
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise UsageError(
            f"{where}: `expires` must be a date like 2026-12-31, got {value!r}"
        ) from None


def apply_ignores(
    result: DiffResult, entries: tuple[IgnoreEntry, ...], *, today: dt.date | None = None
) -> DiffResult:
    """Move the changes an unexpired entry accepts to `ignored`; warn about the entries that
    expired or match nothing."""
    today = today or dt.date.today()
    live = [e for e in entries if e.expires is None or e.expires >= today]
    used: set[int] = set()
    kept: list[Change] = []
    ignored: list[Change] = list(result.ignored)
    for change in result.changes:
        hits = [i for i, e in enumerate(live) if e.matches(change)]
        used.update(hits)
        (ignored if hits else kept).append(change)
    warnings = list(result.warnings)
    for entry in entries:
        if entry.expires is not None and entry.expires < today:
            why = f"ignore entry expired on {entry.expires.isoformat()}; renew it or remove it"
            warnings.append(IgnoreWarning(entry.file, entry.line, why))
    unused = "ignore entry matches no change; remove it"
    warnings += [IgnoreWarning(e.file, e.line, unused) for i, e in enumerate(live) if i not in used]
    return replace(result, changes=tuple(kept), ignored=tuple(ignored), warnings=tuple(warnings))
