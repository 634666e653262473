"""`replay.build`: a file's report from what was read and matched, and the notes on what the
reader could not count."""

from __future__ import annotations

from collections import Counter

from toolsel.replay.build import LOPSIDED_MIN, build_report, main_format
from toolsel.replay.events import Call, Result
from toolsel.replay.lines import Reading, Unreadable
from toolsel.replay.matcher import Matcher
from toolsel.replay.report import UNKNOWN_FORMAT, UnreadTools, unrecognised


def matched(*events: Call | Result) -> Matcher:
    matcher = Matcher()
    for line, event in enumerate(events, 1):
        matcher.feed((event,), line)
    return matcher


def test_a_file_of_no_known_format_says_what_it_held() -> None:
    reading = Reading(lines=6, blank=1, unreadable=[Unreadable(2, "not JSON")])
    report = build_report("x.jsonl", reading, Matcher(), Counter())
    assert report.format == UNKNOWN_FORMAT and unrecognised(report)
    assert report.notes == (
        "format not recognised: 4 records of types no decoder knows and 1 line that is not "
        "a JSON record; nothing was counted (--input-format NAME forces a format)",
    )
    two = Reading(lines=2, unreadable=[Unreadable(1, "not JSON"), Unreadable(2, "not JSON")])
    assert build_report("y.jsonl", two, Matcher(), Counter()).notes == (
        "format not recognised: 2 lines that are not JSON records; nothing was counted "
        "(--input-format NAME forces a format)",
    )


def test_an_aider_history_is_named() -> None:
    reading = Reading(lines=3, first_text="# aider chat started at 2025-01-01")
    (note,) = build_report("h.md", reading, Matcher(), Counter()).notes
    assert note.startswith("format not recognised: an Aider chat history (Markdown)")


def test_mostly_unanswered_calls_get_a_note_from_lopsided_min() -> None:
    calls = [Call(f"c{n}", "Read", {}) for n in range(LOPSIDED_MIN)]
    few = build_report("a", Reading(lines=9), matched(*calls[:-1]), Counter({"chat": 3}))
    assert few.notes == ("read as chat, this file yields 3 calls and no result: the other side may be in records toolsel does not read as this format (or the transcript holds only one side)",)  # fmt: skip
    answered = matched(*calls, Result("c0", False))
    report = build_report("a", Reading(lines=9), answered, Counter({"chat": 4}))
    assert report.notes[0].startswith("read as chat, this file yields 3 of 4 calls without")
    both = matched(*calls, Result("c0", False), Result("c1", True))
    assert build_report("a", Reading(lines=9), both, Counter({"chat": 4})).notes == ()


def test_the_report_takes_the_matchers_counts_and_findings() -> None:
    matcher = matched(
        Call("c1", "Read", {}), Result("c1", True), Result("r9", False), Call("c2", "Bash", {})
    )
    unread = [UnreadTools(7, "content[0]")]
    report = build_report(
        "a", Reading(lines=4), matcher, Counter({"chat": 3, "other": 1}), unread_tools=unread
    )
    assert report.format == "chat"
    assert (report.calls, report.results, report.paired, report.error_results) == (2, 2, 1, 1)
    assert [o.id for o in report.orphans] == ["r9"]
    assert [(u.id, u.tool, u.interrupted) for u in report.unanswered] == [("c2", "Bash", True)]
    assert report.tools["Read"].errors == 1 and report.tools["Bash"].answered == 0
    assert [(f.id, f.tool) for f in report.failures] == [("c1", "Read")]
    assert report.unread_tools == tuple(unread)
    assert report.notes[-1].startswith("1 record of a format or type toolsel does not read holds")


def test_the_main_format_is_the_most_read_and_the_first_read_on_a_tie() -> None:
    assert main_format(Counter()) == ""
    assert main_format(Counter({"codex": 2, "claude-code": 3})) == "claude-code"
    tie = Counter({"codex": 2, "claude-code": 2})
    assert main_format(tie) == "codex" == tie.most_common(1)[0][0]
