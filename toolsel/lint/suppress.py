"""Inline suppressions, written as YAML comments (never in JSON, never inside a string):

key: value  # toolsel: disable-line TS202
# toolsel: disable-next-line TS202      (covers the whole node on the next line)
# toolsel: disable TS202 ... # toolsel: enable TS202
# toolsel: disable-file [TS202 ...]      (no ids: every rule)

The comments come from the parser (`RegistryFile.comments`): only a `#` that YAML itself
reads as a comment can suppress anything. A comment that looks like a directive but is not
one (`Toolsel:`, `disable-lines`, `ts202`) is kept as malformed, and reported.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from toolsel.registry.source import Comment, SourceMap

KINDS = ("disable-next-line", "disable-line", "disable-file", "disable", "enable")
_DIRECTIVE = re.compile(
    r"#\s*toolsel:\s*(disable-next-line|disable-line|disable-file|disable|enable)(?=\s|$)([^#]*)"
)
_LOOKS_LIKE = re.compile(r"#\s*toolsel\s*:", re.IGNORECASE)
_ID_SPLIT = re.compile(r"[\s,]+")
_RULE_ID = re.compile(r"TS\d{3}")


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


@dataclass(frozen=True, slots=True)
class Malformed:
    """A comment that looks like a suppression but is not one, and what is wrong with it."""

    line: int
    column: int
    problem: str


@dataclass(slots=True)
class Suppressions:
    directives: list[Directive] = field(default_factory=list)
    malformed: list[Malformed] = field(default_factory=list)

    @classmethod
    def from_comments(cls, comments: Sequence[Comment], source: SourceMap) -> Suppressions:
        directives: list[Directive] = []
        malformed: list[Malformed] = []
        open_ranges: list[Directive] = []
        for comment in comments:
            match = _DIRECTIVE.match(comment.text)
            ids = tuple(i for i in _ID_SPLIT.split(match.group(2).strip()) if i) if match else ()
            problem = _problem(comment.text, match is not None, ids)
            if problem is not None:
                malformed.append(Malformed(comment.line, comment.column, problem))
            if match is None or problem is not None:
                continue
            kind = match.group(1)
            directive = Directive(kind, ids, comment.line, comment.column)
            if kind == "enable":
                for opened in open_ranges:
                    if opened.end_line is None and (not ids or set(opened.ids) & set(ids)):
                        opened.end_line = comment.line
                open_ranges = [d for d in open_ranges if d.end_line is None]
            elif kind == "disable":
                open_ranges.append(directive)
            elif kind == "disable-next-line":
                target = source.next_line_with_node(comment.line)
                directive.target_line = target
                if target is not None:
                    directive.pointers = tuple(set(source.pointers_at_line(target)))
            directives.append(directive)
        return cls(directives, malformed)

    def suppresses(self, rule_id: str, line: int, pointer: str) -> bool:
        hit = False
        for directive in self.directives:
            if directive.kind == "enable" or (directive.ids and rule_id not in directive.ids):
                continue
            if _covers(directive, line, pointer):
                directive.used = True
                hit = True
        return hit


def _problem(text: str, is_directive: bool, ids: tuple[str, ...]) -> str | None:
    """What keeps a comment that looks like a suppression from being one; None when it is
    one, or does not look like one."""
    wrong = [i for i in ids if not _RULE_ID.fullmatch(i) and _RULE_ID.fullmatch(i.upper())]
    if wrong:
        return f"rule ids are upper case: write {', '.join(i.upper() for i in wrong)}"
    if is_directive or not _LOOKS_LIKE.match(text):
        return None
    keyword, _, rest = text.lstrip("#").strip().partition(":")
    if keyword != "toolsel":
        return f"write `toolsel:` in lower case, not `{keyword}:`"
    verb = rest.strip().split(" ")[0] if rest.strip() else ""
    return f"unknown suppression `{verb}`; use one of {', '.join(KINDS)}"


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
