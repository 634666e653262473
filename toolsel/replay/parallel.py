"""Replay files in worker processes, with the same answer as one process.

Each worker replays whole files on its own, and records what deciding copies takes (a
`CopyLog`: each call's id, tool and message id, hashed, the file's sessions, each call's
outcome).
Which calls copy an earlier file's cannot be known in a worker, because it depends on the
files before. So the parent takes the reports in path order and makes the copy pass
itself, with the run's one `RunMemory`, exactly as one process does while reading: the
calls it finds copied are marked, their counts moved to the `copied` columns and their
latencies taken back, and their events marked before they are passed on.

`stats` needs no report, only the usage totals: there a worker sums a whole chunk of
files itself, as if no call were a copy, and sends those sums with each file's copy log
(`parallel_usage`); the parent makes the same copy pass and takes the copies it finds back
out of the sums (`UsageTotals.add_chunk`), so that its share is the copy pass alone.
`replay` (which keeps each file's report packed) gets the same sums, the report totals
and each report already packed (`parallel_compact`): the parent unpacks only the reports
of files with copies, to move them. `export` needs each file's rows only
(`parallel_rows`), `learn` each file's prompts (`parallel_prompts`).

Files go to workers in chunks, each to whichever worker is free, and only a few chunks are
out at a time, so the parent holds a bounded number of reports whatever the number of
files; it puts them back in path order.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
from array import array
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import partial
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from toolsel.replay.matcher import CopyLog
from toolsel.replay.memory import NO_MESSAGE, RunMemory, copies, message_key_of
from toolsel.replay.report import (
    FileReport,
    ToolEvent,
    ToolStats,
    Totals,
    flatten,
    pack_compact,
    unflatten,
    unpack,
)

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from toolsel.events.rows import FileEvents
    from toolsel.replay.driver import EventSink, ForkingPromptSink, _Options
    from toolsel.replay.lines import Progress
    from toolsel.replay.stats import FileCopies, UsageTotals

#: Fewer files than this are read in the one process: starting workers costs more.
MIN_FILES = 64
#: Files a worker is sent at once, at most; and chunks out per worker at a time: enough
#: work queued (about 0.1 s a chunk) that a busy machine's scheduler does not stall the pipeline.
CHUNK = 256
AHEAD = 4


def available_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def use_pool(inputs: list[str], jobs: int) -> bool:
    """Whether worker processes are worth starting (stdin is read in this one)."""
    return jobs > 1 and len(inputs) >= MIN_FILES and "-" not in inputs


@dataclass(slots=True)
class FileOutcome:
    """One file, replayed in a worker: its report before the copy pass, and what that
    pass needs."""

    report: FileReport
    log: PackedLog
    events: list[tuple[Any, ...]] | None  # in order (`_flat`), when events are wanted
    event_numbers: list[int] | None  # the call each event is about

    def __reduce__(self) -> tuple[Any, ...]:
        # the report as plain tuples (`flatten`): the parent unpickles every file's
        return (_outcome, (flatten(self.report), self.log, self.events, self.event_numbers))


def _outcome(
    report: tuple[Any, ...],
    log: PackedLog,
    events: list[tuple[Any, ...]] | None,
    numbers: list[int] | None,
) -> FileOutcome:
    return FileOutcome(unflatten(report), log, events, numbers)


_event_fields = attrgetter(*ToolEvent.__dataclass_fields__)
_COPIED = tuple(ToolEvent.__dataclass_fields__).index("copied")


def _flat(events: list[ToolEvent] | None) -> list[tuple[Any, ...]] | None:
    """Events as plain tuples, to pickle: a slotted dataclass unpickles field by field in
    Python, which cost `stats --format html` most of its main process's time."""
    return None if events is None else [_event_fields(event) for event in events]


@dataclass(slots=True)
class PackedLog:
    """A worker's `CopyLog` as the parent reads it: numbers in arrays, which cross
    processes as bytes. Per call: the hashes of its id and tool (`hasher`'s), its message
    id's key (`message_key_of`) and how many of `sessions` were known then; whether its
    result was an error (-1: none came) and the index of its latency (-1: none); for
    `stats`, the latency itself (NaN: none)."""

    opens: array[int]  # 4 per call
    closes: array[int]  # 2 per call
    sessions: list[str]
    uncounted: set[int]
    latencies: array[float] | None = None  # 1 per call

    def __reduce__(self) -> tuple[Any, ...]:  # its fields, not its slots' state: faster
        fields = (self.opens, self.closes, self.sessions, self.uncounted, self.latencies)
        return PackedLog, fields


