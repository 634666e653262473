"""The cases of a case file: what one case says, a problem reading one, and what a file holds."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from toolsel.errors import UsageError
from toolsel.ranking.options import Method
from toolsel.registry.permission import Permission

#: The keys of a case, as documented.
CASE_KEYS = ("prompt", "expect", "forbid", "top_k", "method", "permission", "id", "name")
#: `expect: none` (the word, not a list): no tool should serve the prompt. A tool named
#: `none` is written as a list, `expect: [none]`.
NONE = "none"
#: The other spelling (what `eval` read before): read, with a note.
OTHER_SPELLING = {"query": "prompt", "expected": "expect"}
EXAMPLE_LINE = '{"prompt": "deploy the billing service", "expect": ["deploy_service"]}'
EXAMPLE_YAML = "cases: [{prompt: deploy the billing service, expect: [deploy_service]}]"


class CaseFormat(StrEnum):
    YAML = "YAML"
    JSON = "JSON"
    JSON_LINES = "JSON lines"


EXPECTED = {
    CaseFormat.JSON_LINES: f"one case a line, like {EXAMPLE_LINE}",
    CaseFormat.YAML: f"`cases:` with a list of cases, like `{EXAMPLE_YAML}`",
    CaseFormat.JSON: f'a list of cases or {{"cases": [...]}}, like [{EXAMPLE_LINE}]',
}


@dataclass(frozen=True, slots=True)
class Case:
    """One labelled case; an optional key that was not given is None (the command's
    default applies)."""

    prompt: str
    expect: tuple[str, ...] = ()
    forbid: tuple[str, ...] = ()
    top_k: int | None = None
    method: Method | None = None
    permission: Permission | None = None
    id: str | None = None
    name: str | None = None
    line: int = 0
    column: int = 0
    #: `expect: none`: no tool should serve this prompt (a search that always answers
    #: offers a wrong tool); `expect` is then empty
    expect_none: bool = False

    @property
    def label(self) -> str:
        """What a report calls it: its name, else its id, else its prompt."""
        return self.name or self.id or self.prompt


@dataclass(frozen=True, slots=True)
class CaseProblem:
    """A case (or part of the file) that could not be read: where, and why."""

    line: int
    column: int  # 1-based; 0 when the whole line is meant
    message: str

    def located(self, file: str) -> str:
        """`file:line:col: message`."""
        column = f":{self.column}" if self.column else ""
        return f"{file}:{self.line}{column}: {self.message}"


@dataclass(frozen=True, slots=True)
class CaseFile:
    """What a case file holds: the readable cases, the problems (in file order), and notes
    (the other spelling used, a format other than the name says)."""

    file: str
    format: CaseFormat
    cases: tuple[Case, ...]
    problems: tuple[CaseProblem, ...] = ()
    notes: tuple[str, ...] = ()
    #: keys the readable cases use, as written (`forbid`, `query`, ...): what a command ignores
    keys: frozenset[str] = frozenset()

    @property
    def listed_problems(self) -> tuple[CaseProblem, ...]:
        """The problems a command lists before refusing the file: all but the first, which
        the refusal names (`refusal`)."""
        return self.problems[1:]

    def refusal(self, why: str) -> UsageError:
        """One line refusing the file: its first problem with its place, how many there
        are, and `why` that stops the command."""
        if not self.problems:
            return UsageError(f"{self.file}: {why}")
        count = len(self.problems)
        of = f" (the first of {count} problems)" if count > 1 else ""
        return UsageError(f"{self.problems[0].located(self.file)}{of}; {why}")

    def no_cases(self, what: str = "") -> UsageError:
        """The file has no case a command can use: `what` (default: none could be read),
        and the format expected."""
        return self.refusal(f"{what or 'no case could be read'}; expected {EXPECTED[self.format]}")


class NotCases(UsageError):
    """The file holds no cases at all: a registry, a transcript, binary data, nothing."""
