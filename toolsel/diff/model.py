"""What `toolsel diff` finds: frozen changes, each classed breaking, risky or safe."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class ChangeClass(StrEnum):
    """How a change affects agents and what they stored (calls, transcripts, approvals)."""

    BREAKING = "breaking"  # something valid under OLD fails or is invalid under NEW
    RISKY = "risky"  # behaviour or selection changes without failing, or undecidable
    SAFE = "safe"  # NEW accepts a superset; nothing observable changes

    @property
    def level(self) -> int:
        return {"safe": 0, "risky": 1, "breaking": 2}[self.value]


@dataclass(frozen=True, slots=True)
class SchemaDelta:
    """One difference between two schemas, at `pointer` (relative to the schema root)."""

    rule: str
    request: ChangeClass
    response: ChangeClass
    message: str
    pointer: str
    old: Any = None
    new: Any = None
    #: what tells this change from another of the same rule at the same pointer (the
    #: parameter a `required` list gained or lost), for its fingerprint
    subject: str = ""


class Category(StrEnum):
    IDENTITY = "identity"
    PARAMS = "params"
    SELECTION = "selection"
    SECURITY = "security"
    LIFECYCLE = "lifecycle"
    GRAPH = "graph"
    LOADING = "loading"
    COST = "cost"


class FailOn(StrEnum):
    """`--fail-on`: the least severe class that exits 1."""

    BREAKING = "breaking"
    RISKY = "risky"
    ANY = "any"
    NONE = "none"

    def fails(self, change_class: ChangeClass) -> bool:
        if self is FailOn.NONE:
            return False
        if self is FailOn.ANY:
            return True
        return change_class.level >= ChangeClass(self.value).level


@dataclass(frozen=True, slots=True)
class DiffRule:
    id: str
    name: str
    category: Category
    summary: str  # the class (or classes) it reports, in words


@dataclass(frozen=True, slots=True)
class Side:
    """Where a change is, on one side: the file position and pointer, and the value there."""

    file: str
    line: int
    column: int
    pointer: str
    value: Any = None
    revision: bool = False  # read from git (`REF:path`), not from a file on disk

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "pointer": self.pointer,
            "value": self.value,
        }


@dataclass(frozen=True, slots=True)
class Evidence:
    """A measured consequence of a change: a replayed call that NEW rejects (TD901), or
    a golden case whose expected tool left the top k (TD202)."""

    kind: str  # "transcript" | "case"
    file: str
    line: int
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "file": self.file, "line": self.line, "message": self.message}


@dataclass(frozen=True, slots=True)
class Change:
    rule: str
    change_class: ChangeClass
    category: Category
    tool: str  # the tool's name in NEW (its OLD name when it was removed)
    message: str
    old: Side | None = None
    new: Side | None = None
    old_tool: str | None = None  # the OLD name, when it differs (a rename)
    pointer: str = ""  # where inside the tool's definition, e.g. /parameters/properties/x
    fingerprint: str = ""
    evidence: tuple[Evidence, ...] = ()
    hint: str | None = None  # e.g. "looks like a rename of X" (never lowers the class)
    #: for a change with no NEW side (a removed tool): where NEW's file still is, at the
    #: list the tool left, so an annotation lands on a file of the pull request
    anchor: Side | None = None

    @property
    def reported_at(self) -> Side | None:
        """Where an annotation goes: NEW's side, else the anchor in NEW, else OLD's side
        unless it is a git revision (`REF:path`, a file no pull request shows)."""
        if self.new is not None or self.anchor is not None:
            return self.new or self.anchor
        return self.old if self.old is not None and not self.old.revision else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "class": self.change_class.value,
            "category": self.category.value,
            "tool": self.tool,
            "old_tool": self.old_tool,
            "message": self.message,
            "pointer": self.pointer,
            "old": self.old.to_dict() if self.old else None,
            "new": self.new.to_dict() if self.new else None,
            "fingerprint": self.fingerprint,
            "evidence": [e.to_dict() for e in self.evidence],
            "hint": self.hint,
            "anchor": self.anchor.to_dict() if self.anchor else None,
        }


@dataclass(frozen=True, slots=True)
class IgnoreWarning:
    """An ignore-file entry that no longer earns its place: expired, or matching nothing."""

    file: str
    line: int
    message: str


@dataclass(frozen=True, slots=True)
class DiffResult:
    old: str  # how the OLD side was given, e.g. "main:registries/"
    new: str
    changes: tuple[Change, ...]
    fail_on: FailOn = FailOn.BREAKING
    ignored: tuple[Change, ...] = ()
    warnings: tuple[IgnoreWarning, ...] = ()
    old_tools: int = 0
    new_tools: int = 0
    evidence_notes: tuple[str, ...] = field(default=())  # e.g. "12 calls replayed"

    def counts(self) -> dict[str, int]:
        counted = Counter(c.change_class.value for c in self.changes)
        return {cls.value: counted.get(cls.value, 0) for cls in ChangeClass}

    @property
    def failed(self) -> bool:
        return any(self.fail_on.fails(c.change_class) for c in self.changes)

    def summary(self) -> dict[str, Any]:
        return {
            **self.counts(),
            "ignored": len(self.ignored),
            "old_tools": self.old_tools,
            "new_tools": self.new_tools,
            "failed": self.failed,
            "fail_on": self.fail_on.value,
        }
