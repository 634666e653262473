"""What `toolsel stats` counts of transcripts, a file report at a time (`UsageTotals`): the
sums of `replay.stats`, with the calls copied from an earlier file of the run (resumed
sessions) counted once, in one process or in many (`add_chunk` takes a worker's copies back
out)."""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from toolsel.registry.model import Registry
from toolsel.replay import stats
from toolsel.replay.failures import message_key
from toolsel.replay.packing import PackedReports
from toolsel.replay.report import FileReport, ReplayResult
from toolsel.replay.stats import (
    UnreadableFile,
    UsageStats,
    UsageSums,
    add_messages,
    add_pairs,
    pairs_of,
)

#: A file's copied calls, as `UsageTotals.add_chunk` takes them back: the file's calls per
#: tool (copies included), and each copied call's tool, whether it was answered, whether
#: with an error, its latency (None: none was counted), its error message (None: none),
#: and its result and input bytes (None: not measured).
CopiedCall = tuple[str, bool, bool, float | None, str | None, float | None, float | None]
FileCopies = tuple[Mapping[str, int], Sequence[CopiedCall]]


@dataclass(slots=True)
class UsageTotals:
    """What `usage_stats` counts of transcripts, added one file report at a time, so that
    the reports need not be kept: memory grows with tools, pairs and answered calls (8
    bytes a latency), not with files. A file is a unit; a tool whose calls in a file are
    all copies of an earlier file's does not count there. A worker process sums a chunk of
    files (`bounded` False: it keeps every pair) before the copies are known; `add_chunk`
    adds those sums here and takes the copies back out."""

    sums: UsageSums = field(default_factory=UsageSums)
    #: latencies of copied calls that a worker counted, taken out of `sums` by `stats`
    taken: dict[str, array[float]] = field(default_factory=dict)
    #: the same of result and input sizes
    taken_results: dict[str, array[float]] = field(default_factory=dict)
    taken_inputs: dict[str, array[float]] = field(default_factory=dict)
    bounded: bool = True  # at most MAX_PAIRS pairs kept (see `add_pairs`)

    @property
    def files(self) -> int:
        return self.sums.units

    def add(self, f: FileReport) -> None:
        sums = self.sums
        sums.units += 1
        used: dict[str, int] = {}
        for name, s in f.tools.items():
            if s.calls > s.copied:
                used[name] = s.calls
                t = sums.tool(name)
                t.calls += s.calls - s.copied
                t.answered += s.answered - s.copied_answered
                t.errors += s.errors - s.copied_errors
                t.units += 1
                if s.latencies:
                    t.exact.extend(s.latencies)
                if s.result_sizes:
                    t.result_sizes.extend(s.result_sizes)
                if s.input_sizes:
                    t.input_sizes.extend(s.input_sizes)
        add_pairs(sums.pairs, pairs_of(used), self.bounded)
        if f.failures:
            _count_failures(sums, f)
        if f.unreadable:
            sums.unreadable.append(UnreadableFile(f.path, len(f.unreadable), f.unreadable[0].line))
        sums.notes.extend(f.notes)
        if f.orphans:
            sums.orphans += len(f.orphans)
            sums.orphan_errors += sum(o.is_error for o in f.orphans)

    def add_chunk(
        self,
        chunk: UsageSums,
        copies: Sequence[FileCopies],
        used: Callable[[], Iterable[Mapping[str, int]]],
    ) -> None:
        """Add a worker's sums over a chunk of files, in which no call was known for a
        copy, less the `copies` the copy pass found in them: the totals `add` gives.
        `used` gives, if it is needed, each file's tools that are not all copies, and their
        calls (copies included), in path order."""
        self.sums.merge(chunk, pairs=False)
        changed = [change for f in copies if (change := self._take_back(f)) is not None]
        pairs = self.sums.pairs
        if self.bounded and len(pairs) + len(chunk.pairs) > stats.MAX_PAIRS:
            # some file's pairs may go past the bound, and drop the rarest: pair the files
            # one by one, as `add` does
            for tools in used():
                add_pairs(pairs, pairs_of(tools))
            return
        for pair, count in chunk.pairs.items():
            pairs[pair] = pairs.get(pair, 0) + count
        for before, after in changed:
            for pair in before:
                if pairs[pair] == 1:
                    del pairs[pair]
                else:
                    pairs[pair] -= 1
            add_pairs(pairs, after, bounded=False)

    def _take_back(
        self, f: FileCopies
    ) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]] | None:
        """Take back the counts of a file's copied calls; the file's pairs before and after
        when a tool of it is left with only copies (then it no longer counts there)."""
        tools, copied = f
        moved: dict[str, int] = {}
        for tool, answered, error, latency, message, result_size, input_size in copied:
            moved[tool] = moved.get(tool, 0) + 1
            t = self.sums.tools[tool]
            t.calls -= 1
            t.answered -= answered
            t.errors -= error
            if message is not None:
                add_messages(t.messages, ((message_key(message), 1),), -1)
            if latency is not None:
                self.taken.setdefault(tool, array("d")).append(latency)
            if result_size is not None:
                self.taken_results.setdefault(tool, array("d")).append(result_size)
            if input_size is not None:
                self.taken_inputs.setdefault(tool, array("d")).append(input_size)
        gone = [tool for tool, count in moved.items() if count == tools[tool]]
        if not gone:
            return None
        for tool in gone:
            self.sums.tools[tool].units -= 1  # with no unit left, it has no calls left either
        left = {tool: n for tool, n in tools.items() if tool not in gone}
        return pairs_of(tools), pairs_of(left)

    def stats(self, registry: Registry | None = None) -> UsageStats:
        """The statistics, each tool's latencies less those taken back."""
        tools = dict(self.sums.tools)
        for name in self.taken.keys() | self.taken_results.keys() | self.taken_inputs.keys():
            if name in tools:
                t = tools[name]
                tools[name] = replace(
                    t,
                    exact=without(t.exact, self.taken.get(name)),
                    result_sizes=without(t.result_sizes, self.taken_results.get(name)),
                    input_sizes=without(t.input_sizes, self.taken_inputs.get(name)),
                )
        return replace(self.sums, tools=tools).stats(registry)


