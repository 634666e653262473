"""Run the decoders over transcript files and pair what they find: `replay_paths` is the
entry point. Files stream line by line; memory grows with the number of open calls and
distinct ids, not with file size."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from toolsel.acyclic import gc_paused
from toolsel.registry.model import DEFAULT_PARENT_TASK_TOOLS, Permission, Registry
from toolsel.replay.checks import RegistryChecker
from toolsel.replay.events import UNKNOWN, Result
from toolsel.replay.formats import DECODERS, detect, fast
from toolsel.replay.lines import Progress, Reading, Unreadable, expand_inputs, read_objects, shape
from toolsel.replay.matcher import CopyLog, Listener, Matcher, OpenCall, seconds_between
from toolsel.replay.memory import RunMemory
from toolsel.replay.report import (
    FileReport,
    PackedReports,
    ReplayResult,
    Subagent,
    ToolEvent,
    Totals,
    UnreadTools,
    build_report,
    pack,
    pack_compact,
    unpack,
)
from toolsel.replay.unread import tool_content
from toolsel.validate import InputValidator

if TYPE_CHECKING:
    from toolsel.replay.parallel import SettledChunk
    from toolsel.replay.stats import UsageTotals
    from toolsel.replay.window import CallWindow

EventSink = Callable[[ToolEvent], None]


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
) -> ReplayResult:
    """Replay every transcript under `paths` (checking calls against `registry` when given),
    then link Claude Code sub-agent files to the Task call that launched them. `prompts`
    (`toolsel learn`) is told of each human message and each call and its outcome.

    `jobs` processes read files at once (see `toolsel.replay.parallel`); the answer is the
    same for any number. `since` (a POSIX time) skips files last modified before it.
    Each file's report is added to the usage totals and the summary as it comes, and kept
    as `keep` says: memory grows with the files kept, not with the files read. With
    `window`, only the calls whose own time is in it are counted per tool (`stats`)."""
    from toolsel.replay.parallel import parallel_compact, use_pool

    inputs = expand_since(paths, since)
    options = _Options(registry, permission, input_format, allow_unknown, window)
    gathered = _Gathered(keep)
    if keep == "compact" and prompts is None and use_pool(inputs, jobs):
        # workers pack the reports and sum the totals: this process makes the copy pass
        for chunk in parallel_compact(
            inputs, options, on_event=on_event, progress=progress, jobs=jobs
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
    from toolsel.replay.parallel import parallel_prompts, use_pool

    inputs = expand_since(paths, since)
    if use_pool(inputs, jobs):
        parallel_prompts(inputs, prompts, progress=progress, jobs=jobs)
        return
    for path in inputs:
        mined = prompts.fork()
        replay_file(path, prompts=mined, progress=progress)
        prompts.join(mined)


def usage_paths(
    paths: list[str],
    *,
    on_event: EventSink | None = None,
    progress: Progress | None = None,
    jobs: int = 1,
    since: float | None = None,
    window: CallWindow | None = None,
) -> UsageTotals:
    """What `toolsel stats` counts of every transcript under `paths`: the usage totals
    `replay_paths` gathers, and nothing else. With `jobs` > 1, each worker sends its files'
    usage already summed, rather than their reports (`parallel.parallel_usage`)."""
    from toolsel.replay.parallel import parallel_usage, use_pool
    from toolsel.replay.stats import UsageTotals

    inputs = expand_since(paths, since)
    options = _Options(None, None, None, (), window)
    if use_pool(inputs, jobs):
        return parallel_usage(inputs, options, on_event=on_event, progress=progress, jobs=jobs)
    totals = UsageTotals()
    for report in _reports(
        inputs, options, on_event=on_event, progress=progress, prompts=None, jobs=1
    ):
        totals.add(report)
    return totals


class _Gathered:
    """The reports of a run, added one by one: the usage totals, the summary, the agent
    links, and the reports themselves as `keep` says."""

    def __init__(self, keep: Keep) -> None:
        from toolsel.replay.stats import UsageTotals

        self.keep = keep
        self.usage, self.totals, self.links = UsageTotals(), Totals(), _AgentLinks()
        self.full: list[FileReport] = []
        self.packed: list[bytes] = []

    def add(self, report: FileReport) -> None:
        # the file's index: the files added so far
        self.links.add(self.usage.files, report.task_agents, report.agent_id, report.calls)
        self.usage.add(report)
        self.totals.add(report)
        if self.keep == "full":
            self.full.append(report)
        elif self.keep == "compact":
            self.packed.append(pack_compact(report))

    def add_chunk(self, chunk: SettledChunk) -> None:
        """A chunk of files, read in a worker and packed there (`parallel_compact`): the
        totals `add` gives each of its reports."""
        assert self.keep == "compact"
        first = self.usage.files
        for at, task_agents, agent_id, calls in chunk.links:
            self.links.add(first + at, task_agents, agent_id, calls)
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
                report = unpack(packed[i])
                packed[i] = pack(replace(report, subagents=report.subagents + tuple(links)))
            files = PackedReports(packed)
        return ReplayResult(
            files, usage=self.usage, totals=self.totals.counts, found=frozenset(self.totals.found)
        )


def expand_since(paths: list[str], since: float | None) -> list[str]:
    """The transcript files under `paths` (`expand_inputs`), less those last modified
    before `since`; a usage error when that leaves none."""
    inputs = expand_inputs(paths)
    if since is None:
        return inputs
    inputs = [path for path in inputs if not modified_before(path, since)]
    if not inputs:
        from toolsel.errors import UsageError
        from toolsel.replay.window import iso

        raise UsageError(
            f"no transcript file was modified since {iso(since)}",
            hint="pass an earlier --since, or none",
        )
    return inputs


def modified_before(path: str, since: float) -> bool:
    """Whether a file was last modified before `since` (stdin and unreadable files never
    are: reading them says what is wrong)."""
    if path == "-":
        return False
    try:
        return Path(path).stat().st_mtime < since
    except OSError:
        return False


@dataclass(frozen=True, slots=True)
class _Options:
    """How each file is replayed, the same in every process."""

    registry: Registry | None
    permission: Permission | None
    input_format: str | None
    allow_unknown: tuple[str, ...]
    window: CallWindow | None = None


def _reports(
    inputs: list[str],
    options: _Options,
    *,
    on_event: EventSink | None,
    progress: Progress | None,
    prompts: PromptSink | None,
    jobs: int,
) -> Iterator[FileReport]:
    """Each file's report, in path order; a call copied from an earlier file is marked."""
    from toolsel.replay.parallel import parallel_reports, use_pool

    if use_pool(inputs, jobs) and prompts is None:  # a listener sees every file, in order
        yield from parallel_reports(
            inputs, options, on_event=on_event, progress=progress, jobs=jobs
        )
        return
    # several files: remember call ids and sessions across them, to recognise copies
    memory = RunMemory() if len(inputs) > 1 else None
    validators: dict[str, InputValidator] = {}  # one per tool for the whole run, not per file
    for path in inputs:
        yield replay_file(
            path,
            registry=options.registry,
            permission=options.permission,
            on_event=on_event,
            input_format=options.input_format,
            progress=progress,
            memory=memory,
            prompts=prompts,
            allow_unknown=options.allow_unknown,
            validators=validators,
            window=options.window,
        )


