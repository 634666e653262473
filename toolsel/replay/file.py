"""Replay one transcript file (`replay_file`): its lines decoded (the format detected per
line, or forced), its calls and results paired by one matcher, the listeners told of
every move, and its report built. The file streams line by line; memory grows with the
number of open calls and distinct ids, not with file size."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from toolsel.acyclic import gc_paused
from toolsel.registry.model import DEFAULT_PARENT_TASK_TOOLS, Permission, Registry
from toolsel.replay.build import build_report, main_format
from toolsel.replay.checks import RegistryChecker
from toolsel.replay.events import UNKNOWN, Result
from toolsel.replay.formats import DECODERS, detect, fast
from toolsel.replay.lines import Progress, Reading, Unreadable, read_objects, shape
from toolsel.replay.matcher import HANDLERS, Listener, Matcher, OpenCall
from toolsel.replay.memory import CopyLog, RunMemory
from toolsel.replay.report import FileReport, ToolEvent, UnreadTools
from toolsel.replay.unread import may_hold_tool_content, tool_content
from toolsel.timeparse import seconds_between
from toolsel.validate import InputValidator

if TYPE_CHECKING:
    from toolsel.replay.window import CallWindow

EventSink = Callable[[ToolEvent], None]


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    """How each file of a run is replayed, the same in every process: checked against
    `registry` (and `permission`, `allow_unknown`) when given; read as `input_format`
    (None: detected per line); only the calls in `window` counted per tool (`stats`)."""

    registry: Registry | None = None
    permission: Permission | None = None
    input_format: str | None = None
    allow_unknown: tuple[str, ...] = ()
    window: CallWindow | None = None
    #: not an option: a cache of this process's run (unknown tool -> its "did you mean")
    close_names: dict[str, str] = field(default_factory=dict, compare=False)

    def replay(self, path: str, **more: Any) -> FileReport:
        """`replay_file` of `path` with these options, and `more` of its arguments."""
        return replay_file(
            path,
            registry=self.registry,
            permission=self.permission,
            input_format=self.input_format,
            allow_unknown=self.allow_unknown,
            window=self.window,
            close_names=self.close_names,
            **more,
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
    close_names: dict[str, str] | None = None,
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
    checker = None
    if registry is not None:
        checker = RegistryChecker(
            registry,
            permission,
            validators=validators,
            allow_unknown=allow_unknown,
            transcript_format=lambda: main_format(formats) or None,
            close_names=close_names,
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
    unknown = _read(path, matcher, reading, formats, progress, input_format)
    if isinstance(memory, RunMemory):
        memory.file_done(matcher.sessions)  # its calls were all asked about (`is_copy`)
    violations = checker.finish() if checker is not None else ()
    unread = unknown.unread_tools(matcher)
    return build_report(shown, reading, matcher, formats, violations, unknown.skipped, unread)


def _read(
    path: str,
    matcher: Matcher,
    reading: Reading,
    formats: Counter[str],
    progress: Progress | None,
    input_format: str | None,
) -> _UnknownRecords:
    """Feed every decoded line's events to the matcher; what no decoder read is kept."""
    unknown = _UnknownRecords()
    handlers = HANDLERS
    # a person's messages are worked out for `learn` (`on_human`), else only while the file
    # has no call or result (a line read as nothing is looked at again then: `suspect`)
    humans, listening = [True], matcher.on_human is not None
    with gc_paused():
        for number, obj, decoded in _decoded(path, reading, progress, input_format, humans):
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
                    unknown.suspect(obj, number)
                continue
            for event in events:
                handler = handlers.get(type(event))
                if handler is not None:
                    handler(matcher, event, number)
            if humans[0] and not listening and (matcher.calls or matcher.results):
                humans[0] = False
    return unknown


def _decoded(
    path: str,
    reading: Reading,
    progress: Progress | None,
    input_format: str | None,
    humans: list[bool],
) -> Iterator[fast.Record]:
    """Each readable line's number, value and decoding: detected per line through the fast
    path (`formats.fast`, a person's messages read while `humans[0]`), or by the decoder
    `input_format` names."""
    if input_format is None:
        return fast.records(path, reading, progress, detect, humans)
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
            # the fast path gives a record's raw line: one whose text cannot hold tool
            # content (most often a file's first record, a summary) is not parsed again
            if type(obj) is bytes and not may_hold_tool_content(obj):
                return
            where = tool_content(fast.value(obj))
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
    for a file, `file_read` is given that file's report once it is read (its unreadable
    lines), `join` adds what one found (each file's, in path order)."""

    def fork(self) -> ForkingPromptSink: ...

    def file_read(self, report: FileReport) -> None: ...

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
                result_bytes=None if result is None or result.size < 0 else result.size,
                error_text=_error_text(result),
            )
        )

    def started(self, opened: OpenCall, line: int) -> None:
        self._emit("tool_start", opened, line)

    def enriched(self, opened: OpenCall, line: int) -> None:
        self._emit("tool_start", opened, line)  # an enriched call is announced again

    def paired(self, opened: OpenCall, result: Result, line: int) -> None:
        self._emit("tool_result", opened, line, result)


def _error_text(result: Result | None) -> str | None:
    """An error result's first line, as replay's JSON gives it; None for any other."""
    if result is None or not result.is_error:
        return None
    from toolsel.replay.failures import error_message

    return error_message(result.error)
