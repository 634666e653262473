"""Replay transcripts: read lines (nothing is lost), decode events, pair them, report.

`replay_paths` is the entry point. Files stream line by line; memory grows with the number
of open calls and distinct ids, not with file size.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from toolsel.errors import UsageError
from toolsel.replay.decode import (
    _UNSET,
    Call,
    Result,
    SidechainStart,
    decode,
    decode_as,
    structured_error,
)
from toolsel.replay.matcher import (
    PARENT_TASK_TOOLS,
    MatchState,
    OpenCall,
    is_copy,
    on_call,
    on_result,
    on_sidechain_start,
)

MAX_LINE_BYTES = 64 * 1024 * 1024
WHOLE_DOCUMENT_SUFFIXES = (".json", ".traj")
SEVERITY = {"conflicting": 3, "enriched": 2, "identical": 1, "reused": 0}


@dataclass(frozen=True, slots=True)
class Unreadable:
    line: int
    error: str


@dataclass(frozen=True, slots=True)
class Unanswered:
    id: str
    tool: str
    line: int
    interrupted: bool  # no result arrived after it: the session ended (or was killed) while it ran


@dataclass(frozen=True, slots=True)
class Orphan:
    id: str
    line: int


@dataclass(frozen=True, slots=True)
class DuplicateCall:
    id: str
    kind: str  # identical | enriched | conflicting | reused
    lines: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DuplicateResult:
    id: str
    lines: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Subagent:
    parent_id: str
    tool: str
    calls: int
    rule: str  # parent_tool_use_id | sidechain-prompt | single-active-parent | agent-file


@dataclass(frozen=True, slots=True)
class Violation:
    id: str
    tool: str
    rule: str
    message: str
    line: int


@dataclass(slots=True)
class ToolStats:
    calls: int = 0
    errors: int = 0
    latencies: list[float] = field(default_factory=list)
    copied: int = 0  # calls copied from an earlier file of the run (resumed sessions)
    copied_errors: int = 0

    @property
    def median_latency(self) -> float | None:
        return statistics.median(self.latencies) if self.latencies else None


@dataclass(slots=True)
class FileReport:
    path: str
    format: str = "unknown"
    lines: int = 0
    blank: int = 0
    calls: int = 0
    results: int = 0
    paired: int = 0
    error_results: int = 0
    copied_calls: int = 0  # calls whose id and tool an earlier file of the run already had
    unreadable: list[Unreadable] = field(default_factory=list)
    unanswered: list[Unanswered] = field(default_factory=list)
    orphans: list[Orphan] = field(default_factory=list)
    duplicate_calls: list[DuplicateCall] = field(default_factory=list)
    duplicate_results: list[DuplicateResult] = field(default_factory=list)
    subagents: list[Subagent] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    tools: dict[str, ToolStats] = field(default_factory=dict)
    agent_id: str | None = None  # set for Claude Code sub-agent files
    task_agents: dict[str, tuple[str, str]] = field(
        default_factory=dict
    )  # agentId -> (Task id, tool)


@dataclass(frozen=True, slots=True)
class ReplayResult:
    files: tuple[FileReport, ...]

    def total(self, name: str) -> int:
        return sum(len(v) if isinstance(v := getattr(f, name), list) else v for f in self.files)


@dataclass(frozen=True, slots=True)
class Event:
    """One line of `--format jsonl`: a tool_start or tool_result, as the seeds emit them."""

    event: str
    id: str
    tool: str | None
    parent: str | None
    parent_rule: str | None
    turn_id: str | None
    file: str
    line: int


EventSink = Callable[[Event], None]
Progress = Callable[[int], None]  # called with the number of bytes read since the last call


# -- input ---------------------------------------------------------------------------------


def expand_inputs(paths: list[str]) -> list[str]:
    """Files, directories (recursively: *.jsonl, *.json, *.traj) and globs; '-' is stdin."""
    import glob

    found: list[str] = []
    for raw in paths:
        if raw == "-":
            found.append(raw)
            continue
        path = Path(raw)
        if path.is_dir():
            found.extend(
                sorted(
                    str(p)
                    for p in path.rglob("*")
                    if p.is_file() and p.suffix in (".jsonl", ".json", ".traj", ".ndjson")
                )
            )
        elif path.is_file():
            found.append(raw)
        elif any(ch in raw for ch in "*?["):
            matches = sorted(glob.glob(raw, recursive=True))  # noqa: PTH207 - user patterns may be absolute
            if not matches:
                raise UsageError(f"{raw}: no file matches this pattern")
            found.extend(matches)
        else:
            raise UsageError(f"{raw}: no such file or directory")
    if not found:
        raise UsageError("no transcript files found", hint="pass files, directories or globs")
    return found


def read_objects(
    path: str, report: FileReport, progress: Progress | None = None
) -> Iterator[tuple[int, Any]]:
    """(line number, parsed JSON) for every readable line; unreadable lines go into `report`."""
    handle = _open(path)
    with handle:
        if path != "-" and Path(path).suffix in WHOLE_DOCUMENT_SUFFIXES:
            data = handle.read()
            document = _whole_document(data)
            if document is not None:
                report.lines = 1
                yield from ((i, obj) for i, obj in enumerate(document, start=1))
                return
            lines: Iterator[bytes] = iter(data.splitlines(keepends=True))
        else:
            lines = iter(handle)
        yield from _jsonl(lines, report, progress)


def _open(path: str) -> Any:
    import sys

    if path == "-":
        return sys.stdin.buffer
    try:
        return Path(path).open("rb")
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _whole_document(data: bytes) -> list[Any] | None:
    try:
        document = orjson.loads(data.removeprefix(b"\xef\xbb\xbf"))
    except orjson.JSONDecodeError:
        return None
    if isinstance(document, list):
        return document
    if isinstance(document, dict):
        for key in ("history", "messages", "traj"):  # SWE-agent .traj, chat logs, tau-bench runs
            if isinstance(document.get(key), list):
                return list(document[key])
        return [document]
    return None


def _jsonl(
    lines: Iterator[bytes], report: FileReport, progress: Progress | None = None
) -> Iterator[tuple[int, Any]]:
    """orjson first (JSON allows the trailing newline, CR and spaces); only a line that fails
    is looked at again: a BOM, a blank line, or an unreadable one with its reason."""
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    limit = MAX_LINE_BYTES
    number = 0
    consumed = 0
    for number, raw in enumerate(lines, start=1):
        if progress is not None:
            consumed += len(raw)
            if number % 2048 == 0:
                progress(consumed)
                consumed = 0
        if len(raw) > limit:
            line = raw.rstrip(b"\r\n")
            if len(line) > limit:
                report.unreadable.append(
                    Unreadable(
                        number, f"line is {len(line):,} bytes, over the {limit:,}-byte limit"
                    )
                )
                continue
        try:
            parsed = loads(raw)
        except decode_error as first:
            error: Exception = first
            line = raw.removeprefix(b"\xef\xbb\xbf") if number == 1 else raw
            stripped = line.rstrip(b"\r\n")
            if not stripped or stripped.isspace():
                report.blank += 1
                continue
            if line is not raw:  # a BOM on the first line
                try:
                    parsed = loads(stripped)
                except decode_error as again:
                    error = again
                else:
                    yield number, parsed
                    continue
            report.unreadable.append(
                Unreadable(number, _reason(stripped, error, line.endswith(b"\n")))
            )
            continue
        yield number, parsed
    report.lines = number


def _reason(line: bytes, exc: Exception, ends_with_newline: bool) -> str:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"not valid UTF-8 (byte 0x{line[bad.start]:02x} at column {bad.start + 1})"
    if not ends_with_newline and line.lstrip().startswith((b"{", b"[")):
        return "truncated last line (no newline at end of file; the writer was probably killed)"
    return f"not JSON ({str(exc).split(':')[0]})"


# -- replay --------------------------------------------------------------------------------


def replay_file(
    path: str,
    *,
    checker: Any = None,
    sink: EventSink | None = None,
    parent_tools: frozenset[str] = PARENT_TASK_TOOLS,
    input_format: str | None = None,
    progress: Progress | None = None,
    earlier_calls: dict[str, str] | None = None,
) -> FileReport:
    """Replay one transcript; `input_format` forces a format instead of detecting it per line.
    With `earlier_calls` (call id -> tool of the files replayed before it in the same run),
    calls copied from those files are counted, and this file's calls are added to it."""
    report = FileReport(path)
    state = MatchState(lambda tool: tool in parent_tools)
    if earlier_calls is not None:
        state.earlier_calls, state.started_calls = earlier_calls, {}
    formats: Counter[str] = Counter()
    duplicates: dict[str, tuple[str, list[int]]] = {}
    duplicate_result_lines: dict[str, list[int]] = {}  # only ids that really repeat
    children: Counter[tuple[str, str, str]] = Counter()

    def general(number: int, obj: Any) -> None:
        """Decode one line in its format and feed its calls and results to the matcher."""
        decoded = decode(obj) if input_format is None else decode_as(obj, input_format)
        if decoded.format is None:
            report.unreadable.append(
                Unreadable(number, f"valid JSON in an unexpected shape ({_shape(obj)})")
            )
            return
        formats[decoded.format] += 1
        if decoded.agent_id and report.agent_id is None:
            report.agent_id = decoded.agent_id
        for event in decoded.events:
            if isinstance(event, SidechainStart):
                on_sidechain_start(state, event)
            elif isinstance(event, Call):
                _handle_call(state, event, number, report, duplicates, children, checker, sink)
            else:
                _handle_result(
                    state, event, number, report, duplicates, duplicate_result_lines, checker, sink
                )

    objects = read_objects(path, report, progress)
    if input_format is None and checker is None and sink is None:
        _claude_hot_loop(
            objects, general, state, report, formats, duplicates, duplicate_result_lines, children
        )
    else:
        for number, obj in objects:
            general(number, obj)
    _finish(state, report, duplicates, duplicate_result_lines, children, formats)
    if earlier_calls is not None and state.started_calls:
        for call_id, tool in state.started_calls.items():
            earlier_calls.setdefault(call_id, tool)
    return report


