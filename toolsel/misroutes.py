"""Where the agent picked the wrong tool (`toolsel stats --misroutes`).

A *misroute* is a call that failed (an error result) or came back empty (a result of 0
bytes of text: an empty string or list), followed within `window` calls by a successful,
non-empty call of a different tool for the same step: after the same human request (a
sub-agent's calls: the same Task), with no new request in between, and started after the
failure was answered (a call issued beside the failed one, in the same batch, is no
answer to it). The failed tool is the *loser*, the tool that worked the *winner*.

A failure that only says how the command it ran exited ("Exit code 2": a shell ran the
tests and they failed) is no failure of the tool: the tool did its job, and what follows
(an Edit that fixes the code) is the next piece of work, not a better tool.

Each failure counts once: a later success of the same tool (a retry that worked) settles
it, as does the first different tool that works; a failure of the same tool again in the
same step continues the same chain. A result whose size the reader does not measure
counts as non-empty; so does an empty result of a tool that acts (a permission above
read: `mkdir` in a shell has nothing to say). A tool's permission is the registry's, else
that of the agent clients' built-in catalogs (`Bash` runs commands, `Read` reads).

The tool that worked must have done the failed call's job, not the next one (the
labelled false positives of docs/commands.md, "Misroutes"):

- when both calls name what they work on (`toolsel.targets`: a path, a pattern, a short
  query), they name one thing in common; a call on something else is another step;
- an edit (a tool whose permission is `write`) after a failed look-up or command is the
  fix that follows it (the tests failed, then the code is edited), unless the failed call
  was an edit too;
- a look-up (permission `read`) after a failed edit is what the edit asked for first
  ("File has not been read yet"), not a better tool; one of the same target settles the
  failure (any edit after it is the edit done, not a better tool);
- an empty result of a call whose arguments are only prose (a `think`) is a note.

With a registry, `rank` (hybrid) is asked, for each occurrence's request, whether it puts
the winner first, in its top 5, and above the loser.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolsel.acyclic import gc_paused
from toolsel.replay.stats import UnreadableFile

#: The first line of a failure that only reports how a command exited: Claude Code's
#: "Exit code 1", Codex's `"exit_code": 1` metadata.
_EXIT_STATUS = re.compile(r'^exit (?:code|status):? -?\d+$|"exit_code":\s*-?\d', re.IGNORECASE)

if TYPE_CHECKING:
    from toolsel.registry.model import Registry
    from toolsel.registry.permission import Permission
    from toolsel.replay.driver import ForkingPromptSink
    from toolsel.replay.events import Result
    from toolsel.replay.matcher import OpenCall
    from toolsel.replay.report import FileReport

#: Calls after a failure in which a different tool that works makes it a misroute.
DEFAULT_WINDOW = 3
#: Occurrences (file:line) listed per pair; every one is counted.
DEFAULT_SHOWN = 10
RANK_TOP = 5


@dataclass(frozen=True, slots=True)
class Occurrence:
    file: str
    line: int  # the failed call's line
    winner_line: int  # the line of the call that worked


@dataclass(frozen=True, slots=True)
class RankCheck:
    """What `rank` does with the requests of a pair's occurrences that had one."""

    prompted: int  # occurrences with a request (the others cannot be ranked)
    winner_first: int  # rank puts the winner first
    winner_in_top: int  # the winner is in rank's top `RANK_TOP`
    winner_above_loser: int  # the winner ranks above the loser (the loser may be unranked)


@dataclass(frozen=True, slots=True)
class MisroutePair:
    loser: str
    winner: str
    count: int
    empty: int  # of those, the loser came back empty rather than with an error
    occurrences: tuple[Occurrence, ...]  # the first `shown`, in path order
    rank: RankCheck | None  # None without a registry
    #: the requests that led to the failed calls (secrets masked), each with its count,
    #: most first
    requests: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class MisrouteReport:
    pairs: tuple[MisroutePair, ...]  # most occurrences first
    files: int
    calls: int  # answered calls seen
    failed_calls: int  # of those, errors and empty results
    exit_failures: int  # errors that only report a command's exit status (not misroutes)
    window: int
    registry: bool  # the pairs were ranked against a registry
    unreadable: tuple[UnreadableFile, ...] = ()  # files with lines that could not be read

    @property
    def unreadable_lines(self) -> int:
        return sum(u.lines for u in self.unreadable)

    @property
    def misroutes(self) -> int:
        return sum(p.count for p in self.pairs)


# -- the listener ------------------------------------------------------------------------


