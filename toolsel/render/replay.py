"""Render `toolsel replay`: `toolsel.replay` JSON, JSON lines of `toolsel.replay-event`
events streamed while the transcripts are read, and one self-contained HTML page (the JSON
document, plus each session's timeline of calls); for people, `replay_human`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import islice
from operator import itemgetter
from typing import IO, TYPE_CHECKING, Any

from toolsel.render.console import dumps_json, dumps_line
from toolsel.render.formats import ReplayFormat
from toolsel.render.replay_human import render_replay_human
from toolsel.replay.packing import AT, values_of
from toolsel.replay.report import (
    EVENT_SCHEMA,
    FileReport,
    ReplayResult,
    ToolEvent,
    event_payload,
)
from toolsel.replay.timeline import MAX_CALLS, FileTimeline, Timeline
from toolsel.schemas import Output, schema_name

if TYPE_CHECKING:
    from toolsel.registry.model import Registry
    from toolsel.replay.post import PostResult

REPLAY_SCHEMA = schema_name(Output.REPLAY)
COUNTS = ("lines", "calls", "results", "paired", "error_results", "copied_calls")
#: Counts added to replay/v1 later (additive: absent from older outputs).
ADDED_COUNTS = ("calls_without_id", "results_without_id", "skipped_records")
LISTS = (
    ("unreadable_lines", "unreadable"),
    ("unanswered_calls", "unanswered"),
    ("orphan_results", "orphans"),
    ("duplicate_calls", "duplicate_calls"),
    ("duplicate_results", "duplicate_results"),
    ("subagents", "subagents"),
    ("violations", "violations"),
    ("unread_tool_records", "unread_tools"),
)


def _entries(keys: str) -> Callable[[tuple[Any, ...]], list[dict[str, Any]]]:
    """Findings (each a tuple of its fields) as JSON entries keyed by the first fields'
    names, `keys` (space-separated, in the fields' order)."""
    names = keys.split()
    return lambda items: [dict(zip(names, item, strict=False)) for item in items]


def _findings(*lists: tuple[str, str, str]) -> tuple[tuple[str, int, Any], ...]:
    """(key in a file's entry, field of the report, the entries' keys) -> (key, field's
    place in the report's values, the entries' maker)."""
    return tuple((key, AT[field], _entries(keys)) for key, field, keys in lists)


#: The lists of findings in a file's entry, before its tools and after its counts.
_BEFORE_TOOLS = _findings(
    ("unreadable_lines", "unreadable", "line error"),
    ("unanswered_calls", "unanswered", "id tool line interrupted"),
    ("orphan_results", "orphans", "id line is_error"),
    ("duplicate_calls", "duplicate_calls", "id kind lines"),
    ("duplicate_results", "duplicate_results", "id lines"),
    ("subagents", "subagents", "parent_id tool calls rule"),
    ("violations", "violations", "id tool rule message line"),
)
_AFTER_COUNTS = _findings(
    ("unread_tool_records", "unread_tools", "line where"),
    # each call whose result was an error, and the first line that result said
    ("failed_calls", "failures", "id tool line message"),
)
_counts = itemgetter(*(AT[name] for name in COUNTS))
_added = itemgetter(*(AT[name] for name in ADDED_COUNTS))
_PATH, _FORMAT, _BLANK, _TOOLS, _NOTES = (AT[n] for n in "path format blank tools notes".split())


def file_payload(values: tuple[Any, ...]) -> dict[str, Any]:
    """A file's entry in the document, from its report's `compact_values` (a tool's as
    (name, calls, errors, answered, copied, copied_errors, copied_answered, (), median)):
    read from the tuples, no report built (a run of many files keeps them packed)."""
    payload = {
        "path": values[_PATH],
        "format": values[_FORMAT],
        **dict(zip(COUNTS, _counts(values), strict=True)),
        "blank_lines": values[_BLANK],
    }
    for key, at, entries in _BEFORE_TOOLS:
        found = values[at]
        payload[key] = entries(found) if found else []  # most files have none of most
    payload["tools"] = {
        tool[0]: {"calls": tool[1], "errors": tool[2], "median_latency_s": tool[8]}
        for tool in sorted(values[_TOOLS])
    }
    payload["notes"] = list(values[_NOTES])
    payload |= zip(ADDED_COUNTS, _added(values), strict=True)
    for key, at, entries in _AFTER_COUNTS:
        found = values[at]
        payload[key] = entries(found) if found else []
    return payload


def summary_payload(result: ReplayResult) -> dict[str, Any]:
    summary: dict[str, Any] = {"files": len(result.files)}
    summary |= {name: result.total(name) for name in (*COUNTS, *ADDED_COUNTS)}
    return summary | {key: result.total(attr) for key, attr in LISTS}


def replay_payload(result: ReplayResult) -> dict[str, Any]:
    return {
        "schema": REPLAY_SCHEMA,
        "files": [file_payload(values) for values in values_of(result.files)],
        "summary": summary_payload(result),
    }


#: Files whose entries `render_replay_json` writes with one `dumps`.
GROUP = 256


def render_replay_json(result: ReplayResult, out: IO[str]) -> None:
    """`dumps_json(replay_payload(result))`, written GROUP files at a time: the document of
    a run of many files is never held whole."""
    if not result.files:
        out.write(dumps_json(replay_payload(result)))
        return
    out.write('{\n  "files": [')
    values = values_of(result.files)
    joint = ""
    while group := [file_payload(v) for v in islice(values, GROUP)]:
        # the group's list less its brackets, two spaces deeper (JSON strings hold no line
        # break): each entry as `dumps_json` writes it, four deep. One expression, no name:
        # each text is let go as the next is made (a file of many findings writes megabytes)
        out.write(joint)
        out.write(dumps_json(group)[1:-3].replace("\n", "\n  "))
        joint = ","
    out.write(f'\n  ],\n  "schema": "{REPLAY_SCHEMA}",\n  "summary": ')
    out.write(dumps_json(summary_payload(result)).rstrip("\n").replace("\n", "\n  "))
    out.write("\n}\n")


def event_writer(out: IO[str], registry: Registry | None) -> Callable[[ToolEvent], None]:
    """A sink that writes each event as a JSON line the moment the matcher makes it."""
    from toolsel.replay.names import display_name

    names: dict[str, str] = {}  # a tool's display name, worked out once

    def write(event: ToolEvent) -> None:
        tool = event.tool
        display = None
        if tool:
            display = names.get(tool)
            if display is None:
                display = names[tool] = display_name(tool, registry)
        out.write(dumps_line(event_payload(event, display)))

    return write


def posted_note(result: PostResult) -> str:
    """`replay --post`'s line on stderr: what was sent, and what the server kept anew."""
    batches = f"{result.batches} batch{'es' if result.batches != 1 else ''}"
    retried = f", {result.retries} retried" if result.retries else ""
    return (
        f"posted {result.events} calls to {result.url} in {batches}{retried}: "
        f"{result.stored} stored, {result.events - result.stored} already there"
    )


def render_replay_jsonl(result: ReplayResult, out: IO[str]) -> None:
    """Every call and result was streamed by `event_writer` as it came; what is left is each
    file's notes (what the reader could not count), one `note` event each."""
    for values in values_of(result.files):
        for note in values[_NOTES]:
            note_event = {
                "schema": EVENT_SCHEMA,
                "event": "note",
                "file": values[_PATH],
                "note": note,
            }
            out.write(dumps_line(note_event))


def replay_page_data(result: ReplayResult, timeline: Timeline) -> dict[str, Any]:
    """What the page draws: the `toolsel.replay` document itself (so every number is the
    JSON output's), per-tool statistics over all files, and each file's calls."""
    from toolsel.render.stats import stats_payload
    from toolsel.replay.totals import usage_stats

    return {
        "replay": replay_payload(result),
        "tools": stats_payload(usage_stats(result))["tools"],
        "sessions": [session_data(f, timeline.of(f.path)) for f in result.files],
        "agent_owners": agent_owners(result.files),
        "max_calls": MAX_CALLS,
    }


def session_data(report: FileReport, timeline: FileTimeline) -> dict[str, Any]:
    """A file's calls as compact rows: [line, tool index, id, result line, latency ms,
    is error (1/0/None), copied (1/0), parent id, result bytes (None: unanswered or not
    measured)]; tool names are listed once."""
    tools: dict[str, int] = {}
    rows = []
    for c in timeline.calls:
        tool = tools.setdefault(c.tool, len(tools))
        error = None if c.is_error is None else int(c.is_error)
        rows.append([c.line, tool, c.id, c.result_line, c.latency_ms, error, int(c.copied), c.parent, c.result_bytes])  # fmt: skip
    return {
        "agent_id": report.agent_id,
        "tools": list(tools),
        "calls": rows,
        "omitted": timeline.omitted,
    }


def agent_owners(files: Sequence[FileReport]) -> dict[int, str]:
    """A Claude Code sub-agent file's index -> "owner file index:Task call id"."""
    owners = {
        agent: f"{index}:{task_id}"
        for index, report in enumerate(files)
        for agent, (task_id, _tool) in report.task_agents.items()
    }
    return {
        index: owners[report.agent_id]
        for index, report in enumerate(files)
        if report.agent_id and report.agent_id in owners
    }


def render_replay_html(
    result: ReplayResult, out: IO[str], timeline: Timeline | None = None
) -> None:
    """The report as one self-contained page, built from the same result the JSON output
    is (`replay_payload`), with each session's timeline of calls (recorded while reading)."""
    from toolsel.render.html import page

    out.write(
        page(
            kind="replay",
            title="toolsel replay",
            command="replay",
            data=replay_page_data(result, timeline or Timeline(())),
            scripts=("common.js", "replay.js"),
        )
    )


#: `replay --format F`. JSON lines are written while reading (see `event_writer`).
REPLAY_RENDERERS: dict[ReplayFormat, Callable[[ReplayResult, IO[str]], None]] = {
    ReplayFormat.HUMAN: render_replay_human,
    ReplayFormat.JSON: render_replay_json,
    ReplayFormat.JSONL: render_replay_jsonl,
    ReplayFormat.HTML: render_replay_html,
}
