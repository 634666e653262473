"""Evidence, not only rules: what a change does to recorded calls (TD901, by replaying
transcripts against OLD and NEW in one pass) and to golden prompts (TD202, by ranking
each under OLD and NEW)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from toolsel.diff import RULES
from toolsel.diff.context import fingerprint
from toolsel.diff.model import Change, ChangeClass, Evidence, Side
from toolsel.registry.model import Registry
from toolsel.replay.checks import RegistryChecker
from toolsel.replay.events import Call, Result
from toolsel.replay.matcher import OpenCall
from toolsel.replay.report import Violation
from toolsel.validate import InputValidator


@dataclass(frozen=True, slots=True)
class EvidenceResult:
    changes: tuple[Change, ...]
    note: str


#: What a call's start is checked for; every other violation is about its input.
CALL_RULES = frozenset({"unknown-tool", "deprecated", "permission", "requires", "conflict"})


#: Calls whose input `_OldChecker` keeps to validate under OLD only if NEW rejects them;
#: past this many in one file, it validates at once (memory stays bounded).
MAX_DEFERRED = 100_000


class _OldChecker(RegistryChecker):
    """Checks a call's start against OLD as the replay does against NEW, but validates no
    input in the pass: an input whose tool has the same `parameters` in NEW gets NEW's
    verdict, and any other is kept, to be validated under OLD only if NEW rejects it (TD901
    is a call OLD accepts and NEW rejects). So the evidence costs about one replay."""

    def __init__(self, old: Registry, new: Registry, validators: dict[str, InputValidator]) -> None:
        super().__init__(old, validators=validators)
        self.new = new
        self.same_input: set[str] = set()  # call ids whose input NEW judges as OLD would
        self.deferred: dict[str, tuple[Call, int]] = {}  # call id -> (call, line)
        self._same: dict[str, bool] = {}

    def check_input(
        self, call: Call, line: int, *, deadline: float | None = None
    ) -> list[Violation]:
        same = self._same.get(call.tool)
        if same is None:
            old, new = self.registry.resolve(call.tool), self.new.resolve(call.tool)
            same = self._same[call.tool] = (
                old is not None and new is not None and old.parameters == new.parameters
            )
        if same:
            self.same_input.add(call.id)
            return []
        if len(self.deferred) < MAX_DEFERRED:
            self.deferred[call.id] = (call, line)
            return []
        return super().check_input(call, line, deadline=deadline)

    def rejects(self, call_id: str) -> bool:
        """Whether OLD rejects the input of a deferred call."""
        call, line = self.deferred[call_id]
        return bool(RegistryChecker.check_input(self, call, line))


class _OldChecks:
    """Checks each call against OLD while the replay checks it against NEW: a listener on
    the same pass (`replay_paths(prompts=...)`), one `RegistryChecker` per file."""

    def __init__(self, registry: Registry, new: Registry) -> None:
        self.registry = registry
        self.new = new
        self.checker: _OldChecker | None = None
        self.file = ""
        self.by_file: dict[str, set[tuple[str, str]]] = {}
        self.same_input: dict[str, set[str]] = {}
        self.checkers: dict[str, _OldChecker] = {}  # each file's, for its deferred inputs
        self.validators: dict[str, InputValidator] = {}  # OLD's, shared by every file

    def start_file(self, path: str) -> None:
        self.finish()
        self.file, self.checker = path, _OldChecker(self.registry, self.new, self.validators)

    def finish(self) -> None:
        if self.checker is not None:
            self.by_file[self.file] = {(v.id, v.rule) for v in self.checker.finish()}
            self.same_input[self.file] = self.checker.same_input
            if self.checker.deferred:
                self.checkers[self.file] = self.checker
            self.checker = None

    def human(self, text: str, line: int) -> None:
        pass

    def started(self, opened: OpenCall, line: int) -> None:
        if self.checker is not None:
            self.checker.started(opened, line)

    def enriched(self, opened: OpenCall, line: int) -> None:
        pass

    def paired(self, opened: OpenCall, result: Result, line: int) -> None:
        if self.checker is not None:
            self.checker.paired(opened, result, line)


def transcript_evidence(paths: list[str], old: Registry, new: Registry) -> EvidenceResult:
    """TD901: each recorded call OLD accepts and NEW rejects, one change per tool and reason."""
    from toolsel.replay.driver import replay_paths

    old_checks = _OldChecks(old, new)
    replayed = replay_paths(paths, registry=new, prompts=old_checks)
    old_checks.finish()
    grouped: dict[tuple[str, str], list[Evidence]] = {}
    calls = 0
    for report in replayed.files:
        calls += report.calls
        before = old_checks.by_file.get(report.path, set())
        same_input = old_checks.same_input.get(report.path, set())
        deferred = old_checks.checkers.get(report.path)
        for v in report.violations:
            if (v.id, v.rule) in before or (v.rule not in CALL_RULES and v.id in same_input):
                continue
            if (
                v.rule not in CALL_RULES
                and deferred is not None
                and v.id in deferred.deferred
                and deferred.rejects(v.id)
            ):
                continue  # OLD rejects this input too: not a change's doing
            grouped.setdefault((v.tool, v.rule), []).append(
                Evidence("transcript", report.path, v.line, f"call {v.id}: {v.message}")
            )
    changes = [
        _call_change(new, old, tool, rule, items) for (tool, rule), items in sorted(grouped.items())
    ]
    files = len(replayed.files)
    note = f"replayed {calls} calls in {files} transcript{'s' if files != 1 else ''} against OLD and NEW"
    return EvidenceResult(tuple(changes), note)


def _call_change(
    new: Registry, old: Registry, tool: str, rule: str, items: list[Evidence]
) -> Change:
    n = len(items)
    message = f"{n} recorded call{'s' if n != 1 else ''} to {tool!r} valid under OLD now fail{'s' if n == 1 else ''} under NEW ({rule})"
    return _breaking("TD901", old, new, tool, message, f"/calls/{rule}", n, None, tuple(items))


def _breaking(
    rule: str,
    old: Registry,
    new: Registry,
    tool: str,
    message: str,
    pointer: str,
    before: object,
    after: object,
    evidence: tuple[Evidence, ...],
) -> Change:
    """A breaking change that evidence shows, located at `tool`'s name in OLD and NEW."""
    return Change(
        rule=rule,
        change_class=ChangeClass.BREAKING,
        category=RULES[rule].category,
        tool=tool,
        message=message,
        old=_side(old, tool),
        new=_side(new, tool),
        pointer=pointer,
        fingerprint=fingerprint(rule, tool, pointer, before, after),
        evidence=evidence,
    )


