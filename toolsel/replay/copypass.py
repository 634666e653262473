"""The copy pass of `replay --jobs`: which calls of a file copy an earlier file's (a
resumed session), decided in the parent process, file after file in path order, from the
copy log each worker sends (`PackedLog`), exactly as one process decides while reading
(`Matcher._is_copy`). The calls found are marked: their counts moved to the `copied`
columns and their latencies taken back (`with_copies`), or taken back out of a chunk's
usage sums (`file_copies`), and their events marked before they are passed on."""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from toolsel.replay.memory import NO_MESSAGE, CopyLog, RunMemory, copies, message_key_of, pack
from toolsel.replay.packing import Flat
from toolsel.replay.report import FileReport, ToolEvent

if TYPE_CHECKING:
    from toolsel.replay.file import EventSink
    from toolsel.replay.totals import FileCopies

#: Events as they cross processes (`flat`), and the place of `copied` among their fields.
event_fields = attrgetter(*ToolEvent.__dataclass_fields__)
COPIED = tuple(ToolEvent.__dataclass_fields__).index("copied")


def flat(events: list[ToolEvent] | None) -> list[tuple[Any, ...]] | None:
    """Events as plain tuples, to pickle: a slotted dataclass unpickles field by field in
    Python, which cost `stats --format html` most of its main process's time."""
    return None if events is None else [event_fields(event) for event in events]


@dataclass(slots=True)
class PackedLog:
    """A worker's `CopyLog` as the parent reads it: numbers in arrays, which cross
    processes as bytes. Per call: the hashes of its id and tool (`hasher`'s), its message
    id's key (`message_key_of`) and how many of `sessions` were known then; whether its
    result was an error (-1: none came) and the index of its latency (-1: none); for
    `stats`, the latency itself (NaN: none); the bytes of its result and input (NaN: none,
    or not measured)."""

    opens: array[int]  # 4 per call
    closes: array[int]  # 2 per call
    sessions: list[str]
    uncounted: set[int]
    latencies: array[float] | None = None  # 1 per call
    #: for `stats`, call number -> what its failing result said (`FailedCall.message`)
    failures: dict[int, str] | None = None
    sizes: array[float] | None = None  # 2 per call

    def __reduce__(self) -> tuple[Any, ...]:  # its fields, not its slots' state: faster
        fields = (
            self.opens, self.closes, self.sessions, self.uncounted, self.latencies,
            self.failures, self.sizes,
        )  # fmt: skip
        return PackedLog, fields

    def sizes_of(self, number: int) -> tuple[float | None, float | None]:
        """(result bytes, input bytes) of a call, None where not measured."""
        if self.sizes is None:
            return None, None
        result, given = self.sizes[2 * number], self.sizes[2 * number + 1]
        return (None if math.isnan(result) else result), (None if math.isnan(given) else given)


def pack_opens(
    opens: Iterable[tuple[str, str, str | None, int]], hasher: Callable[[str], int]
) -> array[int]:
    """Each opened call (id, tool, message id, sessions known then) as `PackedLog.opens`
    holds it."""
    values: list[int] = []
    extend = values.extend  # a list, then one array: faster than extending the array
    for call_id, tool, message_id, known in opens:
        message = NO_MESSAGE if message_id is None else message_key_of(hasher(message_id))
        extend((hasher(call_id), hasher(tool), message, known))
    return array("q", values)


#: What `pack_log` keeps of a call that no result answered.
_UNANSWERED = (-1, -1, math.nan, math.nan, math.nan)


def pack_log(
    log: CopyLog, hasher: Callable[[str], int], report: FileReport | None = None
) -> PackedLog:
    """`log` packed; with the file's `report` (`stats`, `replay`), each call's latency and
    failure beside, as the parent's copy pass takes them back."""
    closes: list[int] = []
    sizes: list[float] = []
    seconds: list[float] = []
    two, measured, timed = closes.extend, sizes.extend, seconds.append  # lists, then arrays
    for row in log.closes:
        error, latency, took, result, given = row or _UNANSWERED
        two((error, latency))
        measured((result, given))
        timed(took)
    failures = None if report is None else {f.number: f.message for f in report.failures}
    latencies = None if report is None else array("d", seconds)
    opens = pack_opens(log.opens, hasher)
    return PackedLog(
        opens, array("q", closes), log.sessions, log.uncounted, latencies, failures,
        array("d", sizes),
    )  # fmt: skip


