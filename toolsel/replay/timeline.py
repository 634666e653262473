"""Each session's calls in order, each paired with its result: what `replay --format html`
draws as a timeline. Built from the same `tool_start`/`tool_result` events that
`replay --format jsonl` writes, so nothing is read twice.

Memory stays bounded on huge transcripts: each file keeps its first `MAX_CALLS` calls
whole; past that, only calls that went wrong (an error result, or no result at all) are
kept, and the rest are counted in `omitted`."""

from __future__ import annotations

from dataclasses import dataclass, field

from toolsel.replay.report import ToolEvent

#: Calls of one file kept in full before only the ones that went wrong are kept.
MAX_CALLS = 20_000


@dataclass(frozen=True, slots=True)
class TimelineCall:
    id: str
    tool: str
    line: int
    parent: str | None = None  # the Task call this one ran under (a sub-agent's call)
    result_line: int | None = None  # None: never answered
    is_error: bool | None = None
    latency_ms: float | None = None
    copied: bool = False  # a copy of an earlier file's call (a resumed session)
    result_bytes: int | None = None  # the result's size, where the format's reader measures it


@dataclass(frozen=True, slots=True)
class FileTimeline:
    path: str
    calls: tuple[TimelineCall, ...]
    omitted: int = 0  # answered calls past MAX_CALLS that went right, not kept


@dataclass(frozen=True, slots=True)
class Timeline:
    files: tuple[FileTimeline, ...]

    def of(self, path: str) -> FileTimeline:
        return next((t for t in self.files if t.path == path), FileTimeline(path, ()))


@dataclass(slots=True)
class _FileCalls:
    calls: list[TimelineCall | None] = field(default_factory=list)
    open: dict[str, int] = field(default_factory=dict)  # call id -> index in `calls`
    omitted: int = 0


class TimelineRecorder:
    """An event sink (`replay_paths(on_event=...)`); `finish()` gives the timeline."""

    def __init__(self, max_calls: int = MAX_CALLS) -> None:
        self.max_calls = max_calls
        self.files: dict[str, _FileCalls] = {}

    def __call__(self, event: ToolEvent) -> None:
        calls = self.files.get(event.file)
        if calls is None:
            calls = self.files[event.file] = _FileCalls()
        if event.event == "tool_start":
            self._started(calls, event)
        else:
            self._answered(calls, event)

    def _started(self, calls: _FileCalls, event: ToolEvent) -> None:
        if event.id in calls.open:  # announced again (enriched, or a duplicate): one row
            return
        calls.open[event.id] = len(calls.calls)
        calls.calls.append(
            TimelineCall(event.id, event.tool or "", event.line, event.parent, copied=event.copied)
        )

    def _answered(self, calls: _FileCalls, event: ToolEvent) -> None:
        index = calls.open.pop(event.id, None)
        if index is None:
            return
        started = calls.calls[index]
        assert started is not None
        if index >= self.max_calls and not event.is_error:
            calls.calls[index] = None  # went right, past the cap: counted, not kept
            calls.omitted += 1
            return
        calls.calls[index] = TimelineCall(
            started.id,
            started.tool,
            started.line,
            started.parent,
            event.line,
            event.is_error,
            event.latency_ms,
            started.copied,
            event.result_bytes,
        )

    def finish(self) -> Timeline:
        return Timeline(
            tuple(
                FileTimeline(path, tuple(c for c in calls.calls if c is not None), calls.omitted)
                for path, calls in self.files.items()
            )
        )