@dataclass(slots=True)
class _Failure:
    tool: str
    line: int
    answered_line: int
    request: str | None  # the human request before it (a sub-agent's: its Task's prompt)
    empty: bool  # came back empty (not an error)
    targets: frozenset[str]  # what it worked on (`toolsel.targets`)
    age: int = 0  # answered calls of the thread since
    winner: tuple[str, int] | None = None  # the different tool that then worked, its line


@dataclass(slots=True)
class _Found:
    """One pair's findings while files are read."""

    count: int = 0
    empty: int = 0
    occurrences: list[Occurrence] = field(default_factory=list)
    requests: Counter[str] = field(default_factory=Counter)  # request -> occurrences


#: What a finder sent back from a worker carries (`MisrouteFinder.__getstate__`).
_SENT_BACK = (
    "window shown permissions aliases found unreadable files calls failed_calls exit_failures"
).split()


class MisrouteFinder:
    """A replay listener (`replay.driver.mine_paths`) that finds misroutes, file by file,
    each thread (the main one, each sub-agent) on its own. Forks per file; `join` adds a
    file's findings in path order.

    A failure that a different tool answered is held until `window` calls have passed
    since it: a working retry of the failed tool in that time (the other tool was a step
    towards it, as a Read before an Edit) takes it back."""

    def __init__(
        self,
        window: int = DEFAULT_WINDOW,
        shown: int = DEFAULT_SHOWN,
        permissions: Mapping[str, Permission] | None = None,
        aliases: Mapping[str, str] | None = None,
    ) -> None:
        from toolsel.registry.permission import Permission

        self.window = window
        self.shown = shown
        self.permissions = permissions or {}  # tool -> permission (`tool_permissions`)
        self.aliases = aliases or {}  # an older name -> the tool's name (`tool_aliases`)
        # tools whose empty result is no failure, tools that edit, tools that only look up
        self.acting = {t for t, p in self.permissions.items() if p is not Permission.READ}
        self.editing = {t for t, p in self.permissions.items() if p is Permission.WRITE}
        self.reading = {t for t, p in self.permissions.items() if p is Permission.READ}
        self.found: dict[tuple[str, str], _Found] = {}  # (loser, winner) -> findings
        self.files = self.calls = self.failed_calls = self.exit_failures = 0
        self.file = ""
        self.request: str | None = None  # the last human request of the file
        self.call_requests: dict[str, str | None] = {}  # open call id -> its request
        self.task_prompts: dict[str, str] = {}  # Task call id -> the prompt it gave
        self.failures: dict[str | None, list[_Failure]] = {}  # thread -> pending failures
        self.unreadable: list[UnreadableFile] = []

    def __getstate__(self) -> dict[str, Any]:
        # what a worker sends back for a file: what it found, not the listener's state
        self._settle_all()
        return {name: getattr(self, name) for name in _SENT_BACK}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["window"], state["shown"], state["permissions"], state["aliases"])  # type: ignore[misc]
        self.__dict__.update(state)

    def fork(self) -> MisrouteFinder:
        return MisrouteFinder(self.window, self.shown, self.permissions, self.aliases)

    def join(self, other: ForkingPromptSink) -> None:
        assert isinstance(other, MisrouteFinder)
        other._settle_all()  # the file has ended
        for pair, found in other.found.items():
            mine = self.found.setdefault(pair, found)  # the other finder is not used again
            if mine is found:
                continue
            mine.count += found.count
            mine.empty += found.empty
            mine.occurrences.extend(found.occurrences[: self.shown - len(mine.occurrences)])
            mine.requests.update(found.requests)
        self.files += other.files
        self.calls += other.calls
        self.failed_calls += other.failed_calls
        self.exit_failures += other.exit_failures
        self.unreadable += other.unreadable

    def file_read(self, report: FileReport) -> None:
        if report.unreadable:  # its lines are not in the misroutes: say so
            first = report.unreadable[0].line
            self.unreadable.append(UnreadableFile(report.path, len(report.unreadable), first))

    def start_file(self, path: str) -> None:
        self._settle_all()
        self.file, self.request = path, None
        self.files += 1
        self.call_requests.clear()
        self.task_prompts.clear()

    def human(self, text: str, line: int) -> None:
        if text.strip():  # a new step: what the last one left unanswered stays so
            self._settle_all()
            self.request = text

    def started(self, opened: OpenCall, line: int) -> None:
        parent = opened.parent  # a sub-agent's calls answer its Task's prompt
        request = self.task_prompts.get(parent) if parent else self.request
        self.call_requests[opened.call.id] = request
        self._task_prompt(opened)

    def enriched(self, opened: OpenCall, line: int) -> None:
        self._task_prompt(opened)  # a Task's prompt may arrive in a later line

    def _task_prompt(self, opened: OpenCall) -> None:
        from toolsel.registry.model import DEFAULT_PARENT_TASK_TOOLS

        if opened.call.tool not in DEFAULT_PARENT_TASK_TOOLS:
            return  # only a sub-agent launch carries a prompt (and arguments decode lazily)
        arguments = opened.call.arguments
        task = arguments.get("prompt") if isinstance(arguments, dict) else None
        if isinstance(task, str) and task.strip():
            self.task_prompts[opened.call.id] = task

    def paired(self, opened: OpenCall, result: Result, line: int) -> None:
        request = self.call_requests.pop(opened.call.id, None)
        tool = opened.call.tool
        self.calls += 1
        pending = self.failures.setdefault(opened.parent, [])
        for failure in pending:
            failure.age += 1
        self._settle(pending, [f for f in pending if f.age > self.window])
        if result.is_error and _only_exit_status(result):
            self.exit_failures += 1  # the tool did its job: no misroute, and no answer
            return
        if result.is_error or (result.size == 0 and self._looked_up(opened)):
            self.failed_calls += 1
            empty = not result.is_error
            self._failed(
                pending, _Failure(tool, opened.line, line, request, empty, _targets(opened))
            )
            return
        # the failed tool worked after all (under its older name or its new one: itself)
        pending[:] = [f for f in pending if not self._same_tool(f.tool, tool)]
        self._answer(pending, opened)

    def _answer(self, pending: list[_Failure], opened: OpenCall) -> None:
        """The call `opened`, which worked, answers the pending failures whose job it did."""
        tool = opened.call.tool
        targets: frozenset[str] | None = None  # read when a failure may need them
        prepared = []
        for failure in pending:
            # a call issued beside the failed one (before its answer) is no answer to it
            if failure.winner is None and failure.answered_line < opened.line:
                if targets is None:
                    targets = _targets(opened)
                if self._prepares(failure, tool, targets):
                    prepared.append(failure)
                elif self._does_the_job(failure, tool, targets):
                    failure.winner = (tool, opened.line)
        if prepared:  # what the edit asked for is done: the edit that follows is no better tool
            pending[:] = [f for f in pending if all(f is not p for p in prepared)]

    def _prepares(self, failure: _Failure, tool: str, targets: frozenset[str]) -> bool:
        """`tool` looked up what the failed edit works on: what it asked for first."""
        from toolsel.targets import share_target

        return (
            failure.tool in self.editing
            and tool in self.reading
            and share_target(targets, failure.targets)
        )

    def _does_the_job(self, failure: _Failure, tool: str, targets: frozenset[str]) -> bool:
        """`tool`, which worked on `targets`, did what the failed call was for (the module's
        rules)."""
        from toolsel.targets import share_target

        loser_known = failure.tool in self.permissions
        if tool in self.editing and loser_known and failure.tool not in self.editing:
            return False  # the fix after a failed look-up or command
        if failure.tool in self.editing and tool in self.reading:
            return False  # what the edit asked for first
        return not (targets and failure.targets) or share_target(targets, failure.targets)

    def _looked_up(self, opened: OpenCall) -> bool:
        """An empty result fails a look-up: not a tool that acts (`mkdir` has nothing to
        say), nor a call that names nothing to look up, only prose (a thought, a note)."""
        from toolsel.targets import only_prose

        return opened.call.tool not in self.acting and not only_prose(opened.call.arguments)

    def _same_tool(self, first: str, second: str) -> bool:
        return first == second or self.aliases.get(first, first) == self.aliases.get(second, second)

    def _failed(self, pending: list[_Failure], failed: _Failure) -> None:
        for failure in pending:
            if self._same_tool(failure.tool, failed.tool) and failure.winner is None:
                # the same tool failing again: the same chain, from its latest failure
                failure.answered_line, failure.empty = failed.answered_line, failed.empty
                failure.targets |= failed.targets
                failure.age = 0
                return
        pending.append(failed)

    def _settle(self, pending: list[_Failure], due: list[_Failure]) -> None:
        """Record the failures `due` that a different tool answered; forget them all."""
        for failure in due:
            if failure.winner is not None:
                self._record(failure, *failure.winner)
        settled = {id(f) for f in due}
        pending[:] = [f for f in pending if id(f) not in settled]

    def _settle_all(self) -> None:
        for pending in self.failures.values():
            self._settle(pending, list(pending))
        self.failures.clear()

    def _record(self, failure: _Failure, winner: str, line: int) -> None:
        found = self.found.setdefault((failure.tool, winner), _Found())
        found.count += 1
        found.empty += failure.empty
        if len(found.occurrences) < self.shown:
            found.occurrences.append(Occurrence(self.file, failure.line, line))
        if failure.request is not None:
            found.requests[failure.request] += 1