def blake2b_64(text: str) -> int:
    """A 64-bit hash that is the same in every process (`hash` is salted per process): where
    workers are spawned, not forked (hashlib is imported there only)."""
    import hashlib

    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


@dataclass(slots=True)
class CopyPass:
    """The copy pass, in the parent, over each chunk's files in path order: which calls of
    each file are copies (`copied_calls`); their events passed on, marked."""

    memory: RunMemory = field(default_factory=RunMemory)
    on_event: EventSink | None = None

    def __call__(
        self,
        logs: list[PackedLog],
        events: list[list[tuple[Any, ...]] | None],
        numbers: list[list[int] | None],
    ) -> list[set[int]]:
        found = [copied_calls(log, self.memory) for log in logs]
        if self.on_event is not None:
            for file_events, file_numbers, copied in zip(events, numbers, found, strict=True):
                pass_on(self.on_event, file_events or [], file_numbers or [], copied)
        return found


def found_copies(
    logs: list[PackedLog], found: list[set[int]], tools: ToolNames
) -> list[FileCopies]:
    return [
        file_copies(log, copied, tools) for log, copied in zip(logs, found, strict=True) if copied
    ]


def pass_on(
    on_event: EventSink,
    events: list[tuple[Any, ...]],
    numbers: list[int],
    copied: Collection[int],
) -> None:
    """A file's events (`flat`), in order, those about a copied call marked."""
    for number, fields in zip(numbers, events, strict=True):
        if number in copied:
            fields = (*fields[:COPIED], True, *fields[COPIED + 1 :])
        on_event(ToolEvent(*fields))


def copied_calls(log: PackedLog, memory: RunMemory) -> set[int]:
    """The numbers of a file's calls that copy an earlier file's, decided as the matcher
    decides while reading (`Matcher._is_copy`); then the file is remembered."""
    opens = log.opens
    first = first_calls(opens, memory.files)
    if memory.none_of(first):  # most files: no id an earlier file had
        memory.add(first, log.sessions)
        return set()
    copied: set[int] = set()
    linked: set[int] = set()  # the earlier files of the sessions known at the call
    sessions = 0
    find = memory.find
    for number, key in enumerate(opens[::4]):
        earlier = find(key)
        if earlier is None:
            continue
        at = 4 * number
        while sessions < opens[at + 3]:
            linked.update(memory.linked(log.sessions[sessions]))
            sessions += 1
        if copies(earlier, opens[at + 1] & 0xFFFFFFFF, opens[at + 2], linked):
            copied.add(number)
    # the ids no earlier file had, with their first call here
    memory.add({key: call for key, call in first.items() if find(key) is None}, log.sessions)
    return copied


def first_calls(opens: array[int], file: int) -> dict[int, int]:
    """Each id's first call in a copy log's `opens`, packed as the memory keeps it (`pack`:
    its tool's and message id's keys and the file's number)."""
    new: dict[int, int] = {}
    for key, tool, message in zip(opens[::4], opens[1::4], opens[2::4], strict=True):
        if key not in new:
            new[key] = pack(tool & 0xFFFFFFFF, message, file)  # as `tool_key`
    return new


class ToolNames:
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


def file_copies(log: PackedLog, copied: set[int], tools: ToolNames) -> FileCopies:
    """A file's copied calls, as `UsageTotals.add_chunk` takes them back."""
    found = []
    latencies = log.latencies
    assert latencies is not None
    failures = log.failures or {}
    for number in sorted(copied - log.uncounted):  # an uncounted call is in no total
        error, latency = log.closes[2 * number], latencies[number]
        name = tools.names[log.opens[4 * number + 1]]
        seconds = None if math.isnan(latency) else latency
        found.append(
            (name, error >= 0, error > 0, seconds, failures.get(number), *log.sizes_of(number))
        )
    return tools.calls(log), found


