"""Replay files in worker processes, with the same answer as one process.

Each worker replays whole files on its own, and records what deciding copies takes (a
`CopyLog`: each call's id, tool and message id, hashed, the file's sessions, each call's
outcome).
Which calls copy an earlier file's cannot be known in a worker, because it depends on the
files before. So the parent takes the reports in path order and makes the copy pass
itself, with the run's one `RunMemory`, exactly as one process does while reading: the
calls it finds copied are marked, their counts moved to the `copied` columns and their
latencies taken back, and their events marked before they are passed on.

Files go to workers in chunks, and only a few chunks are out at a time, so the parent
holds a bounded number of reports whatever the number of files.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from array import array
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolsel.replay.matcher import CopyLog
from toolsel.replay.memory import NO_MESSAGE, RunMemory, copies, message_key_of
from toolsel.replay.report import FileReport, ToolEvent, ToolStats, flatten, unflatten

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from toolsel.replay.driver import EventSink, ForkingPromptSink, _Options
    from toolsel.replay.lines import Progress
    from toolsel.replay.stats import FileUsage, ToolCopies, UsageTotals

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
    events: list[ToolEvent] | None  # in order, when events are wanted
    event_numbers: list[int] | None  # the call each event is about
    prompts: ForkingPromptSink | None  # `learn`: what this file taught

    def __reduce__(self) -> tuple[Any, ...]:
        # the report as plain tuples (`flatten`): the parent unpickles every file's
        return (
            _outcome,
            (flatten(self.report), self.log, self.events, self.event_numbers, self.prompts),
        )


def _outcome(
    report: tuple[Any, ...],
    log: PackedLog,
    events: list[ToolEvent] | None,
    numbers: list[int] | None,
    prompts: ForkingPromptSink | None,
) -> FileOutcome:
    return FileOutcome(unflatten(report), log, events, numbers, prompts)


@dataclass(slots=True)
class PackedLog:
    """A worker's `CopyLog` as the parent reads it: numbers in arrays, which cross
    processes as bytes. Per call: the hashes of its id and tool (`hasher`'s), its message
    id's key (`message_key_of`) and how many of `sessions` were known then; whether its
    result was an error (-1: none came) and the index of its latency (-1: none)."""

    opens: array[int]  # 4 per call
    closes: array[int]  # 2 per call
    sessions: list[str]
    uncounted: set[int]

    def __reduce__(self) -> tuple[Any, ...]:  # its fields, not its slots' state: faster
        return PackedLog, (self.opens, self.closes, self.sessions, self.uncounted)


def pack_log(log: CopyLog, hasher: Callable[[str], int]) -> PackedLog:
    opens: array[int] = array("q")
    for call_id, tool, message_id, known in log.opens:
        message = NO_MESSAGE if message_id is None else message_key_of(hasher(message_id))
        opens.extend((hasher(call_id), hasher(tool), message, known))
    closes = array("q", [-1, -1]) * len(log.opens)
    for number, (error, latency) in log.closes.items():
        closes[2 * number] = error
        closes[2 * number + 1] = latency
    return PackedLog(opens, closes, log.sessions, log.uncounted)


def blake2b_64(text: str) -> int:
    """A 64-bit hash that is the same in every process (`hash` is salted per process)."""
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


#: A string whose `hash` a worker compares with the parent's: the same salt, or not.
PROBE = "toolsel.replay.parallel"
#: Whether forked workers hash with `hash` (salted as the parent is); else, and where
#: workers are spawned (a fresh salt each), with blake2b.
FORK_HASH = True


@dataclass(frozen=True, slots=True)
class _Work:
    options: _Options
    events: bool
    prompts: ForkingPromptSink | None  # an empty one, to start each file from
    probe: int | None  # the parent's hash(PROBE) when workers share its salt (fork)
    usage: bool = False  # `stats`: each file's usage (`usage_of`), not its whole report

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


def _replay_chunk(paths: list[str]) -> list[FileOutcome] | list[UsageOutcome]:
    from toolsel.replay.driver import replay_file
    from toolsel.replay.stats import usage_of

    work = _work
    assert work is not None
    options = work.options
    hasher = work.hasher()
    validators: dict[str, object] = {}
    outcomes: list[Any] = []
    for path in paths:
        log = CopyLog()
        events: list[ToolEvent] | None = [] if work.events else None
        numbers: list[int] | None = [] if work.events else None
        prompts = work.prompts.fork() if work.prompts is not None else None
        report = replay_file(
            path,
            registry=options.registry,
            permission=options.permission,
            on_event=events.append if events is not None else None,
            input_format=options.input_format,
            memory=log,
            prompts=prompts,
            allow_unknown=options.allow_unknown,
            validators=validators,  # type: ignore[arg-type]
            event_numbers=numbers,
            window=options.window,
        )
        packed = pack_log(log, hasher)
        if work.usage:
            outcomes.append((usage_of(report), packed, events, numbers))
        else:
            outcomes.append(FileOutcome(report, packed, events, numbers, prompts))
    return outcomes


def parallel_reports(
    inputs: list[str],
    options: _Options,
    *,
    on_event: EventSink | None,
    progress: Progress | None,
    prompts: ForkingPromptSink | None,
    jobs: int,
) -> Iterator[FileReport]:
    """Each file's report in path order, read by `jobs` worker processes; the copy pass
    runs here, in order (see the module's docstring)."""
    work = _work_for(options, on_event, prompts.fork() if prompts is not None else None)
    settle = _Settle(RunMemory(), work.hasher(), on_event, prompts)
    for outcome in _outcomes(inputs, work, jobs):
        assert isinstance(outcome, FileOutcome)
        yield settle(outcome)
        if progress is not None:
            progress(_size(outcome.report.path))


def parallel_usage(
    inputs: list[str],
    options: _Options,
    *,
    on_event: EventSink | None,
    progress: Progress | None,
    jobs: int,
) -> UsageTotals:
    """What `stats` counts of every file, read by `jobs` worker processes: each sends its
    files' usage already summed (`usage_of`) and what the copy pass needs, so that this
    process only decides the copies, in path order, and adds."""
    from toolsel.replay.stats import UsageTotals

    work = replace(_work_for(options, on_event, None), usage=True)
    memory, hasher = RunMemory(), work.hasher()
    totals = UsageTotals()
    for outcome in _outcomes(inputs, work, jobs):
        assert not isinstance(outcome, FileOutcome)
        usage, log, events, numbers = outcome
        copied = copied_calls(log, memory)
        if on_event is not None and events is not None:
            _pass_on(on_event, events, numbers or [], copied)
        totals.add_usage(usage, _copies(usage, log, copied, hasher) if copied else ())
        if progress is not None:
            progress(_size(usage[0]))
    return totals


def _work_for(
    options: _Options, on_event: EventSink | None, prompts: ForkingPromptSink | None
) -> _Work:
    fork = os.name == "posix"
    return _Work(
        options, on_event is not None, prompts, hash(PROBE) if fork and FORK_HASH else None
    )


#: What a worker sends of one file for `stats`: its usage, its copy log, its events (and
#: the call each is about) when they are wanted.
UsageOutcome = tuple["FileUsage", PackedLog, list[ToolEvent] | None, list[int] | None]


def _outcomes(inputs: list[str], work: _Work, jobs: int) -> Iterator[FileOutcome | UsageOutcome]:
    """What the workers send of each file, in path order."""
    import multiprocessing

    size = max(1, min(CHUNK, len(inputs) // (jobs * AHEAD)))  # every worker gets some
    chunks = [inputs[i : i + size] for i in range(0, len(inputs), size)]
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    workers = _Workers(jobs, context, work)
    try:
        for outcomes in workers.replay(chunks):
            yield from outcomes
    except BaseException:  # an unreadable file, Ctrl-C: the workers are stopped
        workers.close(stop=True)
        raise
    workers.close()


class _Workers:
    """`jobs` worker processes, each with its own pipe. Chunk i goes to worker i % jobs, a
    few ahead, so the reports come back in order and are received by the thread that uses
    them: no result thread in this process (one contended with it for the GIL, which cost
    most of the gain on a busy machine)."""

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

    def replay(self, chunks: list[list[str]]) -> Iterator[list[FileOutcome]]:
        jobs = len(self.pipes)
        ahead = min(len(chunks), jobs * AHEAD)
        for number in range(ahead):
            self.pipes[number % jobs].send(chunks[number])
        for number in range(len(chunks)):
            pipe = self.pipes[number % jobs]
            try:
                failed, answer = pipe.recv()
            except EOFError:
                raise RuntimeError("a replay worker process ended unexpectedly") from None
            if failed:
                raise answer
            if number + ahead < len(chunks):
                pipe.send(chunks[number + ahead])  # the same worker's next
            yield answer

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


def _serve(pipe: Connection, work: _Work) -> None:
    """A worker: replay each chunk it is sent, and send back the outcomes or the error."""
    _start_worker(work)
    while True:
        paths = pipe.recv()
        if paths is None:
            return
        try:
            outcomes = _replay_chunk(paths)
        except BaseException as error:  # the parent raises it
            pipe.send((True, error))
        else:
            pipe.send((False, outcomes))


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
    prompts: ForkingPromptSink | None = None

    def __call__(self, outcome: FileOutcome) -> FileReport:
        """The file's report with the copied calls marked, its events passed on (marked
        too), what it taught added."""
        copied = copied_calls(outcome.log, self.memory)
        if self.on_event is not None and outcome.events is not None:
            _pass_on(self.on_event, outcome.events, outcome.event_numbers or [], copied)
        if self.prompts is not None and outcome.prompts is not None:
            self.prompts.join(outcome.prompts)
        if not copied:
            return outcome.report
        return _with_copies(outcome.report, outcome.log, copied, self.hasher)


def _pass_on(
    on_event: EventSink, events: list[ToolEvent], numbers: list[int], copied: Collection[int]
) -> None:
    """A file's events, in order, those about a copied call marked."""
    for number, event in zip(numbers, events, strict=True):
        on_event(replace(event, copied=True) if number in copied else event)


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


def _copies(
    usage: FileUsage, log: PackedLog, copied: set[int], hasher: Callable[[str], int]
) -> list[ToolCopies]:
    """The copied calls of a file, as `UsageTotals.add_usage` takes them back."""
    names = {hasher(tool[0]): tool[0] for tool in usage[1]}
    found = []
    for number in copied:
        if number in log.uncounted:
            continue  # tallied apart, in no report
        error, latency = log.closes[2 * number], log.closes[2 * number + 1]
        found.append((names[log.opens[4 * number + 1]], error >= 0, error > 0, latency))
    return found


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


__all__ = ["FileOutcome", "ToolStats", "available_cores", "parallel_reports", "parallel_usage"]
