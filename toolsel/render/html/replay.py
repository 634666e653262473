"""`toolsel replay --format html`: one self-contained page, built from the same result the
JSON output is (`replay_payload`), plus each session's timeline of calls."""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

from toolsel.replay.report import FileReport, ReplayResult
from toolsel.replay.timeline import MAX_CALLS, FileTimeline, Timeline


def replay_page_data(result: ReplayResult, timeline: Timeline) -> dict[str, Any]:
    """What the page draws: the `toolsel.replay` document itself (so every number is the
    JSON output's), per-tool statistics over all files, and each file's calls."""
    from toolsel.render.replay import replay_payload
    from toolsel.render.stats import stats_payload
    from toolsel.replay.stats import usage_stats

    return {
        "replay": replay_payload(result),
        "tools": stats_payload(usage_stats(result))["tools"],
        "sessions": [session_data(f, timeline.of(f.path)) for f in result.files],
        "agent_owners": agent_owners(result.files),
        "max_calls": MAX_CALLS,
    }


def session_data(report: FileReport, timeline: FileTimeline) -> dict[str, Any]:
    """A file's calls as compact rows: [line, tool index, id, result line, latency ms,
    is error (1/0/None), copied (1/0), parent id]; tool names are listed once."""
    tools: dict[str, int] = {}
    rows = []
    for call in timeline.calls:
        tool = tools.setdefault(call.tool, len(tools))
        error = None if call.is_error is None else int(call.is_error)
        rows.append(
            [
                call.line,
                tool,
                call.id,
                call.result_line,
                call.latency_ms,
                error,
                int(call.copied),
                call.parent,
            ]
        )
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


def render_replay_html(result: ReplayResult, out: IO[str], timeline: Timeline) -> None:
    from toolsel.render.html import page

    out.write(
        page(
            kind="replay",
            title="toolsel replay",
            command="replay",
            data=replay_page_data(result, timeline),
            scripts=("common.js", "replay.js"),
        )
    )