def replay_file(
    path: str,
    *,
    registry: Registry | None = None,
    permission: Permission | None = None,
    on_event: EventSink | None = None,
    input_format: str | None = None,
    progress: Progress | None = None,
    memory: RunMemory | CopyLog | None = None,
    prompts: PromptSink | None = None,
    allow_unknown: tuple[str, ...] = (),
    validators: dict[str, InputValidator] | None = None,
    event_numbers: list[int] | None = None,
    window: CallWindow | None = None,
    watch: Callable[[Matcher], Listener] | None = None,
) -> FileReport:
    """Replay one transcript; `input_format` forces a decoder instead of detecting one per
    line. With `memory` (what the files replayed before it in the same run left), calls
    copied from those files are counted, and this file's calls and sessions are added; a
    `CopyLog` instead records what deciding that takes (in a worker process), and
    `event_numbers` gets the number of the call each event is about. `watch` is given the
    file's matcher and returns one more listener (`toolsel.events`)."""
    from toolsel.inputs import display_path

    shown = display_path(path)  # the name every output carries (bad bytes as \xNN)
    formats: Counter[str] = Counter()
    checker = (
        RegistryChecker(
            registry,
            permission,
            validators=validators,
            allow_unknown=allow_unknown,
            transcript_format=lambda: formats.most_common(1)[0][0] if formats else None,
        )
        if registry is not None
        else None
    )
    listeners: list[Listener] = [] if checker is None else [checker]
    if on_event is not None:
        listeners.append(_EventStream(shown, on_event, event_numbers))
    if prompts is not None:
        prompts.start_file(shown)
        listeners.append(prompts)
    matcher = Matcher(parent_task_tools(registry).__contains__, listeners, memory, window)
    if watch is not None:
        matcher.listeners += (watch(matcher),)
    if prompts is not None:
        matcher.on_human = prompts.human
    reading = Reading()
    unknown = _UnknownRecords()
    handlers = matcher.handlers
    with gc_paused():
        for number, obj, decoded in _decoded(path, reading, progress, input_format):
            if decoded is None:
                unknown.record(obj, number, reading)
                continue
            name, events = decoded
            formats[name] += 1
            if not events:
                if events is UNKNOWN:
                    unknown.record(obj, number, reading)
                elif not matcher.calls and not matcher.results:
                    # read as nothing, while nothing was found
                    unknown.suspect(fast.value(obj), number)
                continue
            for event in events:
                handler = handlers.get(type(event))
                if handler is not None:
                    handler(event, number)
    if isinstance(memory, RunMemory):
        memory.remember(matcher.started_calls, matcher.sessions)
    return build_report(
        shown,
        reading,
        matcher,
        formats,
        checker.finish() if checker is not None else (),
        unknown.skipped,
        unknown.unread_tools(matcher),
    )


