"""Pair tool calls with their results by id: the one matcher every format's events go
through. Only a call whose record carries no id is paired by position (see below).

State is bounded by what is still open: open calls, results waiting for a call that has not
appeared yet, and the ids already answered (to tell a reused id from a duplicate).

- A call id seen again in the same streamed message (same `message.id`) is merged.
- Seen again in another message while still open: `enriched` (richer input: the call is
  updated, as streaming agents re-emit an enriched tool_start), `conflicting` (another tool
  name or contradicting input) or `identical`.
- Seen again after it was answered: a new call, reported as `reused` (OpenAI models do this).
- A result pairs with the open call of its id, even when it arrived first. A second result
  for an answered id is a duplicate result; a result whose id never had a call is an orphan.

- An action a format logs twice comes once as a call and once as an `implicit` echo: the
  echo opens the call when its id is new, merges into it when it is open, and is dropped once
  it was answered; an `implicit` result answers only a call that an echo opened.
- A call with no id gets a stable name, `noid:<line>:<n>`, and is answered by position: a
  result with no id in the same record answers it, else the oldest open call without an id
  takes the next result with no id, or whose id matches no call (Cursor transcripts answer
  id-less calls with `t1`, `t2`). A call marked `by_position` keeps its id and joins that
  queue too (Cline answers its native calls with id-less text); when such calls name their
  turn (`message_id`), a result takes the first open call of the newest turn, so a call an
  interruption left open is not answered by the next turn's results.

Sub-agents: a call's parent is the format's explicit parent id (stream-json), the Task whose
prompt started the sidechain (Claude Code 1.0.x), or the one Task call still running.
"""

from __future__ import annotations

from array import array
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any, Protocol

from msgspec import Struct, field

from toolsel.registry.model import DEFAULT_PARENT_TASK_TOOLS
from toolsel.replay.duplicates import DUPLICATE_SEVERITY, duplicate_kind, enrich
from toolsel.replay.events import (
    UNSET,
    AgentFile,
    Call,
    Event,
    Human,
    Result,
    Session,
    SidechainStart,
)
from toolsel.replay.memory import CopyLog, CopyMemory
from toolsel.replay.sizes import input_size

fromisoformat = datetime.fromisoformat
NAN = float("nan")


class OpenCall(Struct, gc=False):
    call: Call
    line: int
    parent: str | None
    parent_rule: str | None
    copied: bool = False  # the id and tool were already called in an earlier file of the run
    number: int = 0  # the how-manieth call the file opened, from 0
    counted: bool = True  # in the window of time counted per tool (`stats --since`)
    seen_again: list[int] | None = None  # later lines with the same id, while still open

    @property
    def lines(self) -> list[int]:
        return [self.line, *(self.seen_again or ())]


class ToolTally(Struct, gc=False):
    """Per tool, in one file: what the matcher counted."""

    calls: int = 0
    errors: int = 0
    answered: int = 0
    copied: int = 0  # calls copied from an earlier file of the run (resumed sessions)
    copied_errors: int = 0
    copied_answered: int = 0
    # seconds from call to result, of the calls that are not copies (a copy's time was
    # already counted in the file it was copied from)
    latencies: array[float] = field(default_factory=lambda: array("d"))
    # bytes of the answered calls' results (where the format records them) and inputs, of
    # the calls that are not copies (`replay.sizes`)
    result_sizes: array[float] = field(default_factory=lambda: array("d"))
    input_sizes: array[float] = field(default_factory=lambda: array("d"))


class Listener(Protocol):
    """Told about each call as it starts and as it is answered (registry checks, JSONL events)."""

    def started(self, opened: OpenCall, line: int) -> None: ...

    def enriched(self, opened: OpenCall, line: int) -> None:
        """The call's input was completed by a later line (same message or not)."""
        ...

    def paired(self, opened: OpenCall, result: Result, line: int) -> None: ...


