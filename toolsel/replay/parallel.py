"""Replay files in worker processes (`--jobs`), with the same answer as one process.

Files go to a standard process pool in chunks, and only a few chunks are out at a time, so
the parent holds a bounded number of answers whatever the number of files; it takes them
back in path order. Each worker replays whole files on its own and sends a `ChunkOutcome`:
what its `Work.mode` asks for, and what the copy pass takes (each file's copy log).

Which calls copy an earlier file's cannot be known in a worker, because it depends on the
files before: the parent makes the copy pass itself, in path order (`replay.copypass`),
exactly as one process does while reading. `stats` needs no report, only the usage sums:
a worker sums a whole chunk of files as if no call were a copy, and the parent takes the
copies it finds back out (`UsageTotals.add_chunk`). `replay` (which keeps each file's
report packed) gets the same sums, the report totals and each report already packed: the
parent unpacks only the reports of files with copies, to move them. `export` needs each
file's rows (`parallel_rows`), `learn` each file's prompts (`parallel_prompts`).
"""

from __future__ import annotations

import gc
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from toolsel.replay.copypass import (
    CopyPass,
    PackedLog,
    ToolNames,
    blake2b_64,
    compact_with_copies,
    flat,
    found_copies,
    pack_log,
    with_copies,
)
from toolsel.replay.file import ReplayOptions
from toolsel.replay.memory import CopyLog
from toolsel.replay.packing import flatten, pack_compact, unflatten
from toolsel.replay.report import FileReport, ToolEvent, Totals
from toolsel.replay.stats import UsageSums
from toolsel.replay.totals import FileCopies, UsageTotals

if TYPE_CHECKING:
    from concurrent.futures import Executor, Future

    from toolsel.events.rows import FileEvents
    from toolsel.replay.file import EventSink, ForkingPromptSink
    from toolsel.replay.lines import Progress

#: Fewer files than this are read in the one process: starting workers costs more.
MIN_FILES = 64
#: Files a worker is sent at once, at most; and chunks out per worker at a time: enough
#: work queued (about 0.1 s a chunk) that a busy machine's scheduler does not stall the pipeline.
CHUNK = 256
AHEAD = 4
#: The smallest chunk the last files are cut into (`chunked`).
TAIL = 16
#: A string whose `hash` a worker compares with the parent's: the same salt, or not.
PROBE = "toolsel.replay.parallel"
#: Whether forked workers hash with `hash` (salted as the parent is); else, and where
#: workers are spawned (a fresh salt each), with blake2b.
FORK_HASH = True


def available_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def use_pool(inputs: list[str], jobs: int) -> bool:
    """Whether worker processes are worth starting (stdin is read in this one)."""
    return jobs > 1 and len(inputs) >= MIN_FILES and "-" not in inputs


#: What a worker sends back of each chunk (`ChunkOutcome`):
#:   reports  each file's report and copy log;
#:   usage    `stats`: the chunk's usage sums and each file's copy log;
#:   compact  `replay`: those, its report totals, and each file's report packed as
#:            `replay` keeps it, with the parts the sub-agent links need;
#:   mine     `learn`: each file's prompts;
#:   export   `export`: each file's rows.
Mode = Literal["reports", "usage", "compact", "mine", "export"]
#: A file's part in the sub-agent links (`driver._AgentLinks`): its place in its chunk, its
#: Task results' agents, its own agent id and its calls.
AgentParts = tuple[int, Mapping[str, tuple[str, str]], str | None, int]


@dataclass(frozen=True, slots=True)
class Work:
    """What every worker is given once, when it starts."""

    options: ReplayOptions
    mode: Mode = "reports"
    events: bool = False  # each file's events are sent back too
    prompts: ForkingPromptSink | None = None  # an empty one, to start each file from
    probe: int | None = None  # the parent's hash(PROBE) when workers share its salt (fork)
    usage: bool = True  # `compact`: the usage sums too (only human and HTML output show them)

    def hasher(self) -> Callable[[str], int]:
        """`hash` where every process salts it alike (forked workers), else blake2b."""
        return hash if self.probe is not None else blake2b_64