def with_copies(
    report: FileReport, log: PackedLog, copied: set[int], hasher: Callable[[str], int]
) -> FileReport:
    """Move the copied calls' counts to the `copied` columns and take back their
    latencies (a copy's time was counted in the file it was copied from)."""
    moved, dropped, sizes = _moved(log, copied, {hasher(name): name for name in report.tools})
    tools = dict(report.tools)
    for tool, (calls, answered, errors) in moved.items():
        s = tools[tool]
        taken_results, taken_inputs = sizes.get(tool, ([], []))
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
            result_sizes=_less(s.result_sizes, taken_results),
            input_sizes=_less(s.input_sizes, taken_inputs),
        )
    failures = tuple(replace(f, copied=True) if f.number in copied else f for f in report.failures)
    return replace(
        report, copied_calls=report.copied_calls + len(copied), tools=tools, failures=failures
    )


def _moved(
    log: PackedLog, copied: set[int], names: dict[int, str], sized: bool = True
) -> tuple[dict[str, list[int]], dict[str, set[int]], dict[str, tuple[list[float], list[float]]]]:
    """Per tool, of a file's copied calls: [calls, answered, errors]; the indexes of their
    latencies; with `sized`, their result and input sizes (a compact report has none)."""
    moved: dict[str, list[int]] = {}
    dropped: dict[str, set[int]] = {}
    sizes: dict[str, tuple[list[float], list[float]]] = {}
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
            if sized:
                _note_sizes(sizes.setdefault(tool, ([], [])), log.sizes_of(number))
    return moved, dropped, sizes


def _note_sizes(
    into: tuple[list[float], list[float]], sizes: tuple[float | None, float | None]
) -> None:
    for values, size in zip(into, sizes, strict=True):
        if size is not None:
            values.append(size)


def _less(values: tuple[float, ...], taken: Sequence[float]) -> tuple[float, ...]:
    """A tool's sizes less one of each of its copied calls', in their order, as one process
    keeps them (a report packed compact has none)."""
    if not values or not taken:
        return values
    left = Counter(taken)
    kept = []
    for value in values:
        if left[value] > 0:
            left[value] -= 1
        else:
            kept.append(value)
    return tuple(kept)


def compact_with_copies(
    packed: bytes, log: PackedLog, copied: set[int], hasher: Callable[[str], int]
) -> bytes:
    """A packed report (`pack_compact`: a median in place of each tool's latencies) with its
    `copied` calls moved, as `with_copies` moves them: each tool's latencies are put back
    from the log, in their order, less the copies', for its median. Done on the packed
    values (`packing.Flat`), without building the report: the parent does this for every
    file with copies."""
    from statistics import median

    flat = Flat(packed)
    names = {hasher(tool[0]): tool[0] for tool in flat.tools}
    latencies = log.latencies
    assert latencies is not None
    kept: dict[str, dict[int, float]] = {name: {} for name in names.values()}
    for number, index in enumerate(log.closes[1::2]):
        if index >= 0 and number not in log.uncounted:
            kept[names[log.opens[4 * number + 1]]][index] = latencies[number]
    moved, dropped, _ = _moved(log, copied, names, sized=False)
    tools = []
    for name, calls, errors, answered, copies_, copied_errors, copied_answered, *_ in flat.tools:
        gone = dropped.get(name, ())
        left = [v for i, v in sorted(kept[name].items()) if i not in gone]
        more = moved.get(name, (0, 0, 0))
        middle = median(left) if left else None
        counts = (copies_ + more[0], copied_errors + more[2], copied_answered + more[1])
        tools.append((name, calls, errors, answered, *counts, (), middle))
    flat.tools = tuple(tools)
    flat.mark_copied(copied)
    return flat.pack()
