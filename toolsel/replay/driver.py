"""Run the decoders over transcript files and pair what they find: `replay_paths` is the
entry point. Files stream line by line; memory grows with the number of open calls and
distinct ids, not with file size."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Protocol

from toolsel.acyclic import gc_paused
from toolsel.registry.model import DEFAULT_PARENT_TASK_TOOLS, Permission, Registry
from toolsel.replay.checks import RegistryChecker
from toolsel.replay.events import UNKNOWN, Result
from toolsel.replay.formats import DECODERS, detect, fast
from toolsel.replay.lines import Progress, Reading, Unreadable, expand_inputs, read_objects, shape
from toolsel.replay.matcher import Listener, Matcher, OpenCall, RunMemory, seconds_between
from toolsel.replay.report import (
    FileReport,
    ReplayResult,
    Subagent,
    ToolEvent,
    UnreadTools,
    build_report,
)
from toolsel.replay.unread import tool_content
from toolsel.validate import InputValidator

EventSink = Callable[[ToolEvent], None]


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
) -> ReplayResult:
    """Replay every transcript under `paths` (checking calls against `registry` when given),
    then link Claude Code sub-agent files to the Task call that launched them. `prompts`
    (`toolsel learn`) is told of each human message and each call and its outcome."""
    inputs = expand_inputs(paths)
    # several files: remember call ids and sessions across them, to recognise copies
    memory = RunMemory() if len(inputs) > 1 else None
    validators: dict[str, InputValidator] = {}  # one per tool for the whole run, not per file
    files = [
        replay_file(
            path,
            registry=registry,
            permission=permission,
            on_event=on_event,
            input_format=input_format,
            progress=progress,
            memory=memory,
            prompts=prompts,
            allow_unknown=allow_unknown,
            validators=validators,
        )
        for path in inputs
    ]
    return ReplayResult(_link_agent_files(files))


def replay_file(
    path: str,
    *,
    registry: Registry | None = None,
    permission: Permission | None = None,
    on_event: EventSink | None = None,
    input_format: str | None = None,
    progress: Progress | None = None,
    memory: RunMemory | None = None,
    prompts: PromptSink | None = None,
    allow_unknown: tuple[str, ...] = (),
    validators: dict[str, InputValidator] | None = None,
    watch: Callable[[Matcher], Listener] | None = None,
) -> FileReport:
    """Replay one transcript; `input_format` forces a decoder instead of detecting one per
    line. With `memory` (what the files replayed before it in the same run left), calls
    copied from those files are counted, and this file's calls and sessions are added.
    `watch` is given the file's matcher and returns one more listener (`toolsel.events`)."""
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
        listeners.append(_EventStream(shown, on_event))
    if prompts is not None:
        prompts.start_file(shown)
        listeners.append(prompts)
    matcher = Matcher(parent_task_tools(registry).__contains__, listeners, memory)
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
    if memory is not None:
        memory.remember(matcher)
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


class _EventStream:
    """A listener that turns the matcher's moves into `tool_start`/`tool_result` events."""

    def __init__(self, path: str, sink: EventSink) -> None:
        self.path = path
        self.sink = sink

    def _emit(self, kind: str, opened: OpenCall, line: int, result: Result | None = None) -> None:
        call = opened.call
        latency = None
        if result is not None and call.timestamp and result.timestamp:
            seconds = seconds_between(call.timestamp, result.timestamp)
            latency = round(seconds * 1000, 3) if seconds is not None else None
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


def _link_agent_files(files: list[FileReport]) -> tuple[FileReport, ...]:
    """Claude Code 2.x: a sub-agent file's agentId names the Task result that launched it."""
    owners = {
        agent: (i, task) for i, f in enumerate(files) for agent, task in f.task_agents.items()
    }
    links: dict[int, list[Subagent]] = {}
    for report in files:
        if report.agent_id and report.agent_id in owners:
            owner, (task_id, task_tool) = owners[report.agent_id]
            links.setdefault(owner, []).append(
                Subagent(task_id, task_tool, report.calls, "agent-file")
            )
    return tuple(
        replace(f, subagents=f.subagents + tuple(links[i])) if i in links else f
        for i, f in enumerate(files)
    )
