"""Lint's value types: severities, rules, raw hits and located findings."""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable, Iterator
from dataclasses import KW_ONLY, dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from toolsel.registry.model import ProblemKind

if TYPE_CHECKING:
    from toolsel.lint.context import LintContext


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return _RANKS[self]


_RANKS = {Severity.ERROR: 3, Severity.WARNING: 2, Severity.INFO: 1}


class FailOn(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    NEVER = "never"

    def fails(self, severity: Severity) -> bool:
        return self is not FailOn.NEVER and severity.rank >= Severity(self.value).rank


@dataclass(frozen=True, slots=True)
class Hit:
    """What a rule reports before the engine locates, filters and fingerprints it."""

    message: str
    file: str
    pointer: str
    tool: str | None = None
    severity: Severity | None = None  # None: the rule's configured severity
    key: bool = False  # point at the key rather than the value
    line: int | None = None  # set only when the pointer cannot say where (parse errors)
    column: int | None = None


CheckFunction = Callable[["LintContext"], Iterator[Hit]]


@dataclass(frozen=True, slots=True)
class Rule:
    """A rule's contract: an id, a default severity, a summary, examples that fail and pass,
    and where its findings come from: a `check` function over the registry (its docstring is
    the `--explain` text), or the loader's problems of one kind (`problem`, explained by
    `explanation`). An `after` rule runs once the others are done and suppressions applied
    (it checks the suppressions). `uses` names shared resources the context builds lazily,
    started early where that saves time.

    Written as a plain assignment after the check function (`TS302 = Rule(..., check=fn)`),
    not as a decorator: mutmut skips decorated functions, and every rule body should be
    mutated."""

    id: str
    name: str
    severity: Severity | None  # None: off unless selected
    summary: str
    _: KW_ONLY
    check: CheckFunction | None = field(default=None, repr=False, compare=False)
    profile: str | None = None
    bad: str = ""
    good: str = ""
    #: the model APIs whose documented rule this checks (empty: every API, a portable rule);
    #: with explicit targets it runs only when one of them is targeted (issue 34)
    providers: tuple[str, ...] = ()
    problem: ProblemKind | None = None
    after: bool = False
    uses: tuple[str, ...] = ()
    explanation: str = ""
    config_only: bool = False  # only configuration can turn it off, not a comment or the tool

    @property
    def targets(self) -> tuple[str, ...]:
        """The targets the examples need: a profile rule's own."""
        return (self.profile,) if self.profile else ()

    @property
    def doc(self) -> str:
        text = self.explanation or (self.check.__doc__ if self.check else None) or self.summary
        return inspect.cleandoc(text)

    @property
    def default_level(self) -> str:
        return self.severity.value if self.severity else "off"


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str
    severity: Severity
    message: str
    file: str
    line: int
    column: int
    tool: str | None
    pointer: str
    fingerprint: str

    def to_dict(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "severity": self.severity.value,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "tool": self.tool,
            "pointer": self.pointer,
            "fingerprint": self.fingerprint,
        }


def fingerprint(rule_id: str, file: str, tool: str | None, pointer: str) -> str:
    """Stable across line moves: hashes the rule, file, tool and JSON pointer, not the line."""
    text = "|".join((rule_id, file.replace("\\", "/"), tool or "", pointer))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class LintResult:
    findings: tuple[Finding, ...]
    files: tuple[str, ...]
    rules: tuple[Rule, ...]  # the rules that ran, for SARIF metadata
    fail_on: FailOn = FailOn.ERROR
    #: findings below the minimum severity asked for (`-q`, `--min-severity`): not shown in
    #: any format, still counted for `--fail-on`
    hidden: tuple[Finding, ...] = ()
    #: info findings shown as one count per rule, not one line each (the human format's
    #: default, so that what breaks leads); counted like the shown ones
    folded: tuple[Finding, ...] = ()

    def count(self, severity: Severity) -> int:
        return sum(1 for f in (*self.findings, *self.folded) if f.severity is severity)

    @property
    def failed(self) -> bool:
        return any(
            self.fail_on.fails(f.severity) for f in (*self.findings, *self.hidden, *self.folded)
        )

    def folding_info(self) -> LintResult:
        """The same result with its info findings folded into counts per rule."""
        from dataclasses import replace

        info = tuple(f for f in self.findings if f.severity is Severity.INFO)
        if not info:
            return self
        kept = tuple(f for f in self.findings if f.severity is not Severity.INFO)
        return replace(self, findings=kept, folded=self.folded + info)

    def at_least(self, minimum: Severity) -> LintResult:
        """The same result showing only findings of `minimum` severity or above."""
        from dataclasses import replace

        shown = tuple(f for f in self.findings if f.severity.rank >= minimum.rank)
        hidden = tuple(f for f in self.findings if f.severity.rank < minimum.rank)
        return replace(self, findings=shown, hidden=self.hidden + hidden)

    def summary(self) -> dict[str, int]:
        return {
            "error": self.count(Severity.ERROR),
            "warning": self.count(Severity.WARNING),
            "info": self.count(Severity.INFO),
            "files": len(self.files),
        }
