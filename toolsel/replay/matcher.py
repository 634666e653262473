"""Pair tool calls with their results by id, never by position (the seeds' ToolIndex).

State is bounded by what is still open: open calls, results waiting for a call that has not
appeared yet, and the set of ids already answered (to tell a reused id from a duplicate).

- A call id seen again in the same streamed message (same `message.id`) is merged.
- Seen again in another message while still open: `enriched` (richer input: the call is
  updated, as the seeds re-emit an enriched tool_start), `conflicting` (another tool name or
  contradicting input) or `identical`.
- Seen again after it was answered: a new call, reported as `reused` (OpenAI models do this).
- A result pairs with the open call of its id, even when it arrived first. A second result
  for an answered id is a duplicate result; a result whose id never had a call is an orphan.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from toolsel.registry.model import DEFAULT_PARENT_TASK_TOOLS
from toolsel.replay.decode import Call, Result, SidechainStart, has_explicit_parent

# one definition of the default sub-agent tools, shared with the registry model
PARENT_TASK_TOOLS = DEFAULT_PARENT_TASK_TOOLS


@dataclass(slots=True)
class OpenCall:
    call: Call
    line: int
    parent: str | None
    parent_rule: str | None
    lines: list[int] = field(default_factory=list)  # every line this id was seen on
    copied: bool = False  # the id and tool were already called in an earlier file of the run


@dataclass(slots=True)
class MatchState:
    is_parent_task: Callable[[str], bool]
    open_calls: dict[str, OpenCall] = field(default_factory=dict)
    # id -> (call line << 32) | result line: one int per answered id keeps memory small
    answered: dict[str, int] = field(default_factory=dict)
    waiting_results: dict[str, list[tuple[Result, int]]] = field(default_factory=dict)
    active_parents: dict[str, str] = field(default_factory=dict)  # open parent-task call id -> tool
    sidechain_parent: str | None = None  # 1.0.x: the Task whose sidechain is being read
    task_prompts: dict[str, str] = field(default_factory=dict)  # prompt -> Task call id
    last_result_line: int = 0
    # several files: call id -> tool from the earlier files of the run (resumed-session copies),
    # and the calls this file starts, added for the files after it
    earlier_calls: dict[str, str] | None = None
    started_calls: dict[str, str] | None = None


@dataclass(slots=True)
class Pairing:
    kind: str  # start | merge | duplicate | pair | duplicate-result | waiting
    call: OpenCall | None = None
    duplicate_kind: str | None = None
    result: Result | None = None
    previous_line: int | None = (
        None  # reused: the earlier call's line; duplicate: the first result's
    )


def on_call(state: MatchState, call: Call, line: int) -> Pairing:
    existing = state.open_calls.get(call.id)
    if existing is not None:
        existing.lines.append(line)
        if call.message_id and call.message_id == existing.call.message_id:
            _enrich(existing, call)
            return Pairing("merge", existing)
        kind = _duplicate_kind(existing.call, call)
        if kind == "enriched":
            _enrich(existing, call)
        return Pairing("duplicate", existing, kind)
    parent, rule = _parent_of(state, call)
    opened = OpenCall(call, line, parent, rule, [line], is_copy(state, call.id, call.tool))
    previous = state.answered.pop(call.id, None)
    reused = "reused" if previous is not None else None
    earlier_line = previous >> 32 if previous is not None else None
    state.open_calls[call.id] = opened
    if state.is_parent_task(call.tool):
        state.active_parents[call.id] = call.tool
        prompt = call.input.get("prompt") if isinstance(call.input, dict) else None
        if isinstance(prompt, str):
            state.task_prompts[prompt] = call.id
    waiting = state.waiting_results.get(call.id)
    if waiting:
        result, result_line = waiting.pop(0)
        if not waiting:
            del state.waiting_results[call.id]
        return Pairing("pair", close(state, call.id, result_line), reused, result, earlier_line)
    return Pairing("start", opened, reused, None, earlier_line)


def is_copy(state: MatchState, call_id: str, tool: str) -> bool:
    """Whether an earlier file of the run called this id with this tool: a continued or
    resumed Claude Code session copies the earlier messages into its new file."""
    if state.started_calls is None or state.earlier_calls is None:
        return False
    state.started_calls.setdefault(call_id, tool)
    return state.earlier_calls.get(call_id) == tool


def on_result(state: MatchState, result: Result, line: int) -> Pairing:
    state.last_result_line = line
    if result.id in state.open_calls:
        return Pairing("pair", close(state, result.id, line), None, result)
    if result.id in state.answered:
        first_result_line = state.answered[result.id] & 0xFFFFFFFF
        return Pairing("duplicate-result", None, None, result, first_result_line)
    state.waiting_results.setdefault(result.id, []).append((result, line))
    return Pairing("waiting", None, None, result)


def on_sidechain_start(state: MatchState, start: SidechainStart) -> None:
    state.sidechain_parent = state.task_prompts.get(start.prompt)


def close(state: MatchState, call_id: str, line: int) -> OpenCall:
    opened = state.open_calls.pop(call_id)
    state.answered[call_id] = (opened.line << 32) | line
    state.active_parents.pop(call_id, None)
    return opened


def _parent_of(state: MatchState, call: Call) -> tuple[str | None, str | None]:
    if has_explicit_parent(call):
        return (call.parent, "parent_tool_use_id") if call.parent else (None, None)
    if call.sidechain and state.sidechain_parent:
        return state.sidechain_parent, "sidechain-prompt"
    candidates = [cid for cid in state.active_parents if cid != call.id]
    if len(candidates) == 1 and not state.is_parent_task(call.tool):
        return candidates[0], "single-active-parent"
    return None, None


def _duplicate_kind(earlier: Call, later: Call) -> str:
    if earlier.tool != later.tool:
        return "conflicting"
    if earlier.input == later.input:
        return "identical"
    if _is_empty(earlier.input) and not _is_empty(later.input):
        return "enriched"
    if isinstance(earlier.input, dict) and isinstance(later.input, dict):
        shared = earlier.input.keys() & later.input.keys()
        if all(earlier.input[k] == later.input[k] for k in shared) and len(later.input) > len(
            earlier.input
        ):
            return "enriched"
    return "conflicting"


def _enrich(existing: OpenCall, call: Call) -> None:
    if (_is_empty(existing.call.input) and not _is_empty(call.input)) or (
        isinstance(existing.call.input, dict)
        and isinstance(call.input, dict)
        and len(call.input) > len(existing.call.input)
    ):
        existing.call.input = call.input


def _is_empty(value: Any) -> bool:
    return value in (None, {}, "", [])
