"""Examples from labelled cases, and mined from transcripts: each successful call gets the
user's request that led to it (a sub-agent's calls, the prompt of the Task that launched
them); tool results and system text are never examples."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolsel.acyclic import gc_paused
from toolsel.learn.model import Example
from toolsel.registry.model import DEFAULT_PARENT_TASK_TOOLS

if TYPE_CHECKING:
    from toolsel.replay.driver import ForkingPromptSink
    from toolsel.replay.events import Call, Result
    from toolsel.replay.matcher import OpenCall
    from toolsel.replay.report import FileReport


# -- from cases -------------------------------------------------------------------------


def from_cases(paths: Sequence[Path]) -> tuple[list[Example], list[str], list[str]]:
    """(examples, problems, notes) from case files (`toolsel.cases`: YAML, JSON or JSON
    lines): each expected tool of a case gets its prompt. Each case that could not be read
    is one problem (`file:line:col: what`); the others are still used. Raises UsageError
    for a file with no readable case."""
    from toolsel.cases import read_cases

    examples: list[Example] = []
    problems: list[str] = []
    notes: list[str] = []
    for path in paths:
        found = read_cases(path)
        if not found.cases:
            raise found.no_cases()
        notes += found.notes
        problems += [problem.located(found.file) for problem in found.problems]
        for case in found.cases:
            source = f"{found.file}:{case.line}"
            examples += [Example(tool, case.prompt, source) for tool in case.expect]
    return examples, problems, notes


# -- from transcripts ---------------------------------------------------------------------


def from_transcripts(
    paths: list[str],
    *,
    jobs: int = 1,
    since: float | None = None,
    progress: Callable[[int], None] | None = None,
    pool: int | None = None,
) -> Mined:
    """The examples mined with the replay readers (`jobs` processes at once; files last
    modified before `since` skipped). With `pool`, each tool keeps its `pool` most frequent
    prompts (`Miner.join`), so memory is bounded whatever the archive."""
    from toolsel.replay.driver import mine_paths

    miner = Miner(pool)
    mine_paths(paths, miner, jobs=jobs, since=since, progress=progress)
    return miner.mined()


@dataclass(frozen=True, slots=True)
class Mined:
    """What mining transcripts found: the examples (by tool, each tool's in the order first
    seen), the successful calls seen and those no human prompt preceded, and per tool the
    distinct prompts a bounded pool let go and the calls they had led to (a prompt let go
    and seen again is counted again)."""

    examples: list[Example]
    calls: int = 0
    without_prompt: int = 0
    pruned: dict[str, int] = field(default_factory=dict)
    pruned_calls: dict[str, int] = field(default_factory=dict)


#: `--max-per-tool` when transcripts are mined and none is given: an archive's distinct
#: prompts are unbounded, an overlay of every one of them is no help to `rank`, and all of
#: them would have to be kept in memory to write it (cases alone keep all by default).
TRANSCRIPT_MAX_PER_TOOL = 50
#: The pool of distinct prompts each tool keeps while mining, for `--max-per-tool N`: at
#: least this many, and this many per example wanted (`pool_size`).
POOL_FLOOR = 1000
POOL_PER_EXAMPLE = 20


def pool_size(max_per_tool: int) -> int | None:
    """The prompts each tool's pool is pruned down to (`Miner.join`), for choosing
    `max_per_tool` examples: enough that the diverse choice has plenty to choose from;
    None (every distinct prompt kept) when all are wanted."""
    return max(POOL_FLOOR, POOL_PER_EXAMPLE * max_per_tool) if max_per_tool else None


def keep_most_frequent(prompts: dict[str, list[Any]], n: int) -> tuple[dict[str, list[Any]], int]:
    """(the `n` prompts with the highest counts, ties to the first seen, in the order they
    were first seen; the calls the others had led to). Each prompt's value ends with its
    count."""
    if len(prompts) <= n:
        return prompts, 0
    counts = [value[-1] for value in prompts.values()]
    least = sorted(counts, reverse=True)[n - 1]  # the count of the n-th most frequent
    ties = n - sum(1 for count in counts if count > least)  # how many of that count stay
    chosen: dict[str, list[Any]] = {}
    let_go = 0
    for text, value in prompts.items():
        count = value[-1]
        if count > least or (count == least and ties > 0):
            chosen[text] = value
            ties -= count == least
        else:
            let_go += count
    return chosen, let_go


class Miner:
    """A replay listener that remembers, per file, the last human prompt, each call's
    prompt (a sub-agent call: its Task's prompt), and keeps those of successful calls.
    Files are mined each by a `fork` and added with `join`, in path order, in one process
    or several: pruning happens only in `join`, so at the same points for any `--jobs`."""

    def __init__(self, pool: int | None = None) -> None:
        #: tool -> prompt -> [file, line where first seen, how many calls it led to]:
        #: memory grows with distinct prompts, not with calls; with `pool`, a tool's
        #: prompts are cut to the `pool` most frequent each time they reach 2 x `pool`
        self.found: dict[str, dict[str, list[Any]]] = {}
        self.pool = pool
        self.calls = 0
        self.without_prompt = 0
        self.pruned: Counter[str] = Counter()  # tool -> distinct prompts let go
        self.pruned_calls: Counter[str] = Counter()  # tool -> the calls they had led to
        self.prompt: tuple[str, int] | None = None
        self.file = ""
        self.pending: dict[str, tuple[str, int] | None] = {}  # call id -> its prompt
        self.task_prompts: dict[str, tuple[str, int]] = {}  # Task call id -> its prompt

    def __reduce__(self) -> tuple[Any, ...]:
        # what a worker sends back for a file: what it found, not the listener's state
        return (_mined, (self.found, self.calls, self.without_prompt))

    def fork(self) -> Miner:
        """An empty miner, to mine one file with."""
        return Miner()

    def join(self, other: ForkingPromptSink) -> None:
        """Add what another miner found (the next file's, in path order); then each tool
        whose prompts reached 2 x `pool` keeps its `pool` most frequent (`keep_most_frequent`),
        and what it let go is counted."""
        assert isinstance(other, Miner)
        for tool, prompts in other.found.items():
            pool = self.found.setdefault(tool, {})
            for text, value in prompts.items():
                seen = pool.get(text)
                if seen is None:
                    pool[text] = value  # the other miner is not used again
                else:
                    seen[2] += value[2]
            if self.pool is not None:
                self._prune(tool, 2 * self.pool - 1)
        self.calls += other.calls
        self.without_prompt += other.without_prompt

    def mined(self) -> Mined:
        """What every file joined so far holds (`finish`ed), as examples."""
        self.finish()
        with gc_paused():  # one object per distinct prompt, no cycles
            examples = [
                Example(tool, text, f"{file}:{line}", count)
                for tool, prompts in self.found.items()
                for text, (file, line, count) in prompts.items()
            ]
        return Mined(
            examples,
            self.calls,
            self.without_prompt,
            pruned=dict(self.pruned),
            pruned_calls=dict(self.pruned_calls),
        )

    def finish(self) -> None:
        """After the last join: each tool keeps its `pool` most frequent prompts."""
        if self.pool is not None:
            for tool in self.found:
                self._prune(tool, self.pool)

    def _prune(self, tool: str, limit: int) -> None:
        """Over `limit` prompts, the tool keeps its `pool` most frequent."""
        prompts = self.found[tool]
        if self.pool is not None and len(prompts) > limit:
            self.found[tool], let_go = keep_most_frequent(prompts, self.pool)
            self.pruned[tool] += len(prompts) - self.pool
            self.pruned_calls[tool] += let_go

    def file_read(self, report: FileReport) -> None:
        return None  # a line that could not be read holds no prompt to mine

    def start_file(self, path: str) -> None:
        self.file, self.prompt = path, None
        self.pending.clear()
        self.task_prompts.clear()

    def human(self, text: str, line: int) -> None:
        if text.strip():
            self.prompt = (text, line)

    def started(self, opened: OpenCall, line: int) -> None:
        call, parent = opened.call, opened.parent
        prompt = self.task_prompts.get(parent) if parent else self.prompt
        self.pending[call.id] = prompt
        self._task_prompt(call)

    def enriched(self, opened: OpenCall, line: int) -> None:
        self._task_prompt(opened.call)  # a Task's prompt may arrive in a later line

    def _task_prompt(self, call: Call) -> None:
        if call.tool not in DEFAULT_PARENT_TASK_TOOLS:
            return  # only a sub-agent launch carries a prompt (and arguments decode lazily)
        arguments = call.arguments
        task = arguments.get("prompt") if isinstance(arguments, dict) else None
        if isinstance(task, str) and task.strip():
            self.task_prompts[call.id] = (task, 0)

    def paired(self, opened: OpenCall, result: Result, line: int) -> None:
        tool = opened.call.tool
        prompt = self.pending.pop(opened.call.id, None)
        if result.is_error:
            return
        self.calls += 1
        if prompt is None:
            self.without_prompt += 1
            return
        text, at = prompt
        prompts = self.found.get(tool)
        if prompts is None:
            prompts = self.found[tool] = {}
        seen = prompts.get(text)
        if seen is None:
            prompts[text] = [self.file, at or line, 1]
        else:
            seen[2] += 1


def _mined(found: dict[str, dict[str, list[Any]]], calls: int, without_prompt: int) -> Miner:
    miner = Miner()
    miner.found, miner.calls, miner.without_prompt = found, calls, without_prompt
    return miner