def pack_opens(
    opens: Iterable[tuple[str, str, str | None, int]], hasher: Callable[[str], int]
) -> array[int]:
    """Each opened call (id, tool, message id, sessions known then) as `PackedLog.opens`
    holds it."""
    packed: array[int] = array("q")
    for call_id, tool, message_id, known in opens:
        message = NO_MESSAGE if message_id is None else message_key_of(hasher(message_id))
        packed.extend((hasher(call_id), hasher(tool), message, known))
    return packed


def pack_log(
    log: CopyLog, hasher: Callable[[str], int], report: FileReport | None = None
) -> PackedLog:
    """`log` packed; with the file's `report`, each call's latency in it beside."""
    opens = pack_opens(log.opens, hasher)
    closes = array("q", [-1, -1]) * len(log.opens)
    latencies = None if report is None else array("d", [math.nan]) * len(log.opens)
    for number, (error, latency) in log.closes.items():
        closes[2 * number] = error
        closes[2 * number + 1] = latency
        if latencies is not None and report is not None and latency >= 0:
            if number in log.uncounted:  # tallied apart, in no report
                continue
            latencies[number] = report.tools[log.opens[number][1]].latencies[latency]
    return PackedLog(opens, closes, log.sessions, log.uncounted, latencies)


def blake2b_64(text: str) -> int:
    """A 64-bit hash that is the same in every process (`hash` is salted per process)."""
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


#: A string whose `hash` a worker compares with the parent's: the same salt, or not.
PROBE = "toolsel.replay.parallel"
#: Whether forked workers hash with `hash` (salted as the parent is); else, and where
#: workers are spawned (a fresh salt each), with blake2b.
FORK_HASH = True


#: What a worker sends back of each chunk:
#:   reports  each file's report and copy log (`FileOutcome`s);
#:   usage    `stats`: the chunk's usage totals and each file's copy log (`ChunkUsage`);
#:   compact  `replay`: those, its totals and each file's report packed as `replay` keeps
#:            it (`CompactChunk`);
#:   mine     `learn`: each file's prompts only (`parallel_prompts`);
#:   export   `export`: each file's rows (`parallel_rows`).
Mode = Literal["reports", "usage", "compact", "mine", "export"]


@dataclass(frozen=True, slots=True)
class _Work:
    options: _Options
    events: bool
    prompts: ForkingPromptSink | None  # an empty one, to start each file from
    probe: int | None  # the parent's hash(PROBE) when workers share its salt (fork)
    mode: Mode = "reports"

    def hasher(self) -> Callable[[str], int]:
        """`hash` where every process salts it alike (forked workers), else blake2b."""
        return hash if self.probe is not None else blake2b_64


_work: _Work | None = None  # a worker's, set once when it starts


