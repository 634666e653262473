"""A transcript file's report, built once from what was read and the matcher's state, with
the notes on what the reader could not count."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from operator import itemgetter
from typing import Any

from toolsel.replay.lines import Reading
from toolsel.replay.matcher import Matcher, ToolTally
from toolsel.replay.report import (
    UNKNOWN_FORMAT,
    DuplicateCall,
    DuplicateResult,
    FailedCall,
    FileReport,
    Orphan,
    Subagent,
    ToolStats,
    Unanswered,
    UnreadTools,
    Violation,
    plural,
)


def build_report(
    path: str,
    reading: Reading,
    matcher: Matcher,
    formats: Counter[str],
    violations: Iterable[Violation] = (),
    skipped_records: int = 0,
    unread_tools: Iterable[UnreadTools] = (),
) -> FileReport:
    """Turn what was read and matched into the file's report."""
    unread = tuple(unread_tools)
    return FileReport(
        path=path,
        format=main_format(formats) or UNKNOWN_FORMAT,
        lines=reading.lines,
        blank=reading.blank,
        calls=matcher.calls,
        results=matcher.results,
        paired=matcher.paired,
        error_results=matcher.error_results,
        copied_calls=matcher.copied_calls,
        unreadable=tuple(reading.unreadable),
        notes=_notes(reading, matcher, unread, formats),
        violations=tuple(violations),
        tools={name: _tool_stats(t) for name, t in matcher.tools.items()},
        agent_id=matcher.agent_id,
        task_agents=dict(matcher.task_agents),
        calls_without_id=matcher.calls_without_id,
        results_without_id=matcher.results_without_id,
        skipped_records=skipped_records,
        unread_tools=unread,
        failures=tuple(FailedCall(*failure) for failure in matcher.failures),
        **_matcher_findings(matcher),
    )


def main_format(formats: Counter[str]) -> str:
    """The format most of a file's records were read as (the first read, of those read as
    often): `formats.most_common(1)`'s, at a third of its cost (once or twice a file)."""
    return max(formats.items(), key=itemgetter(1))[0] if formats else ""


def _tool_stats(t: ToolTally) -> ToolStats:
    """A tool's tally in the matcher, as the report keeps it."""
    return ToolStats(
        t.calls,
        t.errors,
        t.answered,
        t.copied,
        t.copied_errors,
        t.copied_answered,
        tuple(t.latencies),
        None,
        tuple(t.result_sizes),
        tuple(t.input_sizes),
    )


def _matcher_findings(matcher: Matcher) -> dict[str, tuple[Any, ...]]:
    """What the matcher left open, unanswered or seen twice, and the sub-agents it found."""
    return {
        "unanswered": tuple(
            Unanswered(
                call_id, opened.call.tool, opened.line, opened.line > matcher.last_result_line
            )
            for call_id, opened in matcher.open_calls.items()
        ),
        "orphans": tuple(
            Orphan(call_id, line, result.is_error)
            for call_id, waiting in matcher.waiting_results.items()
            for result, line in waiting
        ),
        "duplicate_calls": tuple(
            DuplicateCall(call_id, kind, tuple(lines))
            for call_id, (kind, lines) in matcher.duplicates.items()
        ),
        "duplicate_results": tuple(
            DuplicateResult(call_id, tuple(lines))
            for call_id, lines in matcher.duplicate_results.items()
        ),
        "subagents": tuple(
            Subagent(parent, tool or "Task", count, rule)
            for (parent, tool, rule), count in matcher.children.items()
        ),
    }


def _notes(
    reading: Reading,
    matcher: Matcher,
    unread: tuple[UnreadTools, ...],
    formats: Counter[str],
) -> tuple[str, ...]:
    """What the reader could not count, said once."""
    notes = []
    if not formats and reading.lines > reading.blank and not (matcher.calls or matcher.results):
        notes.append(_unrecognised(reading))
    elif formats:
        notes.extend(_lopsided(matcher, main_format(formats)))
    if matcher.calls == 0 and reading.text_actions:
        notes.append(
            f"no tool calls in this format: its {reading.text_actions} trajectory steps are "
            "text actions (an older SWE-agent .traj), not tool_calls, so there is nothing to "
            "pair"
        )
    if unread:
        first = unread[0]
        notes.append(
            f"{plural(len(unread), 'record')} of a format or type toolsel does not read "
            f"{'holds' if len(unread) == 1 else 'hold'} tool-call-like content (first: line "
            f"{first.line}, {first.where}); their calls are not counted"
        )
    return tuple(notes)


#: How an Aider chat history (Markdown, not JSON) opens.
AIDER_HISTORY = "# aider chat started at"


def _unrecognised(reading: Reading) -> str:
    """The note of a file no record of which is of a format toolsel reads."""
    if reading.first_text.startswith(AIDER_HISTORY):
        return (
            "format not recognised: an Aider chat history (Markdown), not a tool-call "
            "transcript: Aider edits files through text, so there are no calls to pair"
        )
    unreadable = len(reading.unreadable)
    records = reading.lines - reading.blank - unreadable
    what = []
    if records:
        what.append(f"{plural(records, 'record')} of types no decoder knows")
    if unreadable:
        verb = "is not a JSON record" if unreadable == 1 else "are not JSON records"
        what.append(f"{plural(unreadable, 'line')} that {verb}")
    return (
        f"format not recognised: {' and '.join(what)}; nothing was counted "
        "(--input-format NAME forces a format)"
    )


#: A file with at least this many calls, most of them unanswered (or this many results,
#: most of them orphans), gets a note: a format read only in part looks like this.
LOPSIDED_MIN = 4


def _lopsided(matcher: Matcher, name: str) -> list[str]:
    """A note when the file's records yield calls but no results, results but no calls, or
    mostly one side: the other side may be in a form the reader (`name`) does not read."""
    calls, results = matcher.calls, matcher.results
    unanswered = len(matcher.open_calls)
    orphans = sum(len(waiting) for waiting in matcher.waiting_results.values())
    if calls == 0 and results > 0:
        found = f"{plural(results, 'result')} and no call"
    elif results == 0 and calls > 1:
        found = f"{plural(calls, 'call')} and no result"
    elif calls >= LOPSIDED_MIN and unanswered * 2 > calls:
        found = f"{unanswered} of {calls} calls without a result"
    elif results >= LOPSIDED_MIN and orphans * 2 > results:
        found = f"{orphans} of {results} results without a call"
    else:
        return []
    return [
        f"read as {name}, this file yields {found}: the other side may be in records "
        "toolsel does not read as this format (or the transcript holds only one side)"
    ]