def _targets(opened: OpenCall) -> frozenset[str]:
    from toolsel.targets import call_targets

    return call_targets(opened.call.arguments)


def _only_exit_status(result: Result) -> bool:
    """The failure says only how the command the tool ran exited."""
    from toolsel.replay.failures import error_message

    return _EXIT_STATUS.search(error_message(result.error)) is not None


# -- the report --------------------------------------------------------------------------


def find_misroutes(
    paths: list[str],
    registry: Registry | None = None,
    *,
    window: int = DEFAULT_WINDOW,
    shown: int = DEFAULT_SHOWN,
    jobs: int = 1,
    since: float | None = None,
    progress: Callable[[int], None] | None = None,
) -> MisrouteReport:
    """The misroutes in every transcript under `paths` (`jobs` processes at once; files
    last modified before `since` skipped), each pair checked against `rank` over
    `registry` when one is given."""
    from toolsel.replay.driver import mine_paths

    finder = MisrouteFinder(window, shown, tool_permissions(registry), tool_aliases(registry))
    mine_paths(paths, finder, jobs=jobs, since=since, progress=progress)
    return misroute_report(finder, registry)


def tool_permissions(registry: Registry | None) -> dict[str, Permission]:
    """Each tool's permission: the registry's, else that of the built-in catalogs (`Bash`,
    `Read`, `shell`, ...). A tool in neither is of no known kind: its empty result counts
    as a failure, and any tool may answer it."""
    from toolsel.catalogs import builtin_permissions

    permissions = dict(builtin_permissions())
    if registry is not None:
        permissions.update((t.name, t.permission) for t in registry.tools)
    return permissions