@dataclass(slots=True)
class ChunkOutcome:
    """What a worker sends back of a chunk of files (which parts: its `Work.mode`), and
    what the parent's copy pass adds (`copies`, `used`, `copied`). Events cross processes
    as tuples (`copypass.flat`), beside the call each is about. A worker knows no call for
    a copy: its sums and totals count every call."""

    logs: list[PackedLog] = field(default_factory=list)
    events: list[list[tuple[Any, ...]] | None] = field(default_factory=list)
    numbers: list[list[int] | None] = field(default_factory=list)
    reports: list[tuple[Any, ...]] = field(default_factory=list)  # `packing.flatten`'s
    usage: UsageSums | None = None
    totals: Totals | None = None
    packed: list[bytes] = field(default_factory=list)
    links: list[AgentParts] = field(default_factory=list)
    mined: list[ForkingPromptSink] = field(default_factory=list)
    rows: list[FileEvents] = field(default_factory=list)
    #: after the copy pass: the copies to take back out of `usage` (`add_chunk`'s), and
    #: how many calls were copies in all
    copies: list[FileCopies] = field(default_factory=list)
    used: Callable[[], Iterable[dict[str, int]]] = tuple
    copied: int = 0

    def __reduce__(self) -> tuple[Any, ...]:  # its fields, not its slots' state: faster
        return ChunkOutcome, tuple(getattr(self, f.name) for f in fields(self)[:10])


_work: Work | None = None  # a worker's, set once when it starts


def start_worker(work: Work) -> None:
    import signal

    global _work
    _work = work
    if work.probe is not None and hash(PROBE) != work.probe:
        raise RuntimeError("a forked worker salts str hashes unlike its parent")
    # Ctrl-C is the parent's to handle (it stops the pool): a worker that took it too
    # would print its traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def replay_chunk(paths: list[str]) -> ChunkOutcome:
    """What the worker's `Work` asks of each file of a chunk."""
    from toolsel.replay.remote import fetch_ahead_only, is_remote

    work = _work
    assert work is not None
    if any(map(is_remote, paths)):
        fetch_ahead_only(paths)  # the chunk's files only: the others are other workers'
    if work.mode == "mine":
        return ChunkOutcome(mined=[_mined(work, path) for path in paths])
    if work.mode == "export":
        from toolsel.events.rows import map_file

        rows = [map_file(path, 0, input_format=work.options.input_format) for path in paths]
        return ChunkOutcome(rows=rows)
    return _replayed(work, paths)


def _mined(work: Work, path: str) -> ForkingPromptSink:
    from toolsel.replay.file import replay_file

    assert work.prompts is not None
    prompts = work.prompts.fork()
    prompts.file_read(replay_file(path, input_format=work.options.input_format, prompts=prompts))
    return prompts


def _replayed(work: Work, paths: list[str]) -> ChunkOutcome:
    """Each file replayed with a copy log; its report, or its part of the chunk's sums."""
    hasher = work.hasher()
    validators: dict[str, Any] = {}
    out = ChunkOutcome()
    tally = work.mode == "usage" or (work.mode == "compact" and work.usage)
    usage = UsageTotals(bounded=False) if tally else None  # bounded later
    totals = Totals() if work.mode == "compact" else None
    for index, path in enumerate(paths):
        log = CopyLog()
        events: list[ToolEvent] | None = [] if work.events else None
        numbers: list[int] | None = [] if work.events else None
        mined = work.prompts.fork() if work.prompts is not None else None
        report = work.options.replay(
            path,
            on_event=events.append if events is not None else None,
            memory=log,
            validators=validators,
            event_numbers=numbers,
            prompts=mined,
        )
        if mined is not None:
            mined.file_read(report)
            out.mined.append(mined)
        out.events.append(flat(events))
        out.numbers.append(numbers)
        if work.mode == "reports":
            out.logs.append(pack_log(log, hasher))
            out.reports.append(flatten(report))
            continue
        if usage is not None:
            usage.add(report)
        out.logs.append(pack_log(log, hasher, report))
        if totals is not None:
            totals.add(report)
            out.packed.append(pack_compact(report))
            if report.task_agents or report.agent_id:
                out.links.append((index, report.task_agents, report.agent_id, report.calls))
    out.usage = usage.sums if usage is not None else None
    out.totals = totals
    return out