def _claude_hot_loop(
    objects: Iterator[tuple[int, Any]],
    general: Callable[[int, Any], None],
    state: MatchState,
    report: FileReport,
    formats: Counter[str],
    duplicates: dict[str, tuple[str, list[int]]],
    duplicate_result_lines: dict[str, list[int]],
    children: Counter[tuple[str, str, str]],
) -> None:
    """The hot path: Claude Code user/assistant lines, decoded and matched inline, with the
    loop's invariants in locals. It makes exactly the moves `general` would, and hands every
    block that is not the common case (a first call with no parent to find, a result for an
    open call) to the general handlers, and every other line (sidechains, sub-agent results,
    other formats) to `general`. A property test and the real transcripts check that both
    paths give the same report."""
    open_calls = state.open_calls
    answered = state.answered
    waiting = state.waiting_results
    active_parents = state.active_parents
    is_parent_task = state.is_parent_task
    tools = report.tools
    track_copies = state.started_calls is not None
    calls = paired = results = errors = copied_calls = claude_lines = 0
    for number, obj in objects:
        if type(obj) is not dict:
            general(number, obj)
            continue
        kind = obj.get("type")
        if (
            (kind != "assistant" and kind != "user")
            or "uuid" not in obj
            or "parent_tool_use_id" in obj
            or obj.get("isSidechain")
        ):
            general(number, obj)
            continue
        structured = obj["toolUseResult"] if "toolUseResult" in obj else obj.get("tool_use_result")
        if type(structured) is dict and "agentId" in structured:
            general(number, obj)
            continue
        claude_lines += 1
        agent = obj.get("agentId")
        if agent and isinstance(agent, str) and report.agent_id is None:
            report.agent_id = agent
        message = obj.get("message")
        if type(message) is not dict:
            continue
        content = message.get("content")
        if type(content) is not list:
            continue
        message_id = message.get("id")
        msg_id = message_id if isinstance(message_id, str) else None
        timestamp = obj.get("timestamp")
        if not isinstance(timestamp, str):
            timestamp = None
        for block in content:
            if type(block) is not dict:
                continue
            block_type = block.get("type")
            if not isinstance(block_type, str):
                continue
            if block_type.endswith("tool_use"):
                call_id = block.get("id")
                if not isinstance(call_id, str):
                    continue
                call = Call(
                    call_id, str(block.get("name", "")), block.get("input", {}), msg_id,
                    _UNSET, timestamp, False,
                )  # fmt: skip
                if (
                    call_id in open_calls
                    or call_id in answered
                    or call_id in waiting
                    or active_parents
                    or is_parent_task(call.tool)
                ):
                    _handle_call(state, call, number, report, duplicates, children, None, None)
                    continue
                copied = track_copies and is_copy(state, call_id, call.tool)
                open_calls[call_id] = OpenCall(call, number, None, None, [number], copied)
                calls += 1
                stats = tools.get(call.tool)
                if stats is None:
                    stats = tools[call.tool] = ToolStats()
                stats.calls += 1
                if copied:
                    copied_calls += 1
                    stats.copied += 1
            elif block_type.endswith("tool_result"):
                call_id = block.get("tool_use_id")
                if not isinstance(call_id, str):
                    continue
                flag = block.get("is_error")
                is_error = (
                    flag
                    if isinstance(flag, bool)
                    else structured is not None and structured_error(structured)
                )
                opened = open_calls.pop(call_id, None)
                if opened is None:
                    result = Result(call_id, is_error, _UNSET, timestamp, None)
                    _handle_result(
                        state, result, number, report, duplicates, duplicate_result_lines,
                        None, None,
                    )  # fmt: skip
                    continue
                # what matcher.close does: the call is answered, and no longer an open parent
                answered[call_id] = (opened.line << 32) | number
                if active_parents:
                    active_parents.pop(call_id, None)
                results += 1
                paired += 1
                state.last_result_line = number
                stats = tools.get(opened.call.tool)
                if stats is None:
                    stats = tools[opened.call.tool] = ToolStats()
                if is_error:
                    errors += 1
                    stats.errors += 1
                    stats.copied_errors += opened.copied
                start = opened.call.timestamp
                if start is not None and timestamp is not None:
                    latency = _seconds_between(start, timestamp)
                    if latency is not None:
                        stats.latencies.append(latency)
    report.calls += calls
    report.results += results
    report.paired += paired
    report.error_results += errors
    report.copied_calls += copied_calls
    if claude_lines:
        formats["claude-code"] += claude_lines


