"""Replay every transcript a command names (`replay_paths`), and what `stats` and `learn`
take of them (`usage_paths`, `mine_paths`): file after file in path order in this process
(`file.replay_file`), or in worker processes (`parallel`), with the same answer."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Literal

from toolsel.registry.model import Permission, Registry
from toolsel.replay import parallel
from toolsel.replay.file import EventSink, PromptSink, ReplayOptions, replay_file
from toolsel.replay.file import ForkingPromptSink as ForkingPromptSink  # `learn` takes it here
from toolsel.replay.lines import Progress, expand_since
from toolsel.replay.memory import RunMemory
from toolsel.replay.packing import Flat, PackedReports, pack_compact
from toolsel.replay.parallel import ChunkOutcome, use_pool
from toolsel.replay.report import FileReport, ReplayResult, Subagent, Totals
from toolsel.replay.totals import UsageTotals
from toolsel.validate import InputValidator

if TYPE_CHECKING:
    from toolsel.replay.window import CallWindow

#: What `replay_paths` keeps of each file's report: all of it; its counts and findings with
#: each tool's median latency, packed (`PackedReports`, about 0.5 kB a file); or nothing
#: (usage statistics and mining need no report).
Keep = Literal["full", "compact", "none"]


def replay_paths(
    paths: list[str],
    *,
    registry: Registry | None = None,
    permission: Permission | None = None,
    on_event: EventSink | None = None,
    input_format: str | None = None,
    progress: Progress | None = None,
    prompts: PromptSink | None = None,
    allow_unknown: tuple[str, ...] = (),
    jobs: int = 1,
    since: float | None = None,
    keep: Keep = "full",
    window: CallWindow | None = None,
    usage: bool = True,
) -> ReplayResult:
    """Replay every transcript under `paths` (checking calls against `registry` when given),
    then link Claude Code sub-agent files to the Task call that launched them. `prompts`
    (`toolsel learn`) is told of each human message and each call and its outcome.

    `jobs` processes read files at once (see `toolsel.replay.parallel`); the answer is the
    same for any number. `since` (a POSIX time) skips files last modified before it.
    Each file's report is added to the usage totals and the summary as it comes, and kept
    as `keep` says: memory grows with the files kept, not with the files read. With
    `window`, only the calls whose own time is in it are counted per tool (`stats`).
    Without `usage`, the result has no usage totals (`ReplayResult.usage` is None): only
    the human and HTML reports show them, and summing them costs every call."""
    inputs = expand_since(paths, since)
    options = ReplayOptions(registry, permission, input_format, allow_unknown, window)
    gathered = _Gathered(keep, usage)
    if keep == "compact" and prompts is None and use_pool(inputs, jobs):
        # workers pack the reports and sum the totals: this process makes the copy pass
        for chunk in parallel.parallel_compact(
            inputs,
            options,
            on_event=on_event,
            progress=progress,
            jobs=jobs,
            usage=usage,
        ):
            gathered.add_chunk(chunk)
        return gathered.result()
    for report in _reports(
        inputs, options, on_event=on_event, progress=progress, prompts=prompts, jobs=jobs
    ):
        gathered.add(report)
    return gathered.result()


def mine_paths(
    paths: list[str],
    prompts: ForkingPromptSink,
    *,
    jobs: int = 1,
    since: float | None = None,
    progress: Progress | None = None,
) -> None:
    """Tell `prompts` (`toolsel learn`) what every transcript under `paths` holds, and
    nothing else: no report, no totals, no copy pass (a miner does not look at copies).
    Each file is mined by a fresh `prompts.fork()` joined to `prompts` at the file's end,
    in path order, in one process or in `jobs` (`parallel.parallel_prompts`): so `prompts`
    sees the same joins, in the same order, for any `jobs`. `since` as for `replay_paths`."""
    inputs = expand_since(paths, since)
    if use_pool(inputs, jobs):
        parallel.parallel_prompts(inputs, prompts, progress=progress, jobs=jobs)
        return
    for path in inputs:
        mined = prompts.fork()
        mined.file_read(replay_file(path, prompts=mined, progress=progress))
        prompts.join(mined)


def usage_paths(
    paths: list[str],
    *,
    on_event: EventSink | None = None,
    progress: Progress | None = None,
    jobs: int = 1,
    since: float | None = None,
    window: CallWindow | None = None,
    mine: ForkingPromptSink | None = None,
) -> UsageTotals:
    """What `toolsel stats` counts of every transcript under `paths`: the usage totals
    `replay_paths` gathers, and nothing else. With `jobs` > 1, each worker sends its files'
    usage already summed, rather than their reports (`parallel.parallel_usage`). With
    `mine` (`stats --ledger`), the same read tells it each file, as `mine_paths` does: a
    fresh `mine.fork()` per file, joined to `mine` in path order, for any `jobs`."""
    inputs = expand_since(paths, since)
    options = ReplayOptions(window=window)
    if use_pool(inputs, jobs):
        return parallel.parallel_usage(
            inputs, options, on_event=on_event, progress=progress, jobs=jobs, mine=mine
        )
    totals = UsageTotals()
    for report in _reports(
        inputs, options, on_event=on_event, progress=progress, prompts=None, jobs=1, mine=mine
    ):
        totals.add(report)
    return totals


def _reports(
    inputs: list[str],
    options: ReplayOptions,
    *,
    on_event: EventSink | None,
    progress: Progress | None,
    prompts: PromptSink | None,
    jobs: int,
    mine: ForkingPromptSink | None = None,
) -> Iterator[FileReport]:
    """Each file's report, in path order; a call copied from an earlier file is marked.
    `prompts` hears every file; `mine` has each file told to its own fork, then joined."""
    if use_pool(inputs, jobs) and prompts is None:  # a listener sees every file, in order
        yield from parallel.parallel_reports(
            inputs, options, on_event=on_event, progress=progress, jobs=jobs
        )
        return
    # several files: remember call ids and sessions across them, to recognise copies
    memory = RunMemory() if len(inputs) > 1 else None
    validators: dict[str, InputValidator] = {}  # one per tool for the whole run, not per file
    for path in inputs:
        mined = mine.fork() if mine is not None else None
        report = options.replay(
            path,
            on_event=on_event,
            progress=progress,
            memory=memory,
            prompts=mined or prompts,
            validators=validators,
        )
        if mine is not None and mined is not None:
            mined.file_read(report)
            mine.join(mined)
        yield report


class _Gathered:
    """The reports of a run, added one by one: the usage totals, the summary, the agent
    links, and the reports themselves as `keep` says."""

    def __init__(self, keep: Keep, usage: bool = True) -> None:
        self.keep, self.files = keep, 0
        self.usage = UsageTotals() if usage else None
        self.totals, self.links = Totals(), _AgentLinks()
        self.full: list[FileReport] = []
        self.packed: list[bytes] = []

    def add(self, report: FileReport) -> None:
        # the file's index: the files added so far
        self.links.add(self.files, report.task_agents, report.agent_id, report.calls)
        self.files += 1
        if self.usage is not None:
            self.usage.add(report)
        self.totals.add(report)
        if self.keep == "full":
            self.full.append(report)
        elif self.keep == "compact":
            self.packed.append(pack_compact(report))

    def add_chunk(self, chunk: ChunkOutcome) -> None:
        """A chunk of files, read in a worker and packed there, after the copy pass
        (`parallel_compact`): the totals `add` gives each of its reports."""
        assert self.keep == "compact" and chunk.totals is not None
        first = self.files
        self.files += len(chunk.packed)
        for at, task_agents, agent_id, calls in chunk.links:
            self.links.add(first + at, task_agents, agent_id, calls)
        if self.usage is not None:
            assert chunk.usage is not None
            self.usage.add_chunk(chunk.usage, chunk.copies, chunk.used)
        self.totals.merge(chunk.totals, chunk.copied)
        self.packed.extend(chunk.packed)

    def result(self) -> ReplayResult:
        linked = self.links.links()
        self.totals.counts["subagents"] += sum(len(links) for links in linked.values())
        files: Sequence[FileReport] = ()
        if self.keep == "full":
            files = tuple(
                replace(f, subagents=f.subagents + tuple(linked[i])) if i in linked else f
                for i, f in enumerate(self.full)
            )
        elif self.keep == "compact":
            packed = self.packed
            for i, links in linked.items():
                owner = Flat(packed[i])
                owner.add_subagents(links)
                packed[i] = owner.pack()
            files = PackedReports(packed)
        return ReplayResult(
            files, usage=self.usage, totals=self.totals.counts, found=self.totals.found
        )


class _AgentLinks:
    """Claude Code 2.x: a sub-agent file's agentId names the Task result that launched it.
    Gathered file by file (the last Task result naming an agent owns it), linked at the
    end, each owner's links in the order of the agent files."""

    def __init__(self) -> None:
        self.owners: dict[str, tuple[int, tuple[str, str]]] = {}
        self.agents: list[tuple[str, int]] = []  # (agent id, calls) of each agent file

    def add(
        self,
        index: int,
        task_agents: Mapping[str, tuple[str, str]],
        agent_id: str | None,
        calls: int,
    ) -> None:
        """The file at `index`: its Task results' agents, its own agent id and calls."""
        for agent, task in task_agents.items():
            self.owners[agent] = (index, task)
        if agent_id:
            self.agents.append((agent_id, calls))

    def links(self) -> dict[int, list[Subagent]]:
        """The owner's index -> the agent files it launched."""
        links: dict[int, list[Subagent]] = {}
        for agent, calls in self.agents:
            if agent in self.owners:
                owner, (task_id, task_tool) = self.owners[agent]
                links.setdefault(owner, []).append(
                    Subagent(task_id, task_tool, calls, "agent-file")
                )
        return links