def tool_aliases(registry: Registry | None) -> dict[str, str]:
    """Each older name of a tool (the registry's `aliases`, else the built-in catalogs':
    `MultiEdit` is `Edit`) with the tool's name: an Edit that works after a failed
    MultiEdit is the same tool retried, not a misroute."""
    from toolsel.catalogs import builtin_aliases

    aliases = dict(builtin_aliases())
    if registry is not None:
        for tool in registry.tools:
            aliases.pop(tool.name, None)  # the registry's own tool of that name
            aliases.update((alias, tool.name) for alias in tool.aliases)
    return aliases


def misroute_report(finder: MisrouteFinder, registry: Registry | None) -> MisrouteReport:
    """What `finder` found, as a report: pairs by most occurrences, then by name."""
    orders: Mapping[str, Sequence[str]] = {}
    if registry is not None:
        from toolsel.ranking.core import RankOptions
        from toolsel.ranking.options import Method
        from toolsel.ranking.requests import rank_each_once

        everything = RankOptions(method=Method.HYBRID, top=max(1, len(registry.tools)))
        requests = (r for found in finder.found.values() for r in found.requests)
        orders = rank_each_once(registry, requests, everything)
    with gc_paused():
        pairs = tuple(
            MisroutePair(
                loser,
                winner,
                found.count,
                found.empty,
                tuple(found.occurrences),
                _rank_check(orders, loser, winner, found.requests)
                if registry is not None
                else None,
                _shown_requests(found.requests),
            )
            for (loser, winner), found in sorted(
                finder.found.items(), key=lambda kv: (-kv[1].count, kv[0])
            )
        )
    return MisrouteReport(
        pairs,
        files=finder.files,
        calls=finder.calls,
        failed_calls=finder.failed_calls,
        exit_failures=finder.exit_failures,
        window=finder.window,
        registry=registry is not None,
        unreadable=tuple(finder.unreadable),
    )


def _shown_requests(requests: Counter[str]) -> tuple[tuple[str, int], ...]:
    """A pair's requests as the report shows them: secrets masked (`toolsel.redact`, the
    one path for what toolsel writes), most frequent first."""
    from toolsel.redact import mask_text

    shown: Counter[str] = Counter()
    for text, count in requests.items():
        shown[mask_text(text)] += count
    return tuple(sorted(shown.items(), key=lambda kv: (-kv[1], kv[0])))


def _rank_check(
    orders: Mapping[str, Sequence[str]], loser: str, winner: str, requests: Mapping[str, int]
) -> RankCheck:
    """What `rank` (hybrid, `orders`: each request's order) does with a pair's requests."""
    prompted = first = top = above = 0
    for request, count in requests.items():
        order = orders[request]
        at = {name: n for n, name in enumerate(order)}
        won = at.get(winner)
        prompted += count
        first += count * (won == 0)
        top += count * (won is not None and won < RANK_TOP)
        above += count * (won is not None and won < at.get(loser, len(order)))
    return RankCheck(prompted, first, top, above)