def _handle_call(
    state: MatchState,
    call: Call,
    line: int,
    report: FileReport,
    duplicates: dict[str, tuple[str, list[int]]],
    children: Counter[tuple[str, str, str]],
    checker: Any,
    sink: EventSink | None,
) -> None:
    pairing = on_call(state, call, line)
    if pairing.kind == "merge":
        return
    if pairing.kind == "duplicate":
        _note_duplicate(
            duplicates,
            call.id,
            pairing.duplicate_kind or "identical",
            pairing.call.lines if pairing.call else [line],
        )
        if pairing.duplicate_kind == "enriched" and sink is not None and pairing.call is not None:
            _emit(sink, "tool_start", pairing.call, report.path, line)
        return
    opened = pairing.call
    assert opened is not None
    report.calls += 1
    stats = report.tools.setdefault(call.tool, ToolStats())
    stats.calls += 1
    if opened.copied:
        report.copied_calls += 1
        stats.copied += 1
    if pairing.duplicate_kind == "reused":
        _note_duplicate(duplicates, call.id, "reused", [pairing.previous_line or line, line])
    if opened.parent:
        parent_tool = state.active_parents.get(opened.parent, "")
        children[(opened.parent, parent_tool, opened.parent_rule or "")] += 1
    if checker is not None:
        report.violations.extend(checker.check(call, line))
    if sink is not None:
        _emit(sink, "tool_start", opened, report.path, line)
    if pairing.kind == "pair" and pairing.result is not None:
        _paired(report, opened, pairing.result, line, sink)


