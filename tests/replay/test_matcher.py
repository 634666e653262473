"""The matcher's two rules beyond pairing by id: a call with no id is answered by position,
and an action a format logs twice (an `implicit` echo) counts once."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from toolsel.replay.events import Call, Result
from toolsel.replay.lines import Reading
from toolsel.replay.matcher import Matcher
from toolsel.replay.report import build_report


def run(*steps: tuple[int, Call | Result]):
    """Feed (line, event) pairs to a matcher and build its report."""
    matcher = Matcher()
    for line, event in steps:
        matcher.feed((event,), line)
    return build_report(
        "t", Reading(lines=max((line for line, _ in steps), default=0)), matcher, Counter()
    )


def call(call_id: str, tool: str = "t", **kw) -> Call:
    return Call(call_id, tool, kw.pop("input", {}), **kw)


# -- calls without an id -----------------------------------------------------------------


def test_calls_without_an_id_are_named_by_line_and_answered_in_order() -> None:
    r = run(
        (2, call("", "Bash")),
        (2, call("", "Read")),
        (3, Result("", False)),
        (4, Result("", True)),
    )
    assert (r.calls, r.results, r.paired, r.calls_without_id, r.results_without_id) == (
        2,
        2,
        2,
        2,
        2,
    )
    assert r.unanswered == r.orphans == ()
    assert r.tools["Bash"].errors == 0 and r.tools["Read"].errors == 1  # oldest first
    assert r.notes == ()  # counted, not a note: nothing was left uncounted


def test_a_result_in_the_same_record_answers_its_own_call() -> None:
    r = run((1, call("")), (2, call("", "web_search")), (2, Result("", True)))
    assert [(u.id, u.tool) for u in r.unanswered] == [("noid:1:0", "t")]
    assert r.tools["web_search"].errors == 1


def test_a_result_whose_id_no_call_has_answers_a_call_without_id() -> None:
    # Cursor transcripts: the tool_use blocks have no id, their results name t1, t2
    r = run(
        (2, call("", "Bash")),
        (3, Result("t1", False)),
        (6, call("", "Read")),
        (7, Result("t2", False)),
    )
    assert (r.paired, r.orphans, r.unanswered) == (2, (), ())
    assert (r.calls_without_id, r.results_without_id) == (2, 0)


def test_a_result_without_id_and_no_call_to_answer_is_an_orphan() -> None:
    r = run((1, call("a")), (2, Result("a", False)), (3, Result("", False)))
    assert [(o.id, o.line) for o in r.orphans] == [("noid:3:0", 3)]
    assert r.results_without_id == 1


def test_a_result_with_a_known_id_never_takes_a_call_without_id() -> None:
    r = run((1, call("a")), (2, call("")), (3, Result("a", False)), (4, Result("a", False)))
    assert [d.id for d in r.duplicate_results] == ["a"]  # a second result for a, not b's
    assert [u.id for u in r.unanswered] == ["noid:2:0"]


# -- one action logged twice -------------------------------------------------------------


def test_an_echo_after_its_call_is_merged_not_a_duplicate() -> None:
    r = run(
        (1, call("c1", input={})),
        (2, call("c1", input={"cmd": "ls"}, implicit=True)),
        (3, Result("c1", False)),
    )
    assert (r.calls, r.paired, r.duplicate_calls) == (1, 1, ())


def test_an_echo_before_its_call_is_merged_and_the_call_is_then_like_any_other() -> None:
    r = run(
        (1, call("c1", implicit=True)),
        (2, call("c1", input={"a": 1})),  # Copilot: tool.execution_start, then toolRequests
        (3, call("c1", input={"b": 2})),  # the same id from another message: a duplicate
        (4, Result("c1", False)),
    )
    assert r.calls == 1 and [(d.id, d.kind) for d in r.duplicate_calls] == [("c1", "conflicting")]


def test_an_echo_of_an_answered_call_is_dropped() -> None:
    r = run((1, call("c1")), (2, Result("c1", False)), (3, call("c1", implicit=True)))
    assert (r.calls, r.duplicate_calls, r.unanswered) == (1, (), ())


def test_an_implicit_result_answers_only_what_an_echo_opened() -> None:
    # a Codex *_end event: its call and result are an echo when the response item exists...
    echoed = run(
        (1, call("c1")),
        (2, call("c1", implicit=True)),
        (2, Result("c1", True, implicit=True)),
        (3, Result("c1", False)),
    )
    assert (echoed.calls, echoed.results, echoed.error_results, echoed.duplicate_results) == (
        1,
        1,
        0,
        (),
    )
    # ...and the action itself when nothing else reports it
    alone = run((2, call("c5", implicit=True)), (2, Result("c5", True, implicit=True)))
    assert (alone.calls, alone.results, alone.paired, alone.error_results) == (1, 1, 1, 1)
    # a running snapshot rewritten with its result: answered once
    snapshots = run(
        (1, call("g", implicit=True)),
        (2, call("g", implicit=True)),
        (2, Result("g", False, implicit=True)),
        (3, call("g", implicit=True)),
        (3, Result("g", False, implicit=True)),
    )
    assert (snapshots.calls, snapshots.results, snapshots.duplicate_results) == (1, 1, ())


steps = st.lists(
    st.tuples(
        st.sampled_from(["call", "result"]),
        st.sampled_from(["a", "b", ""]),
        st.booleans(),  # implicit
        st.integers(1, 6),  # line (events may share one)
    ),
    max_size=25,
)


@settings(max_examples=300, deadline=None)
@given(steps)
def test_counts_are_conserved_with_echoes_and_calls_without_id(sequence) -> None:
    events = []
    for kind, call_id, implicit, line in sorted(sequence, key=lambda s: s[3]):
        event = (
            call(call_id, implicit=implicit)
            if kind == "call"
            else Result(call_id, False, implicit=implicit)
        )
        events.append((line, event))
    r = run(*events)
    assert r.calls == r.paired + len(r.unanswered)
    repeats = sum(len(d.lines) - 1 for d in r.duplicate_results)
    assert r.results == r.paired + len(r.orphans) + repeats
    plain_calls = sum(
        1
        for kind, call_id, implicit, _ in sequence
        if kind == "call" and not call_id and not implicit
    )
    assert r.calls_without_id >= plain_calls
    assert all(u.id for u in r.unanswered) and all(o.id for o in r.orphans)


def test_an_echo_without_id_is_answered_by_its_own_restated_result() -> None:
    # a Gemini call recorded without an id, its outcome inline
    r = run((1, call("", implicit=True)), (1, Result("", False, implicit=True)))
    assert (r.calls, r.results, r.paired, r.unanswered) == (1, 1, 1, ())