def _side(registry: Registry, name: str) -> Side | None:
    tool = registry.get(name)
    if tool is None:
        return None
    where = registry.locate_field(tool, "name")
    return Side(where.file, where.line, where.column, where.pointer, name)


@dataclass(frozen=True, slots=True)
class _Case:
    name: str
    prompt: str
    expect: tuple[str, ...]
    forbid: tuple[str, ...]
    top_k: int
    method: str
    line: int


def case_evidence(path: Path, old: Registry, new: Registry, *, top_k: int = 5) -> EvidenceResult:
    """TD202: rank each golden prompt under OLD and NEW; every expected tool that leaves the
    top k (and every forbidden one that enters it), with its rank before and after."""
    from toolsel.inputs import display_path

    shown = display_path(path)
    cases = _read_cases(path, top_k)
    old_rank, new_rank = _ranker(old), _ranker(new)
    changes: list[Change] = []
    for case in cases:
        before = old_rank(case)
        after = new_rank(case)
        for name in case.expect:
            b, a = before.get(name), after.get(name)
            if b is not None and b <= case.top_k and (a is None or a > case.top_k):
                changes.append(_case_change(new, old, shown, case, name, b, a, "left"))
        for name in case.forbid:
            b, a = before.get(name), after.get(name)
            if a is not None and a <= case.top_k and (b is None or b > case.top_k):
                changes.append(_case_change(new, old, shown, case, name, b, a, "entered"))
    n = len(cases)
    return EvidenceResult(
        tuple(changes), f"ranked {n} golden case{'s' if n != 1 else ''} under OLD and NEW"
    )


def _case_change(
    new: Registry,
    old: Registry,
    file: str,
    case: _Case,
    tool: str,
    before: int | None,
    after: int | None,
    moved: str,
) -> Change:
    what = "expected" if moved == "left" else "forbidden"
    ranks = f"rank {_rank(before)} -> {_rank(after)}"
    message = f"{what} tool {tool!r} {moved} the top {case.top_k} for {case.name!r}: {ranks}"
    evidence = Evidence("case", file, case.line, f"{case.prompt!r}: {ranks}")
    pointer = f"/cases/{case.name}"
    return _breaking("TD202", old, new, tool, message, pointer, case.prompt, moved, (evidence,))


def _rank(rank: int | None) -> str:
    return str(rank) if rank is not None else "not ranked"


def _read_cases(path: Path, top_k: int) -> list[_Case]:
    """The cases of a case file (`toolsel test` and `toolsel eval` read the same files)."""
    from toolsel.cases import read_cases

    found = read_cases(path)
    if not found.cases:
        raise found.no_cases()
    if found.problems:
        raise found.refusal("fix the case file before using it as evidence")
    return [
        _Case(
            c.label,
            c.prompt,
            c.expect,
            c.forbid,
            c.top_k or top_k,
            c.method.value if c.method else "auto",
            c.line,
        )
        for c in found.cases
    ]


def _ranker(registry: Registry) -> Callable[[_Case], dict[str, int]]:
    from toolsel.ranking.core import rank_index, rank_options
    from toolsel.ranking.index import build_index
    from toolsel.ranking.prepared import PreparedIndex

    index = PreparedIndex(build_index(registry), bulk=True)

    def ranks(case: _Case) -> dict[str, int]:
        options = rank_options(method=case.method, top=max(case.top_k, 50), include_deprecated=True)
        ranked = rank_index(index, case.prompt, options)
        return {r.name: i for i, r in enumerate(ranked.results, start=1)}

    return ranks