def _handle_result(
    state: MatchState,
    result: Result,
    line: int,
    report: FileReport,
    duplicates: dict[str, tuple[str, list[int]]],
    duplicate_result_lines: dict[str, list[int]],
    checker: Any,
    sink: EventSink | None,
) -> None:
    report.results += 1
    if result.is_error:
        report.error_results += 1
    if result.agent_id:
        task_tool = (
            state.open_calls[result.id].call.tool if result.id in state.open_calls else "Task"
        )
        report.task_agents[result.agent_id] = (result.id, task_tool)
    pairing = on_result(state, result, line)
    if pairing.kind == "pair" and pairing.call is not None:
        _paired(report, pairing.call, result, line, sink)
        if checker is not None and not result.is_error:
            checker.succeeded_call(pairing.call.call.tool)
    elif pairing.kind == "duplicate-result":
        lines = duplicate_result_lines.setdefault(result.id, [pairing.previous_line or line])
        lines.append(line)


def _paired(
    report: FileReport,
    opened: Any,
    result: Result,
    line: int,
    sink: EventSink | None,
) -> None:
    report.paired += 1
    tool, start_time = opened.call.tool, opened.call.timestamp
    stats = report.tools.setdefault(tool, ToolStats())
    if result.is_error:
        stats.errors += 1
        stats.copied_errors += opened.copied
    latency = _seconds_between(start_time, result.timestamp)
    if latency is not None:
        stats.latencies.append(latency)
    if sink is not None:
        _emit(sink, "tool_result", opened, report.path, line)