def chunked(inputs: list[str], jobs: int) -> list[list[str]]:
    """The files cut into chunks in path order: each at most CHUNK and every worker given
    some; the last ones smaller and smaller (a share of the files left, down to TAIL), so
    that the workers run out of files at about the same time, not one chunk apart."""
    size = max(1, min(CHUNK, len(inputs) // (jobs * AHEAD)))
    chunks, start = [], 0
    while start < len(inputs):
        share = -(-(len(inputs) - start) // (2 * jobs))  # a half of each worker's share
        step = min(size, max(share, TAIL))
        chunks.append(inputs[start : start + step])
        start += step
    return chunks


def _pool(workers: int, work: Work) -> Executor:
    """The standard library's process pool: forked where the platform forks (the work,
    registry included, is inherited, not pickled)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    return ProcessPoolExecutor(
        workers, mp_context=context, initializer=start_worker, initargs=(work,)
    )


def _outcomes(inputs: list[str], work: Work, jobs: int) -> Iterator[tuple[list[str], ChunkOutcome]]:
    """Each chunk of files, in path order, and what a worker sent of it. At most
    `workers * AHEAD` chunks are out or waiting to be used; no worker without a chunk."""
    chunks = chunked(inputs, jobs)
    workers = min(jobs, len(chunks))
    queued = iter(chunks)
    with _pool(workers, work) as pool:
        out: deque[tuple[list[str], Future[ChunkOutcome]]] = deque()
        try:
            # the workers are forked at the first submit: with this process's objects
            # frozen, their collections never touch (and so copy) the pages they share
            # with it (Python's advice for fork; 10-15 ms of 5,000 sessions)
            gc.freeze()
            try:
                for chunk in queued:
                    out.append((chunk, pool.submit(replay_chunk, chunk)))
                    if len(out) == workers * AHEAD:
                        break
            finally:
                gc.unfreeze()
            while out:
                chunk, future = out.popleft()
                outcome = _answer(future)
                for later in queued:  # one more out for the one back
                    out.append((later, pool.submit(replay_chunk, later)))
                    break
                yield chunk, outcome
        except BaseException:  # an unreadable file, Ctrl-C: the workers are stopped
            _stop(pool)
            raise


def _answer(future: Future[ChunkOutcome]) -> ChunkOutcome:
    """A worker's outcome, or the error it met raised here."""
    from concurrent.futures.process import BrokenProcessPool

    try:
        return future.result()
    except BrokenProcessPool:
        raise RuntimeError("a replay worker process ended unexpectedly") from None


def _stop(pool: Executor) -> None:
    """Stop the workers now, without waiting for the chunks they are on."""
    processes = dict(getattr(pool, "_processes", None) or {})  # no public way before 3.14
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes.values():
        process.terminate()


def _work_for(
    options: ReplayOptions,
    mode: Mode,
    on_event: EventSink | None = None,
    prompts: ForkingPromptSink | None = None,
    usage: bool = True,
) -> Work:
    probe = hash(PROBE) if os.name == "posix" and FORK_HASH else None
    return Work(options, mode, on_event is not None, prompts, probe, usage)


def parallel_reports(
    inputs: list[str],
    options: ReplayOptions,
    *,
    on_event: EventSink | None,
    progress: Progress | None,
    jobs: int,
) -> Iterator[FileReport]:
    """Each file's report in path order, read by `jobs` worker processes; the copy pass
    runs here, in order (see the module's docstring)."""
    work = _work_for(options, "reports", on_event)
    copy_pass, hasher = CopyPass(on_event=on_event), work.hasher()
    for paths, chunk in _outcomes(inputs, work, jobs):
        found = copy_pass(chunk.logs, chunk.events, chunk.numbers)
        for path, flat_report, log, copied in zip(
            paths, chunk.reports, chunk.logs, found, strict=True
        ):
            report = unflatten(flat_report)
            yield with_copies(report, log, copied, hasher) if copied else report
            if progress is not None:
                progress(_size(path))


def parallel_usage(
    inputs: list[str],
    options: ReplayOptions,
    *,
    on_event: EventSink | None,
    progress: Progress | None,
    jobs: int,
    mine: ForkingPromptSink | None = None,
) -> UsageTotals:
    """What `stats` counts of every file, read by `jobs` worker processes. Each sends the
    usage sums of a chunk of files, summed as if no call were a copy, and the copy log of
    each file: this process only makes the copy pass, in path order, and takes the copies
    it finds back out of the chunk's sums (`UsageTotals.add_chunk`). With `mine`, each
    file is also told to a fork of it in the same read, sent back and joined in order."""
    totals = UsageTotals()
    work = _work_for(options, "usage", on_event, prompts=mine.fork() if mine else None)
    for chunk in _settled(inputs, work, on_event, progress, jobs):
        assert chunk.usage is not None
        totals.add_chunk(chunk.usage, chunk.copies, chunk.used)
        if mine is not None:
            for found in chunk.mined:
                mine.join(found)
    return totals


def parallel_compact(
    inputs: list[str],
    options: ReplayOptions,
    *,
    on_event: EventSink | None,
    progress: Progress | None,
    jobs: int,
    usage: bool = True,
) -> Iterator[ChunkOutcome]:
    """What `replay` gathers of every file, read by `jobs` worker processes, chunk by chunk
    in path order. Each worker sends a chunk's report totals and (with `usage`) its usage
    sums, summed as if no call were a copy, and each file's report packed as `replay` keeps it
    (`packing.pack_compact`): this process makes the copy pass, and only a file with copies
    has its report unpacked, its copies moved (`compact_with_copies`) and packed again."""
    work = _work_for(options, "compact", on_event, usage=usage)
    hasher = work.hasher()
    yield from _settled(inputs, work, on_event, progress, jobs, moved=hasher)


def _settled(
    inputs: list[str],
    work: Work,
    on_event: EventSink | None,
    progress: Progress | None,
    jobs: int,
    moved: Callable[[str], int] | None = None,
) -> Iterator[ChunkOutcome]:
    """Each chunk after the copy pass: its events passed on, marked; the copies to take
    back out of its sums found; with `moved` (the workers' hasher), each packed report
    with copies packed again with them moved."""
    copy_pass = CopyPass(on_event=on_event)
    for paths, chunk in _outcomes(inputs, work, jobs):
        logs = chunk.logs
        found = copy_pass(logs, chunk.events, chunk.numbers)
        if moved is not None:
            for at, copied in enumerate(found):
                if copied:
                    chunk.packed[at] = compact_with_copies(
                        chunk.packed[at], logs[at], copied, moved
                    )
        if chunk.usage is not None:
            tools = ToolNames(chunk.usage.tools, work.hasher())
            chunk.copies = found_copies(logs, found, tools)
            chunk.used = partial(map, tools.used, logs, found)
        chunk.copied = sum(map(len, found))
        yield chunk
        _tell(progress, paths)


def parallel_prompts(
    inputs: list[str], prompts: ForkingPromptSink, *, progress: Progress | None, jobs: int
) -> None:
    """`driver.mine_paths` in `jobs` worker processes: each file is mined by its own
    `prompts.fork()`, which comes back (and only it: no report, no copy log) to be joined
    here in path order."""
    work = _work_for(ReplayOptions(), "mine", prompts=prompts.fork())
    for paths, outcome in _outcomes(inputs, work, jobs):
        for path, found in zip(paths, outcome.mined, strict=True):
            prompts.join(found)
            if progress is not None:
                progress(_size(path))


def parallel_rows(
    inputs: list[str], input_format: str | None, *, jobs: int, progress: Progress | None = None
) -> Iterator[FileEvents]:
    """`events.rows.map_file` of each file, in `jobs` worker processes, in path order: the
    copy marks are the caller's to add, in that order (`toolsel.events.copies`)."""
    from toolsel.events.rows import numbered

    work = _work_for(ReplayOptions(input_format=input_format), "export")
    number = 0
    for paths, outcome in _outcomes(inputs, work, jobs):
        for events in outcome.rows:
            yield numbered(events, number)
            number += 1
        _tell(progress, paths)


def _tell(progress: Progress | None, paths: list[str]) -> None:
    if progress is not None:
        for path in paths:
            progress(_size(path))


def _size(path: str) -> int:
    try:
        return Path(path).stat().st_size
    except OSError:
        return 0