def _start_worker(work: _Work) -> None:
    import signal

    global _work
    _work = work
    if work.probe is not None and hash(PROBE) != work.probe:
        raise RuntimeError("a forked worker salts str hashes unlike its parent")
    # Ctrl-C is the parent's to handle (it stops the pool): a worker that took it too
    # would print its traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _replay_chunk(paths: list[str]) -> Answer:
    """Each file's outcome; for `stats` and `replay`, the chunk's usage totals instead of
    the reports (no call known for a copy), and each file's copy log and events (see
    `Mode`)."""
    from toolsel.replay.driver import replay_file
    from toolsel.replay.stats import UsageTotals

    work = _work
    assert work is not None
    options, mode = work.options, work.mode
    hasher = work.hasher()
    validators: dict[str, object] = {}
    outcomes: list[FileOutcome] = []
    usage = UsageTotals(bounded=False)  # the parent bounds the pairs, file after file
    totals = Totals()
    logs: list[PackedLog] = []
    heard: list[list[tuple[Any, ...]] | None] = []
    about: list[list[int] | None] = []
    packed: list[bytes] = []
    links: list[AgentParts] = []
    for index, path in enumerate(paths):
        log = CopyLog()
        events: list[ToolEvent] | None = [] if work.events else None
        numbers: list[int] | None = [] if work.events else None
        report = replay_file(
            path,
            registry=options.registry,
            permission=options.permission,
            on_event=events.append if events is not None else None,
            input_format=options.input_format,
            memory=log,
            allow_unknown=options.allow_unknown,
            validators=validators,  # type: ignore[arg-type]
            event_numbers=numbers,
            window=options.window,
        )
        if mode == "reports":
            outcomes.append(FileOutcome(report, pack_log(log, hasher), _flat(events), numbers))
            continue
        usage.add(report)
        logs.append(pack_log(log, hasher, report))
        heard.append(_flat(events))
        about.append(numbers)
        if mode == "compact":
            totals.add(report)
            packed.append(pack_compact(report))
            if report.task_agents or report.agent_id:
                links.append((index, report.task_agents, report.agent_id, report.calls))
    if mode == "reports":
        return outcomes
    if mode == "usage":
        return usage, logs, heard, about
    return CompactChunk(usage, logs, heard, about, totals, packed, links)


def parallel_reports(
    inputs: list[str],
    options: _Options,
    *,
    on_event: EventSink | None,
    progress: Progress | None,
    jobs: int,
) -> Iterator[FileReport]:
    """Each file's report in path order, read by `jobs` worker processes; the copy pass
    runs here, in order (see the module's docstring)."""
    work = _work_for(options, on_event, None)
    settle = _Settle(RunMemory(), work.hasher(), on_event)
    for paths, answer in _outcomes(inputs, work, jobs):
        outcomes = cast("list[FileOutcome]", answer)  # mode `reports`
        for path, outcome in zip(paths, outcomes, strict=True):
            yield settle(outcome)
            if progress is not None:
                progress(_size(path))


def parallel_usage(
    inputs: list[str],
    options: _Options,
    *,
    on_event: EventSink | None,
    progress: Progress | None,
    jobs: int,
) -> UsageTotals:
    """What `stats` counts of every file, read by `jobs` worker processes. Each sends the
    usage totals of a chunk of files, summed as if no call were a copy, and the copy log
    of each file: this process only makes the copy pass, in path order, and takes the
    copies it finds back out of the chunk's totals (`UsageTotals.add_chunk`)."""
    from toolsel.replay.stats import UsageTotals

    work = replace(_work_for(options, on_event, None), mode="usage")
    settle = _SettleChunk(RunMemory(), work.hasher(), on_event)
    totals = UsageTotals()
    for paths, answer in _outcomes(inputs, work, jobs):
        assert isinstance(answer, tuple)
        usage, logs, events, numbers = answer
        found, tools = settle(usage, logs, events, numbers)
        totals.add_chunk(
            usage, _found_copies(logs, found, tools), partial(map, tools.used, logs, found)
        )
        _tell(progress, paths)
    return totals


def parallel_compact(
    inputs: list[str],
    options: _Options,
    *,
    on_event: EventSink | None,
    progress: Progress | None,
    jobs: int,
) -> Iterator[SettledChunk]:
    """What `replay` gathers of every file, read by `jobs` worker processes, chunk by chunk
    in path order. Each worker sends a chunk's usage totals and report totals, summed as if
    no call were a copy, and each file's report packed as `replay` keeps it
    (`report.pack_compact`): this process makes the copy pass, and only a file with copies
    has its report unpacked, its copies moved (`_compact_with_copies`) and packed again."""
    work = replace(_work_for(options, on_event, None), mode="compact")
    hasher = work.hasher()
    settle = _SettleChunk(RunMemory(), hasher, on_event)
    for paths, answer in _outcomes(inputs, work, jobs):
        assert isinstance(answer, CompactChunk)
        logs = answer.logs
        found, tools = settle(answer.usage, logs, answer.events, answer.numbers)
        packed = answer.packed
        for at, copied in enumerate(found):
            if copied:
                packed[at] = _compact_with_copies(packed[at], logs[at], copied, hasher)
        yield SettledChunk(
            answer.usage,
            _found_copies(logs, found, tools),
            partial(map, tools.used, logs, found),
            answer.totals,
            sum(map(len, found)),
            packed,
            answer.links,
        )
        _tell(progress, paths)