def _finish(
    state: MatchState,
    report: FileReport,
    duplicates: dict[str, tuple[str, list[int]]],
    duplicate_result_lines: dict[str, list[int]],
    children: Counter[tuple[str, str, str]],
    formats: Counter[str],
) -> None:
    for call_id, opened in state.open_calls.items():
        report.unanswered.append(
            Unanswered(call_id, opened.call.tool, opened.line, opened.line > state.last_result_line)
        )
    for call_id, waiting in state.waiting_results.items():
        for _, line in waiting:
            report.orphans.append(Orphan(call_id, line))
    report.duplicate_calls = [
        DuplicateCall(i, kind, tuple(sorted(set(lines)))) for i, (kind, lines) in duplicates.items()
    ]
    report.subagents = [
        Subagent(parent, tool or "Task", count, rule)
        for (parent, tool, rule), count in children.items()
    ]
    report.format = formats.most_common(1)[0][0] if formats else "unknown"
    report.duplicate_results = [
        DuplicateResult(i, tuple(lines)) for i, lines in duplicate_result_lines.items()
    ]


def _note_duplicate(
    duplicates: dict[str, tuple[str, list[int]]], call_id: str, kind: str, lines: list[int]
) -> None:
    previous = duplicates.get(call_id)
    if previous is None or SEVERITY[kind] >= SEVERITY[previous[0]]:
        merged = sorted(set((previous[1] if previous else []) + list(lines)))
        duplicates[call_id] = (kind, merged)
    else:
        duplicates[call_id] = (previous[0], sorted(set(previous[1] + list(lines))))


def _emit(sink: EventSink, kind: str, opened: Any, file: str, line: int) -> None:
    sink(
        Event(
            kind,
            opened.call.id,
            opened.call.tool,
            opened.parent,
            opened.parent_rule,
            opened.call.message_id,
            file,
            line,
        )
    )


def _seconds_between(start: Any, end: Any) -> float | None:
    if not isinstance(start, str) or not isinstance(end, str):
        return None
    if start == end:
        return 0.0
    try:
        delta = datetime.fromisoformat(end) - datetime.fromisoformat(start)  # 3.11: "Z" is UTC
    except (ValueError, TypeError):  # TypeError: one has a zone and the other not
        return None
    return max(delta.total_seconds(), 0.0)


def _shape(obj: Any) -> str:
    if isinstance(obj, dict):
        keys = ", ".join(sorted(obj)[:5])
        return f"an object with keys {keys}" if keys else "an empty object"
    return type(obj).__name__


def replay_paths(
    paths: list[str],
    *,
    checker_factory: Callable[[], Any] | None = None,
    sink: EventSink | None = None,
    parent_tools: frozenset[str] = PARENT_TASK_TOOLS,
    input_format: str | None = None,
    progress: Progress | None = None,
) -> ReplayResult:
    """Replay every transcript under `paths`, then link Claude Code sub-agent files to their Task."""
    inputs = expand_inputs(paths)
    # several files: remember call ids across them, to recognise resumed-session copies
    earlier: dict[str, str] | None = {} if len(inputs) > 1 else None
    files = [
        replay_file(
            p,
            checker=checker_factory() if checker_factory else None,
            sink=sink,
            parent_tools=parent_tools,
            input_format=input_format,
            progress=progress,
            earlier_calls=earlier,
        )
        for p in inputs
    ]
    _link_agent_files(files)
    return ReplayResult(tuple(files))


def _link_agent_files(files: list[FileReport]) -> None:
    """Claude Code 2.x: a sub-agent file's agentId names the Task result that launched it."""
    owners = {
        agent: (report, task) for report in files for agent, task in report.task_agents.items()
    }
    for report in files:
        if report.agent_id and report.agent_id in owners:
            parent_report, (task_id, task_tool) = owners[report.agent_id]
            parent_report.subagents.append(Subagent(task_id, task_tool, report.calls, "agent-file"))