def _decoded(
    path: str, reading: Reading, progress: Progress | None, input_format: str | None
) -> Iterator[fast.Record]:
    """Each readable line's number, value and decoding: detected per line through the fast
    path (`formats.fast`), or by the decoder `input_format` names."""
    if input_format is None:
        return fast.records(path, reading, progress, detect)
    decode = DECODERS[input_format]
    return ((n, obj, decode(obj)) for n, obj in read_objects(path, reading, progress))


class _UnknownRecords:
    """Records no decoder read. One of an unknown type with no tool content is skipped (and
    counted); one holding tool-call-like content is reported, as is any record read as
    nothing that holds some when its file yields no call or result at all (a format taken
    for another); a value with no record type is unreadable."""

    def __init__(self) -> None:
        self.skipped = 0
        self.unread: list[UnreadTools] = []
        self.suspects: list[UnreadTools] = []
        self.scans = 0

    def record(self, obj: object, number: int, reading: Reading) -> None:
        where = tool_content(obj)
        if where is not None:
            self.unread.append(UnreadTools(number, where))
        elif type(obj) is dict and any(type(obj.get(key)) is str for key in RECORD_TYPE_KEYS):
            self.skipped += 1
        else:
            reading.unreadable.append(
                Unreadable(number, f"valid JSON in an unexpected shape ({shape(obj)})")
            )

    def suspect(self, obj: object, number: int) -> None:
        if self.scans < MAX_SUSPECT_SCANS and len(self.suspects) < MAX_SUSPECTS:
            self.scans += 1
            where = tool_content(obj)
            if where is not None:
                self.suspects.append(UnreadTools(number, where))

    def unread_tools(self, matcher: Matcher) -> list[UnreadTools]:
        if matcher.calls or matcher.results:
            return self.unread
        return sorted(self.unread + self.suspects, key=lambda u: u.line)


#: Keys that name a record's type in the formats toolsel knows of (`type`; Antigravity's
#: `event`): an object with one is a record of a type not known yet, not garbage.
RECORD_TYPE_KEYS = ("type", "event")
#: Records read as nothing are checked for tool content only until a file yields a call (a
#: format taken for another shows it within its first records): this many at most, and this
#: many kept.
MAX_SUSPECT_SCANS = 20_000
MAX_SUSPECTS = 1000


def parent_task_tools(registry: Registry | None) -> frozenset[str]:
    """Tools that launch a sub-agent: Task, Agent, SubAgent, and any the registry marks."""
    if registry is None:
        return DEFAULT_PARENT_TASK_TOOLS
    return DEFAULT_PARENT_TASK_TOOLS | {t.name for t in registry.tools if t.launches_subagent}


class PromptSink(Listener, Protocol):
    """What `toolsel learn` is told while transcripts are replayed: a matcher listener
    (each call as it starts and as it is answered) that also hears each file start and each
    human message."""

    def start_file(self, path: str) -> None: ...

    def human(self, text: str, line: int) -> None: ...


@runtime_checkable
class ForkingPromptSink(PromptSink, Protocol):
    """A prompt sink that can be split across worker processes: `fork` gives an empty one
    for a file, `join` adds what one found (each file's, in path order)."""

    def fork(self) -> ForkingPromptSink: ...

    def join(self, other: ForkingPromptSink) -> None: ...


class _EventStream:
    """A listener that turns the matcher's moves into `tool_start`/`tool_result` events."""

    def __init__(self, path: str, sink: EventSink, numbers: list[int] | None = None) -> None:
        self.path = path
        self.sink = sink
        self.numbers = numbers  # a worker's: the call each event is about, for the copy pass

    def _emit(self, kind: str, opened: OpenCall, line: int, result: Result | None = None) -> None:
        call = opened.call
        latency = None
        if result is not None and call.timestamp and result.timestamp:
            seconds = seconds_between(call.timestamp, result.timestamp)
            latency = round(seconds * 1000, 3) if seconds is not None else None
        if self.numbers is not None:
            self.numbers.append(opened.number)
        self.sink(
            ToolEvent(
                event=kind,
                id=call.id,
                tool=call.tool,
                parent=opened.parent,
                parent_rule=opened.parent_rule,
                turn_id=call.message_id,
                file=self.path,
                line=line,
                is_error=None if result is None else result.is_error,
                latency_ms=latency,
                copied=opened.copied,
                at=call.timestamp,
            )
        )

    def started(self, opened: OpenCall, line: int) -> None:
        self._emit("tool_start", opened, line)

    def enriched(self, opened: OpenCall, line: int) -> None:
        self._emit("tool_start", opened, line)  # an enriched call is announced again

    def paired(self, opened: OpenCall, result: Result, line: int) -> None:
        self._emit("tool_result", opened, line, result)


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