@dataclass(slots=True)
class _SettleChunk:
    """The copy pass over a chunk's files, in the parent, in path order: which calls of
    each file are copies; their events passed on, marked. `hasher` is the workers'."""

    memory: RunMemory
    hasher: Callable[[str], int]
    on_event: EventSink | None

    def __call__(
        self,
        usage: UsageTotals,
        logs: list[PackedLog],
        events: list[list[tuple[Any, ...]] | None],
        numbers: list[list[int] | None],
    ) -> tuple[list[set[int]], _ToolNames]:
        found = [copied_calls(log, self.memory) for log in logs]
        if self.on_event is not None:
            for file_events, file_numbers, copied in zip(events, numbers, found, strict=True):
                _pass_on(self.on_event, file_events or [], file_numbers or [], copied)
        return found, _ToolNames(usage.calls, self.hasher)


def _found_copies(
    logs: list[PackedLog], found: list[set[int]], tools: _ToolNames
) -> list[FileCopies]:
    return [_copies(log, copied, tools) for log, copied in zip(logs, found, strict=True) if copied]


def _tell(progress: Progress | None, paths: list[str]) -> None:
    if progress is not None:
        for path in paths:
            progress(_size(path))


def _work_for(
    options: _Options, on_event: EventSink | None, prompts: ForkingPromptSink | None
) -> _Work:
    fork = os.name == "posix"
    return _Work(
        options, on_event is not None, prompts, hash(PROBE) if fork and FORK_HASH else None
    )


#: A file's part in the sub-agent links (`driver._AgentLinks`): its place in its chunk, its
#: Task results' agents, its own agent id and its calls.
AgentParts = tuple[int, Mapping[str, tuple[str, str]], str | None, int]


@dataclass(slots=True)
class CompactChunk:
    """What a worker sends of a chunk of files for `replay` (mode `compact`): as for
    `stats` (`ChunkUsage`), with the chunk's report totals (`Totals`), each file's report
    packed as `replay` keeps it, and the parts of the files that sub-agent links need.
    No call is known for a copy in any of it."""

    usage: UsageTotals
    logs: list[PackedLog]
    events: list[list[tuple[Any, ...]] | None]
    numbers: list[list[int] | None]
    totals: Totals
    packed: list[bytes]
    links: list[AgentParts]

    def __reduce__(self) -> tuple[Any, ...]:
        fields = (
            self.usage, self.logs, self.events, self.numbers, self.totals, self.packed, self.links
        )  # fmt: skip
        return CompactChunk, fields


@dataclass(frozen=True, slots=True)
class SettledChunk:
    """A chunk of files after the copy pass, as `driver._Gathered.add_chunk` adds it: the
    worker's usage and report totals, with the copies to take back (`copies`, `used`, as
    `UsageTotals.add_chunk` takes them; `copied` calls in all), and each file's packed
    report, with its copies moved."""

    usage: UsageTotals
    copies: list[FileCopies]
    used: Callable[[], Iterable[dict[str, int]]]
    totals: Totals
    copied: int
    packed: list[bytes]
    links: list[AgentParts]


#: What a worker sends of a chunk of files for `stats`: their usage totals (no call known
#: for a copy), and each file's copy log, and its events (as `_flat` tuples) and the call
#: each is about, when they are wanted.
ChunkUsage = tuple[
    "UsageTotals", list[PackedLog], list[list[tuple[Any, ...]] | None], list[list[int] | None]
]
#: What a worker sends back of a chunk, as its mode says (`Mode`).
Answer = (
    list[FileOutcome] | ChunkUsage | CompactChunk | list["ForkingPromptSink"] | list["FileEvents"]
)