def _count_failures(sums: UsageSums, f: FileReport) -> None:
    """Count each failing call's normalised message under its tool (copies are counted
    in the file they were copied from)."""
    counted: dict[str, dict[str, int]] = {}
    for failure in f.failures:
        if not failure.copied:
            messages = counted.setdefault(failure.tool, {})
            key = message_key(failure.message)
            messages[key] = messages.get(key, 0) + 1
    for tool, messages in counted.items():
        add_messages(sums.tool(tool).messages, messages.items())


def usage_stats(result: ReplayResult, registry: Registry | None = None) -> UsageStats:
    """Calls copied from an earlier file of the run (resumed sessions) are counted once,
    with their results, errors and latencies. The totals gathered while replaying are
    used when the result has them (its files may not hold every latency)."""
    totals = result.usage
    if totals is None:
        if isinstance(result.files, PackedReports):  # they keep no latencies
            raise ValueError("a compact replay without usage totals (usage=False)")
        totals = UsageTotals()
        for report in result.files:
            totals.add(report)
    assert isinstance(totals, UsageTotals)
    return totals.stats(registry)


def without(values: array[float], taken: Sequence[float] | None) -> array[float]:
    """`values` less one of each of `taken` (which it holds), sorted: the sorted values cut
    around each taken run (`bisect`), a step in Python per distinct value taken, not per
    value kept. (Plain Python: numpy would cost 0.1 s to import.)"""
    if not taken:
        return values
    ordered = sorted(values)
    kept: list[float] = []
    start = 0
    for value, count in sorted(Counter(taken).items()):
        at = bisect_left(ordered, value, start)
        kept += ordered[start:at]
        start = at + count
    kept += ordered[start:]
    return array("d", kept)
