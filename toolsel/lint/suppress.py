"""Inline suppressions written as YAML comments.

key: value  # toolsel: disable-line TS202
# toolsel: disable-next-line TS202      (covers the whole node on the next line)
# toolsel: disable TS202 ... # toolsel: enable TS202
# toolsel: disable-file [TS202 ...]      (no ids: every rule)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from toolsel.registry.source import SourceMap

_DIRECTIVE = re.compile(
    r"#\s*toolsel:\s*(disable-next-line|disable-line|disable-file|disable|enable)\b([^#\n]*)"
)
_ID_SPLIT = re.compile(r"[\s,]+")


@dataclass(slots=True)
class Directive:
    kind: str
    ids: tuple[str, ...]
    line: int
    column: int
    end_line: int | None = None  # for `disable`: the matching `enable`
    pointers: tuple[str, ...] = ()  # for `disable-next-line`: the nodes it covers
    target_line: int | None = None
    used: bool = False


@dataclass(slots=True)
class Suppressions:
    directives: list[Directive] = field(default_factory=list)

    @classmethod
    def from_file(cls, path: str, source: SourceMap) -> Suppressions:
        try:
            text = Path(path).read_text(encoding="utf-8-sig", errors="replace")
        except OSError:
            return cls()
        if "toolsel:" not in text:
            return cls()
        return cls.from_text(text, source)

    @classmethod
    def from_text(cls, text: str, source: SourceMap) -> Suppressions:
        lines = text.splitlines()
        directives: list[Directive] = []
        open_ranges: list[Directive] = []
        for number, line in enumerate(lines, start=1):
            match = _DIRECTIVE.search(line)
            if not match:
                continue
            kind = match.group(1)
            ids = tuple(i for i in _ID_SPLIT.split(match.group(2).strip()) if i)
            directive = Directive(kind, ids, number, match.start() + 1)
            if kind == "enable":
                for opened in open_ranges:
                    if opened.end_line is None and (not ids or set(opened.ids) & set(ids)):
                        opened.end_line = number
                open_ranges = [d for d in open_ranges if d.end_line is None]
            elif kind == "disable":
                open_ranges.append(directive)
            elif kind == "disable-next-line":
                target = _next_content_line(lines, number)
                directive.target_line = target
                if target is not None:
                    directive.pointers = tuple(set(source.pointers_at_line(target)))
            directives.append(directive)
        return cls(directives)

    def suppresses(self, rule_id: str, line: int, pointer: str) -> bool:
        hit = False
        for directive in self.directives:
            if directive.kind == "enable" or (directive.ids and rule_id not in directive.ids):
                continue
            if _covers(directive, line, pointer):
                directive.used = True
                hit = True
        return hit


def _covers(directive: Directive, line: int, pointer: str) -> bool:
    kind = directive.kind
    if kind == "disable-file":
        return True
    if kind == "disable-line":
        return line == directive.line
    if kind == "disable":
        return line > directive.line and (directive.end_line is None or line < directive.end_line)
    if kind == "disable-next-line":
        if line == directive.target_line:
            return True
        return any(pointer == p or pointer.startswith(p + "/") for p in directive.pointers if p)
    return False


def _next_content_line(lines: list[str], after: int) -> int | None:
    for number in range(after + 1, len(lines) + 1):
        stripped = lines[number - 1].strip()
        if stripped and not stripped.startswith("#"):
            return number
    return None