def _outcomes(inputs: list[str], work: _Work, jobs: int) -> Iterator[tuple[list[str], Answer]]:
    """Each chunk of files, in path order, and what the workers sent of it."""
    import multiprocessing

    size = max(1, min(CHUNK, len(inputs) // (jobs * AHEAD)))  # every worker gets some
    chunks = [inputs[i : i + size] for i in range(0, len(inputs), size)]
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    workers = _Workers(min(jobs, len(chunks)), context, work)  # no worker without a chunk
    try:
        yield from zip(chunks, workers.replay(chunks), strict=True)
    except BaseException:  # an unreadable file, Ctrl-C: the workers are stopped
        workers.close(stop=True)
        raise
    workers.close()


def parallel_prompts(
    inputs: list[str], prompts: ForkingPromptSink, *, progress: Progress | None, jobs: int
) -> None:
    """`driver.mine_paths` in `jobs` worker processes: each file is mined by its own
    `prompts.fork()`, which comes back (and only it: no report, no copy log) to be joined
    here in path order."""
    from toolsel.replay.driver import _Options

    work = replace(_work_for(_Options(None, None, None, ()), None, prompts.fork()), mode="mine")
    for paths, answer in _outcomes(inputs, work, jobs):
        mined = cast("list[ForkingPromptSink]", answer)  # `_mine_chunk`'s
        for path, found in zip(paths, mined, strict=True):
            prompts.join(found)
            if progress is not None:
                progress(_size(path))


def parallel_rows(
    inputs: list[str], input_format: str | None, *, jobs: int, progress: Progress | None = None
) -> Iterator[FileEvents]:
    """`events.rows.map_file` of each file, in `jobs` worker processes, in path order: the
    copy marks are the caller's to add, in that order (`toolsel.events.copies`)."""
    from toolsel.events.rows import numbered
    from toolsel.replay.driver import _Options

    work = replace(_work_for(_Options(None, None, input_format, ()), None, None), mode="export")
    number = 0
    for paths, answer in _outcomes(inputs, work, jobs):
        for events in cast("list[FileEvents]", answer):  # `_map_chunk`'s
            yield numbered(events, number)
            number += 1
        _tell(progress, paths)


def _map_chunk(paths: list[str]) -> list[FileEvents]:
    from toolsel.events.rows import map_file

    work = _work
    assert work is not None
    return [map_file(path, 0, input_format=work.options.input_format) for path in paths]


def _mine_chunk(paths: list[str]) -> list[ForkingPromptSink]:
    from toolsel.replay.driver import replay_file

    work = _work
    assert work is not None and work.prompts is not None
    mined = []
    for path in paths:
        prompts = work.prompts.fork()
        replay_file(path, input_format=work.options.input_format, prompts=prompts)
        mined.append(prompts)
    return mined


class _Workers:
    """`jobs` worker processes, each with its own pipe. Each is sent a few chunks ahead,
    and its next chunk as soon as it sends one back, whichever worker that is: one that a
    busy machine (or this process's own work) slows down holds up no other. The chunks
    come back in any order, and are put back in order here, by the thread that uses them:
    no result thread in this process (one contended with it for the GIL, which cost most
    of the gain on a busy machine). At most `jobs * AHEAD` chunks are out or held back."""

    def __init__(self, jobs: int, context: Any, work: _Work) -> None:
        self.pipes: list[Connection] = []
        self.processes: list[Any] = []
        for _ in range(jobs):
            here, there = context.Pipe()
            process = context.Process(target=_serve, args=(there, work), daemon=True)
            process.start()
            there.close()
            self.pipes.append(here)
            self.processes.append(process)

    def replay(self, chunks: list[list[str]]) -> Iterator[Answer]:
        from multiprocessing.connection import wait

        limit = len(self.pipes) * AHEAD
        out: dict[Connection, deque[int]] = {pipe: deque() for pipe in self.pipes}
        back: dict[int, Answer] = {}
        sent = 0

        def send_ahead(number: int) -> None:
            """Keep each worker AHEAD chunks ahead, the least busy first, within `limit`
            chunks of the one used next."""
            nonlocal sent
            for pipe in sorted(self.pipes, key=lambda p: len(out[p])):
                while len(out[pipe]) < AHEAD and sent < len(chunks) and sent - number < limit:
                    pipe.send(chunks[sent])
                    out[pipe].append(sent)
                    sent += 1

        for number in range(len(chunks)):
            send_ahead(number)
            while number not in back:
                for ready in wait([pipe for pipe in self.pipes if out[pipe]]):
                    pipe = cast("Connection", ready)
                    back[out[pipe].popleft()] = _answer(pipe)
                send_ahead(number)
            yield back.pop(number)

    def close(self, *, stop: bool = False) -> None:
        for pipe, process in zip(self.pipes, self.processes, strict=True):
            if stop:
                process.terminate()
            else:
                with contextlib.suppress(OSError):
                    pipe.send(None)
        for pipe, process in zip(self.pipes, self.processes, strict=True):
            process.join()
            pipe.close()


def _answer(pipe: Connection) -> Answer:
    """A worker's outcomes, or the error it met raised here."""
    try:
        failed, answer = pipe.recv()
    except EOFError:
        raise RuntimeError("a replay worker process ended unexpectedly") from None
    if failed:
        raise answer
    outcomes: Answer = answer
    return outcomes


def _serve(pipe: Connection, work: _Work) -> None:
    """A worker: replay each chunk it is sent, and send back the outcomes or the error."""
    from toolsel.replay.remote import fetch_ahead_only, is_remote

    _start_worker(work)
    while True:
        paths = pipe.recv()
        if paths is None:
            return
        if any(map(is_remote, paths)):
            fetch_ahead_only(paths)  # the chunk's files only: the others are other workers'
        try:
            outcomes = _CHUNK_WORK.get(work.mode, _replay_chunk)(paths)
        except BaseException as error:  # the parent raises it
            pipe.send((True, error))
        else:
            pipe.send((False, outcomes))


#: What a worker does with a chunk, by mode (the report modes: `_replay_chunk`).
_CHUNK_WORK: dict[str, Callable[[list[str]], Answer]] = {
    "mine": _mine_chunk,
    "export": _map_chunk,
}


def _size(path: str) -> int:
    try:
        return Path(path).stat().st_size
    except OSError:
        return 0


@dataclass(slots=True)
class _Settle:
    """The copy pass, in the parent, one file after the other (see the module's
    docstring): `hasher` is the workers'."""

    memory: RunMemory
    hasher: Callable[[str], int]
    on_event: EventSink | None = None

    def __call__(self, outcome: FileOutcome) -> FileReport:
        """The file's report with the copied calls marked, and its events passed on (marked
        too)."""
        copied = copied_calls(outcome.log, self.memory)
        if self.on_event is not None and outcome.events is not None:
            _pass_on(self.on_event, outcome.events, outcome.event_numbers or [], copied)
        if not copied:
            return outcome.report
        return _with_copies(outcome.report, outcome.log, copied, self.hasher)


def _pass_on(
    on_event: EventSink,
    events: list[tuple[Any, ...]],
    numbers: list[int],
    copied: Collection[int],
) -> None:
    """A file's events (`_flat`), in order, those about a copied call marked."""
    for number, fields in zip(numbers, events, strict=True):
        if number in copied:
            fields = (*fields[:_COPIED], True, *fields[_COPIED + 1 :])
        on_event(ToolEvent(*fields))


def copied_calls(log: PackedLog, memory: RunMemory) -> set[int]:
    """The numbers of a file's calls that copy an earlier file's, decided as the matcher
    decides while reading (`Matcher._is_copy`); then the file is remembered."""
    copied: set[int] = set()
    file = memory.files
    new: dict[int, tuple[int, int, int]] = {}  # ids no earlier file had: the first call's
    linked: set[int] = set()  # the earlier files of the sessions known at the call
    sessions = 0
    find = memory.find
    opens = log.opens
    for number, key in enumerate(opens[::4]):
        earlier = find(key)
        at = 4 * number
        if earlier is None:
            if key not in new:
                new[key] = (opens[at + 1] & 0xFFFFFFFF, opens[at + 2], file)  # as `tool_key`
            continue
        while sessions < opens[at + 3]:
            linked.update(memory.linked(log.sessions[sessions]))
            sessions += 1
        if copies(earlier, opens[at + 1] & 0xFFFFFFFF, opens[at + 2], linked):
            copied.add(number)
    memory.add(new, log.sessions)
    return copied


class _ToolNames:
    """The tool names of a chunk by their hash (`hasher`'s), to read copy logs by."""

    def __init__(self, names: Iterable[str], hasher: Callable[[str], int]) -> None:
        self.names = {hasher(name): name for name in names}

    def calls(self, log: PackedLog) -> dict[str, int]:
        """A file's calls per tool, copies included (the calls counted per tool only)."""
        counts: dict[str, int] = {}
        for number, tool in enumerate(log.opens[1::4]):
            if number not in log.uncounted:
                name = self.names[tool]
                counts[name] = counts.get(name, 0) + 1
        return counts

    def used(self, log: PackedLog, copied: set[int]) -> dict[str, int]:
        """A file's tools that are not all copies, and their calls (copies included)."""
        calls = self.calls(log)
        left = dict(calls)
        for number in copied - log.uncounted:
            name = self.names[log.opens[4 * number + 1]]
            left[name] -= 1
        return {name: calls[name] for name, n in left.items() if n}


def _copies(log: PackedLog, copied: set[int], tools: _ToolNames) -> FileCopies:
    """A file's copied calls, as `UsageTotals.add_chunk` takes them back."""
    found = []
    latencies = log.latencies
    assert latencies is not None
    for number in sorted(copied - log.uncounted):  # an uncounted call is in no total
        error, latency = log.closes[2 * number], latencies[number]
        name = tools.names[log.opens[4 * number + 1]]
        found.append((name, error >= 0, error > 0, None if math.isnan(latency) else latency))
    return tools.calls(log), found


def _with_copies(
    report: FileReport, log: PackedLog, copied: set[int], hasher: Callable[[str], int]
) -> FileReport:
    """Move the copied calls' counts to the `copied` columns and take back their
    latencies (a copy's time was counted in the file it was copied from)."""
    names = {hasher(name): name for name in report.tools}
    moved: dict[str, list[int]] = {}  # tool -> [copied, answered, errors]
    dropped: dict[str, set[int]] = {}  # tool -> indexes of latencies to take back
    for number in copied:
        if number in log.uncounted:
            continue  # tallied apart, in no report
        tool = names[log.opens[4 * number + 1]]
        counts = moved.setdefault(tool, [0, 0, 0])
        counts[0] += 1
        error, latency = log.closes[2 * number], log.closes[2 * number + 1]
        if error >= 0:
            counts[1] += 1
            counts[2] += error
            if latency >= 0:
                dropped.setdefault(tool, set()).add(latency)
    tools = dict(report.tools)
    for tool, (calls, answered, errors) in moved.items():
        s = tools[tool]
        latencies = s.latencies
        if tool in dropped:
            gone = dropped[tool]
            latencies = tuple(v for i, v in enumerate(latencies) if i not in gone)
        tools[tool] = replace(
            s,
            copied=s.copied + calls,
            copied_answered=s.copied_answered + answered,
            copied_errors=s.copied_errors + errors,
            latencies=latencies,
        )
    return replace(report, copied_calls=report.copied_calls + len(copied), tools=tools)


def _compact_with_copies(
    packed: bytes, log: PackedLog, copied: set[int], hasher: Callable[[str], int]
) -> bytes:
    """A packed report (`pack_compact`: a median in place of each tool's latencies) with its
    `copied` calls moved, as `_with_copies` moves them: each tool's latencies are first put
    back from the log, in their order, so that its median is taken without the copies'."""
    report = unpack(packed)
    names = {hasher(name): name for name in report.tools}
    latencies = log.latencies
    assert latencies is not None
    kept: dict[str, dict[int, float]] = {name: {} for name in report.tools}
    for number, index in enumerate(log.closes[1::2]):
        if index >= 0 and number not in log.uncounted:
            kept[names[log.opens[4 * number + 1]]][index] = latencies[number]
    tools = {
        name: replace(s, latencies=tuple(v for _, v in sorted(kept[name].items())), median_s=None)
        for name, s in report.tools.items()
    }
    return pack_compact(_with_copies(replace(report, tools=tools), log, copied, hasher))


__all__ = [
    "FileOutcome",
    "ToolStats",
    "available_cores",
    "parallel_compact",
    "parallel_reports",
    "parallel_usage",
]
