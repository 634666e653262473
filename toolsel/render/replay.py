"""Render `toolsel replay`: `toolsel.replay` JSON, JSON lines of `toolsel.replay-event`
events streamed while the transcripts are read, and one self-contained HTML page (the JSON
document, plus each session's timeline of calls); for people, `replay_human`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, Any

from toolsel.render.console import attrs, dumps_json, dumps_line
from toolsel.render.formats import ReplayFormat
from toolsel.render.replay_human import render_replay_human
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


def file_payload(report: FileReport) -> dict[str, Any]:
    return {
        "path": report.path,
        "format": report.format,
        **{name: getattr(report, name) for name in COUNTS},
        "blank_lines": report.blank,
        "unreadable_lines": [attrs(u, "line error") for u in report.unreadable],
        "unanswered_calls": [attrs(u, "id tool line interrupted") for u in report.unanswered],
        "orphan_results": [attrs(o, "id line is_error") for o in report.orphans],
        "duplicate_calls": [
            {"id": d.id, "kind": d.kind, "lines": list(d.lines)} for d in report.duplicate_calls
        ],
        "duplicate_results": [
            {"id": d.id, "lines": list(d.lines)} for d in report.duplicate_results
        ],
        "subagents": [attrs(s, "parent_id tool calls rule") for s in report.subagents],
        "violations": [attrs(v, "id tool rule message line") for v in report.violations],
        "tools": {
            name: {"calls": s.calls, "errors": s.errors, "median_latency_s": s.median_latency}
            for name, s in sorted(report.tools.items())
        },
        "notes": list(report.notes),
        **{name: getattr(report, name) for name in ADDED_COUNTS},
        "unread_tool_records": [attrs(u, "line where") for u in report.unread_tools],
        # each call whose result was an error, and the first line that result said
        "failed_calls": [attrs(f, "id tool line message") for f in report.failures],
    }


def summary_payload(result: ReplayResult) -> dict[str, Any]:
    summary: dict[str, Any] = {"files": len(result.files)}
    summary |= {name: result.total(name) for name in (*COUNTS, *ADDED_COUNTS)}
    return summary | {key: result.total(attr) for key, attr in LISTS}


def replay_payload(result: ReplayResult) -> dict[str, Any]:
    return {
        "schema": REPLAY_SCHEMA,
        "files": [file_payload(f) for f in result.files],
        "summary": summary_payload(result),
    }


def render_replay_json(result: ReplayResult, out: IO[str]) -> None:
    """`dumps_json(replay_payload(result))`, written a file at a time: the document of a
    run of many files is never held whole."""
    files = iter(result.files)
    first = next(files, None)
    if first is None:
        out.write(dumps_json(replay_payload(result)))
        return
    out.write('{\n  "files": [\n')
    out.write(_indented(file_payload(first), 4))
    for report in files:
        out.write(",\n")
        out.write(_indented(file_payload(report), 4))
    out.write(f'\n  ],\n  "schema": "{REPLAY_SCHEMA}",\n  "summary": ')
    out.write(_indented(summary_payload(result), 2).lstrip(" "))
    out.write("\n}\n")


def _indented(payload: dict[str, Any], spaces: int) -> str:
    """A payload as `dumps_json` writes it `spaces` deeper (JSON strings hold no newline)."""
    pad = " " * spaces
    return pad + dumps_json(payload).rstrip("\n").replace("\n", "\n" + pad)


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
    for report in result.files:
        for note in report.notes:
            note_event = {
                "schema": EVENT_SCHEMA,
                "event": "note",
                "file": report.path,
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