class Matcher:
    """The pairing state of one transcript file, fed one line's events at a time."""

    def __init__(
        self,
        is_parent_task: Callable[[str], bool] = DEFAULT_PARENT_TASK_TOOLS.__contains__,
        listeners: Sequence[Listener] = (),
        memory: CopyMemory | None = None,
        window: Callable[[str | None], bool] | None = None,
    ) -> None:
        self.is_parent_task = is_parent_task
        self.listeners = tuple(listeners)
        self.open_calls: dict[str, OpenCall] = {}
        # id -> (call line << 32) | result line: one int per answered id keeps memory small
        self.answered: dict[str, int] = {}
        self.waiting_results: dict[str, list[tuple[Result, int]]] = {}
        self.active_parents: dict[str, str] = {}  # open parent-task call id -> tool
        self.sidechain_parent: str | None = None  # 1.0.x: the Task whose sidechain is read
        self.task_prompts: dict[str, str] = {}  # Task prompt -> Task call id
        self.last_result_line = 0
        # several files: call id -> tool of the earlier files of the run, and this file's
        self.memory = memory
        self.log = memory if isinstance(memory, CopyLog) else None
        self.on_human: Callable[[str, int], None] | None = None  # `toolsel learn` listens
        self.sessions: set[str] = set()
        self.linked_files: set[int] = set()  # earlier files of the run in this file's lineage
        # what the report is built from
        self.calls = self.results = self.paired = self.error_results = self.copied_calls = 0
        self.calls_without_id = self.results_without_id = 0
        # calls without an id, oldest first (closed ones are skipped when popped), and the
        # line and counter that name the next id-less event
        self.idless: deque[str] = deque()
        self._noid_line = 0
        self._noid_count = 0
        self.tools: dict[str, ToolTally] = {}
        # `window` (a call's timestamp -> whether it is counted): the calls outside it are
        # paired as any other, and tallied apart, in `uncounted`, which no report shows
        self.window = window
        self.uncounted: dict[str, ToolTally] = {}
        #: each failing call that was counted: (id, tool, result line, message, copied, number)
        self.failures: list[tuple[str, str, int, str, bool, int]] = []
        self.duplicates: dict[str, tuple[str, list[int]]] = {}
        self.duplicate_results: dict[str, list[int]] = {}
        self.children: Counter[tuple[str, str, str]] = Counter()
        self.task_agents: dict[str, tuple[str, str]] = {}  # agentId -> (Task id, tool)
        self.agent_id: str | None = None

    def feed(self, events: Iterable[Event], line: int) -> None:
        """Each event to its handler (the one dispatch: `HANDLERS`)."""
        handlers = HANDLERS
        for event in events:
            handler = handlers.get(type(event))
            if handler is not None:
                handler(self, event, line)

    def _sidechain(self, event: SidechainStart, line: int) -> None:
        self.sidechain_parent = self.task_prompts.get(event.prompt)

    def _agent_file(self, event: AgentFile, line: int) -> None:
        if self.agent_id is None:
            self.agent_id = event.agent_id

    def _session(self, event: Session, line: int) -> None:
        self.session(event.id)

    def _human(self, event: Human, line: int) -> None:
        if self.on_human is not None:
            self.on_human(event.text, line)

    # -- calls --------------------------------------------------------------------------
    def call(self, call: Call, line: int) -> None:
        call_id, tool = call.id, call.tool
        if not call_id:
            call_id = call.id = self._noid(line)
            self.calls_without_id += 1
            self.idless.append(call_id)
        elif call.by_position:
            self.idless.append(call_id)
        open_calls = self.open_calls
        existing = open_calls.get(call_id)
        if existing is not None:
            if call.implicit or existing.call.implicit:
                self._merge_echo(existing, call, line)  # one action, logged twice
            else:
                self._seen_again(existing, call, line)
            return
        if call.implicit and call_id in self.answered:
            return  # the echo of an action already answered
        if call.parent is UNSET and not self.active_parents and not call.sidechain:
            parent = rule = None  # the common case: nothing to be the child of
        else:
            parent, rule = self._parent_of(call)
        copied = self.memory is not None and self._is_copy(call)
        counted = self.window is None or self.window(call.timestamp)
        if not counted and self.log is not None:
            self.log.uncounted.add(self.calls)
        opened = open_calls[call_id] = OpenCall(
            call, line, parent, rule, copied, self.calls, counted
        )
        self.calls += 1
        tools = self.tools if counted else self.uncounted
        tally = tools.get(tool)
        if tally is None:
            tally = tools[tool] = ToolTally()
        tally.calls += 1
        if copied:
            self.copied_calls += 1
            tally.copied += 1
        previous = self.answered.pop(call_id, None)
        if previous is not None:
            self._note_duplicate(call_id, "reused", [previous >> 32, line])
        if parent:
            self.children[(parent, self.active_parents.get(parent, ""), rule or "")] += 1
        if self.is_parent_task(tool):
            self._parent_started(call)
        for listener in self.listeners:
            listener.started(opened, line)
        if self.waiting_results:
            waiting = self.waiting_results.get(call_id)
            if waiting:
                result, result_line = waiting.pop(0)
                if not waiting:
                    del self.waiting_results[call_id]
                self._close(opened, result, result_line)

    def _noid(self, line: int) -> str:
        """A stable name for an event with no id: its line and its place among the line's."""
        if line == self._noid_line:
            self._noid_count += 1
        else:
            self._noid_line, self._noid_count = line, 0
        return f"noid:{line}:{self._noid_count}"

    def _merge_echo(self, existing: OpenCall, call: Call, line: int) -> None:
        """The same action reported again (an echo, or the record an echo came before):
        never a duplicate; a richer input is kept."""
        first = existing.call
        if not call.implicit:
            # the action's own record, after its echo: from now on a call like any other (a
            # further record with its id is a duplicate), with the record's message id
            first.implicit = False
            if first.message_id is None:
                first.message_id = call.message_id
        if enrich(first, call):
            for listener in self.listeners:
                listener.enriched(existing, line)

    def _parent_started(self, call: Call) -> None:
        """A Task call: a parent for the calls that follow, and a prompt a sidechain names."""
        self.active_parents[call.id] = call.tool
        arguments = call.arguments
        prompt = arguments.get("prompt") if type(arguments) is dict else None
        if type(prompt) is str:
            self.task_prompts[prompt] = call.id

    def _seen_again(self, existing: OpenCall, call: Call, line: int) -> None:
        """The id of a call that is still open: merged, enriched, identical or conflicting."""
        if existing.seen_again is None:
            existing.seen_again = []
        existing.seen_again.append(line)
        if call.message_id and call.message_id == existing.call.message_id:
            # the same streamed message, written in parts: merged, not a duplicate
            if enrich(existing.call, call):
                for listener in self.listeners:
                    listener.enriched(existing, line)
            return
        kind = duplicate_kind(existing.call, call)
        if kind == "enriched" and enrich(existing.call, call):
            for listener in self.listeners:
                listener.enriched(existing, line)
        self._note_duplicate(call.id, kind, existing.lines)

    def _parent_of(self, call: Call) -> tuple[str | None, str | None]:
        if call.parent is not UNSET:
            return (call.parent, "parent_tool_use_id") if call.parent else (None, None)
        if call.sidechain and self.sidechain_parent:
            return self.sidechain_parent, "sidechain-prompt"
        candidates = [cid for cid in self.active_parents if cid != call.id]
        if len(candidates) == 1 and not self.is_parent_task(call.tool):
            return candidates[0], "single-active-parent"
        return None, None

    def _is_copy(self, call: Call) -> bool:
        """Whether this call copies one of an earlier file of the run: the same id and tool,
        in a file of the same lineage. A resumed Claude Code session copies the earlier
        messages, message ids included; Codex files share a session or thread id. Ids that
        restart in every run (`codex exec`'s item_0) are never copies across lineages."""
        assert self.memory is not None
        return self.memory.is_copy(call.id, call.tool, call.message_id, self.linked_files)

    def session(self, session_id: str) -> None:
        """This file belongs to `session_id`: earlier files of that session are its lineage."""
        if session_id in self.sessions:
            return
        self.sessions.add(session_id)
        if self.memory is not None:
            self.linked_files.update(self.memory.linked(session_id))

    # -- results ------------------------------------------------------------------------
    def result(self, result: Result, line: int) -> None:
        opened = self.open_calls.get(result.id)  # an id-less call's id is never ""
        if opened is None:
            self._unopened_result(result, line)
            return
        if result.implicit and not opened.call.implicit:
            return  # restated beside its echo: the action's own result counts
        self.results += 1
        if result.is_error:
            self.error_results += 1
        self.last_result_line = line
        if result.agent_id:
            self.task_agents[result.agent_id] = (result.id, opened.call.tool)
        self._close(opened, result, line)

    def _unopened_result(self, result: Result, line: int) -> None:
        """A result whose id no open call has: the answer, by position, to a call without an
        id; else a duplicate result, or one waiting for its call (an orphan at the end)."""
        call_id = result.id
        opened = None
        if self.idless and (not call_id or call_id not in self.answered):
            opened = self._idless_call(line, bool(call_id))
        if result.implicit and (opened is None or not opened.call.implicit):
            return  # restated beside its echo: the action's own result counts
        self.results += 1
        if result.is_error:
            self.error_results += 1
        self.last_result_line = line
        if not call_id:
            self.results_without_id += 1
        if opened is not None:
            result.id = call_id = opened.call.id
        elif not call_id:
            result.id = call_id = self._noid(line)  # no call to answer: an orphan
        if result.agent_id:
            self.task_agents[result.agent_id] = (call_id, opened.call.tool if opened else "Task")
        if opened is not None:
            self._close(opened, result, line)
            return
        previous = self.answered.get(call_id)
        if previous is not None:
            lines = self.duplicate_results.get(call_id)
            if lines is None:
                lines = self.duplicate_results[call_id] = [previous & 0xFFFFFFFF]
            lines.append(line)
            return
        self.waiting_results.setdefault(call_id, []).append((result, line))

    def _idless_call(self, line: int, has_id: bool) -> OpenCall | None:
        """The open call without an id that a result answers by position: for a result with
        no id, the one opened in the same record (its outcome inline), else the oldest; for a
        result whose id no call has, the oldest. None when none is open. (Answered calls
        leave the queue lazily, from either end.)"""
        idless, open_calls = self.idless, self.open_calls
        while idless and idless[0] not in open_calls:
            idless.popleft()
        while idless and idless[-1] not in open_calls:
            idless.pop()
        if not idless:
            return None
        newest = open_calls[idless[-1]]
        if newest.call.by_position and newest.call.message_id is not None:
            return self._first_of_turn(newest.call.message_id)
        if not has_id and newest.line == line:
            return newest
        return open_calls[idless[0]]

    def _first_of_turn(self, message_id: str) -> OpenCall:
        """The first open call of the newest turn (`message_id`): a format that answers by
        position answers the turn just made, in its order, and a call an interruption left
        open stays open instead of taking the next turn's answer."""
        open_calls = self.open_calls
        first = None
        for call_id in reversed(self.idless):
            opened = open_calls.get(call_id)
            if opened is None:
                continue  # answered: leaves the queue lazily
            if opened.call.message_id != message_id:
                break
            first = opened
        assert first is not None  # the newest open call is of this turn
        return first

    def _close(self, opened: OpenCall, result: Result, line: int) -> None:
        call = opened.call
        call_id = call.id
        del self.open_calls[call_id]
        self.answered[call_id] = (opened.line << 32) | line
        if self.active_parents:
            self.active_parents.pop(call_id, None)
        self.paired += 1
        tally = (self.tools if opened.counted else self.uncounted)[call.tool]
        tally.answered += 1
        if result.is_error:
            tally.errors += 1
            tally.copied_errors += opened.copied
            if opened.counted:
                self._failed(opened, result, line)
        start, end = call.timestamp, result.timestamp
        kept = len(tally.latencies)
        if opened.copied:
            tally.copied_answered += 1
        else:
            if start is not None and end is not None:
                if start == end:
                    tally.latencies.append(0.0)
                else:  # what `seconds_between` does, inline: once per answered call
                    try:
                        seconds = (fromisoformat(end) - fromisoformat(start)).total_seconds()
                    except (ValueError, TypeError):  # TypeError: one has a zone, one not
                        pass
                    else:
                        tally.latencies.append(seconds if seconds > 0.0 else 0.0)
            # the result's and the input's sizes (see `replay.sizes`)
            size = result.size
            if size >= 0:
                tally.result_sizes.append(size)
            given = input_size(call.input, call.encoded)
            tally.input_sizes.append(given)
            if self.log is not None:  # a worker's (where no call is a copy): `CopyLog.closes`
                timed = len(tally.latencies) > kept
                seconds = tally.latencies[kept] if timed and opened.counted else NAN
                measured = size if size >= 0 else NAN
                closed = (result.is_error, kept if timed else -1, seconds, measured, given)
                self.log.closes[opened.number] = closed
        for listener in self.listeners:
            listener.paired(opened, result, line)

    def _failed(self, opened: OpenCall, result: Result, line: int) -> None:
        """Keep why the call failed: its result's first line (only errors are read)."""
        from toolsel.replay.failures import error_message

        call = opened.call
        message = error_message(result.error)
        self.failures.append((call.id, call.tool, line, message, opened.copied, opened.number))

    def _note_duplicate(self, call_id: str, kind: str, lines: list[int]) -> None:
        previous = self.duplicates.get(call_id)
        if previous is None:
            self.duplicates[call_id] = (kind, sorted(set(lines)))
            return
        if DUPLICATE_SEVERITY[kind] < DUPLICATE_SEVERITY[previous[0]]:
            kind = previous[0]
        self.duplicates[call_id] = (kind, sorted(set(previous[1]) | set(lines)))


#: The matcher's handler of each kind of event, by type (a dict lookup per event): one
#: table for every matcher, called with the matcher (a matcher of bound methods was a
#: reference cycle, and cost a few microseconds a file to build).
HANDLERS: dict[type, Callable[[Matcher, Any, int], None]] = {
    Call: Matcher.call,
    Result: Matcher.result,
    SidechainStart: Matcher._sidechain,
    AgentFile: Matcher._agent_file,
    Session: Matcher._session,
    Human: Matcher._human,
}
