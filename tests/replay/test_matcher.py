"""The matcher's two rules beyond pairing by id: a call with no id is answered by position,
and an action a format logs twice (an `implicit` echo) counts once."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsel.replay.build import build_report
from toolsel.replay.events import AgentFile, Call, Event, Human, Result, Session, SidechainStart
from toolsel.replay.lines import Reading
from toolsel.replay.matcher import Matcher, OpenCall
from toolsel.replay.memory import RunMemory
from toolsel.timeparse import seconds_between


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


# -- the matcher's state, line by line -----------------------------------------------------


class Recorder:
    """A listener that writes down what it is told: (what, call id, line)."""

    def __init__(self) -> None:
        self.heard: list[tuple[str, str, int]] = []

    def started(self, opened: OpenCall, line: int) -> None:
        self.heard.append(("started", opened.call.id, line))

    def enriched(self, opened: OpenCall, line: int) -> None:
        self.heard.append(("enriched", opened.call.id, line))

    def paired(self, opened: OpenCall, result: Result, line: int) -> None:
        assert opened.call.id == result.id
        self.heard.append(("paired", result.id, line))


def fed(*steps: tuple[int, Event], **kwargs: Any) -> Matcher:
    matcher = Matcher(**kwargs)
    for line, event in steps:
        matcher.feed((event,), line)
    return matcher


def test_ids_without_a_call_are_named_by_line_and_place() -> None:
    m = fed((3, call("")), (3, call("")), (3, call("")), (5, call("")), (5, Result("x", False)))
    assert list(m.open_calls) == ["noid:3:1", "noid:3:2", "noid:5:0"]  # the oldest answered
    assert m.answered == {"noid:3:0": (3 << 32) | 5}


def test_the_same_message_written_in_parts_is_merged_and_told_when_richer() -> None:
    heard = Recorder()
    m = fed(
        (1, call("c", "Bash", message_id="m1")),
        (2, call("c", "Bash", input={"cmd": "ls"}, message_id="m1")),
        (3, call("c", "Bash", input={"cmd": "ls"}, message_id="m1")),
        listeners=[heard],
    )
    assert m.duplicates == {} and m.calls == 1
    assert m.open_calls["c"].call.input == {"cmd": "ls"}
    assert m.open_calls["c"].lines == [1, 2, 3]
    assert heard.heard == [("started", "c", 1), ("enriched", "c", 2)]


@pytest.mark.parametrize(
    ("first", "again", "kind", "input_after"),
    [
        ({"a": 1}, {"a": 1}, "identical", {"a": 1}),
        ({}, {"a": 1}, "enriched", {"a": 1}),
        ({"a": 1}, {"a": 1, "b": 2}, "enriched", {"a": 1, "b": 2}),
        ({"a": 1}, {"a": 2, "b": 2}, "conflicting", {"a": 1}),
        ({"a": 1}, {"b": 2}, "conflicting", {"a": 1}),
        ({"a": 1, "b": 2}, {"a": 1}, "conflicting", {"a": 1, "b": 2}),
        ("x", "", "conflicting", "x"),
        ("", "ls", "enriched", "ls"),
        ({"a": 1}, "ls", "conflicting", {"a": 1}),
    ],
)
def test_an_open_id_seen_in_another_message(
    first: Any, again: Any, kind: str, input_after: Any
) -> None:
    heard = Recorder()
    m = fed(
        (1, call("c", "Bash", input=first, message_id="m1")),
        (4, call("c", "Bash", input=again, message_id="m2")),
        (6, Result("c", False)),
        listeners=[heard],
    )
    assert m.duplicates == {"c": (kind, [1, 4])}
    assert m.calls == m.paired == 1
    enriched = [("enriched", "c", 4)] if kind == "enriched" else []
    assert heard.heard == [("started", "c", 1), *enriched, ("paired", "c", 6)]
    assert m.tools["Bash"].answered == 1


def test_another_tool_under_an_open_id_is_conflicting() -> None:
    m = fed((1, call("c", "Bash")), (2, call("c", "Read")))
    assert m.duplicates == {"c": ("conflicting", [1, 2])}
    assert m.open_calls["c"].call.tool == "Bash" and list(m.tools) == ["Bash"]


def test_the_most_severe_kind_wins_and_lines_add_up() -> None:
    m = fed(
        (1, call("c", input={}, message_id="m1")),
        (2, call("c", input={}, message_id="m2")),  # identical
        (3, call("c", input={"a": 1}, message_id="m3")),  # enriched
        (4, call("c", input={"a": 1}, message_id="m4")),  # identical again
    )
    assert m.duplicates == {"c": ("enriched", [1, 2, 3, 4])}
    m = fed(
        (1, call("c", input={"a": 1}, message_id="m1")),
        (2, call("c", input={"a": 2}, message_id="m2")),  # conflicting
        (3, call("c", input={"a": 1}, message_id="m3")),  # identical
    )
    assert m.duplicates == {"c": ("conflicting", [1, 2, 3])}


def test_an_answered_id_called_again_is_reused() -> None:
    m = fed(
        (1, call("c", "Bash")),
        (2, Result("c", False)),
        (5, call("c", "Read")),
        (6, Result("c", True)),
        (7, Result("c", False)),
    )
    assert m.duplicates == {"c": ("reused", [1, 5])}
    assert (m.calls, m.paired, m.results) == (2, 2, 3)
    assert m.duplicate_results == {"c": [6, 7]}
    assert (m.tools["Read"].errors, m.tools["Bash"].errors) == (1, 0)


def test_a_result_before_its_call_waits_for_it() -> None:
    heard = Recorder()
    m = fed(
        (1, Result("c", True)),
        (1, Result("c", False)),
        (2, call("c", "Bash")),
        listeners=[heard],
    )
    assert heard.heard == [("started", "c", 2), ("paired", "c", 1)]
    assert m.waiting_results == {"c": [(Result("c", False), 1)]}  # one answer per call
    assert m.tools["Bash"].errors == 1 and m.error_results == 1 and m.results == 2
    assert m.last_result_line == 1
    m.feed((call("c", "Bash"),), 3)  # the id used again takes the next answer
    assert heard.heard[2:] == [("started", "c", 3), ("paired", "c", 1)]
    assert m.waiting_results == {} and m.duplicates == {"c": ("reused", [2, 3])}


def test_errors_and_agents_are_counted_on_results() -> None:
    m = fed(
        (1, call("t", "Task")),
        (2, Result("t", True, agent_id="agent-1")),
        (3, Result("z", False, agent_id="agent-2")),  # no call: an orphan's agent
    )
    assert (m.results, m.error_results, m.last_result_line) == (2, 1, 3)
    assert m.task_agents == {"agent-1": ("t", "Task"), "agent-2": ("z", "Task")}
    assert m.waiting_results == {"z": [(Result("z", False, agent_id="agent-2"), 3)]}


def test_an_idless_result_naming_an_agent_answers_the_idless_call() -> None:
    m = fed((1, call("", "Agent")), (2, Result("", False, agent_id="a1")))
    assert m.task_agents == {"a1": ("noid:1:0", "Agent")}
    assert m.results_without_id == 1 and m.paired == 1


# -- sub-agents ----------------------------------------------------------------------------


def test_a_call_inside_the_one_running_task_is_its_child() -> None:
    m = fed(
        (1, call("t1", "Task", input={"prompt": "look around"})),
        (2, call("c1", "Read")),
        (3, call("t2", "Task")),  # a Task is never a Task's child by position
        (4, call("c2", "Read")),  # two Tasks run: whose child is unknown
        (5, Result("t2", False)),
        (6, call("c3", "Grep")),
    )
    assert m.children == Counter({("t1", "Task", "single-active-parent"): 2})  # c1 and c3
    assert m.open_calls["c1"].parent == "t1" and m.open_calls["c2"].parent is None
    assert m.open_calls["t2" if "t2" in m.open_calls else "t1"].parent is None
    assert m.task_prompts == {"look around": "t1"}
    assert m.active_parents == {"t1": "Task"}


def test_an_explicit_parent_wins_and_an_empty_one_means_none() -> None:
    m = fed(
        (1, call("t1", "Task")),
        (2, call("c1", "Read", parent="p9")),
        (3, call("c2", "Read", parent=None)),
        (4, call("c3", "Read", parent="")),
    )
    assert [m.open_calls[c].parent for c in ("c1", "c2", "c3")] == ["p9", None, None]
    assert m.open_calls["c1"].parent_rule == "parent_tool_use_id"
    assert m.children == Counter({("p9", "", "parent_tool_use_id"): 1})


def test_a_sidechain_belongs_to_the_task_whose_prompt_started_it() -> None:
    m = fed(
        (1, call("t1", "Task", input={"prompt": "first"})),
        (2, call("t2", "Task", input={"prompt": "second"})),
        (3, SidechainStart("second")),
        (4, call("c1", "Read", sidechain=True)),
        (5, call("c2", "Read")),  # not in the sidechain, two Tasks running: no parent
        (6, SidechainStart("unknown")),
        (7, call("c3", "Read", sidechain=True)),
    )
    assert (m.open_calls["c1"].parent, m.open_calls["c1"].parent_rule) == (
        "t2",
        "sidechain-prompt",
    )
    assert m.open_calls["c2"].parent is None and m.open_calls["c3"].parent is None
    assert m.children == Counter({("t2", "Task", "sidechain-prompt"): 1})


def test_a_task_without_a_text_prompt_names_no_sidechain() -> None:
    m = fed((1, call("t1", "Task", input={"prompt": 3})), (2, call("t2", "Task", input="x")))
    assert m.task_prompts == {} and m.active_parents == {"t1": "Task", "t2": "Task"}


def test_the_other_events_of_a_line() -> None:
    said: list[tuple[str, int]] = []
    m = fed(
        (1, AgentFile("a1")),
        (2, AgentFile("a2")),  # the first names the file
        (3, Session("s1")),
        (4, Human("please read the file")),
    )
    assert m.agent_id == "a1" and m.sessions == {"s1"}
    m.on_human = lambda text, line: said.append((text, line))
    m.feed((Human("and now the other one"), Session("s2")), 9)
    assert said == [("and now the other one", 9)] and m.sessions == {"s1", "s2"}


# -- several files of one run --------------------------------------------------------------


def remember(memory: RunMemory, matcher: Matcher) -> None:
    memory.file_done(matcher.sessions)


def test_a_resumed_session_copies_calls_by_message_id_or_lineage() -> None:
    memory = RunMemory()
    first = fed(
        (1, Session("s")),
        (2, call("a", "Bash", message_id="m1")),
        (3, call("b", "Read")),
        (4, call("c", "Grep", message_id="m3")),
        memory=memory,
    )
    remember(memory, first)
    assert memory.files == 1 and len(memory) == 3
    assert memory.sessions == {"s": [0]}
    # another session: only calls with the same message id are copies
    other = fed(
        (1, Session("t")),
        (2, call("a", "Bash", message_id="m1")),
        (3, call("b", "Read")),
        (4, call("c", "Grep", message_id="other")),
        (5, call("d", "Bash")),
        memory=memory,
    )
    assert [o.copied for o in other.open_calls.values()] == [True, False, False, False]
    assert other.copied_calls == 1 and other.tools["Bash"].copied == 1
    remember(memory, other)
    assert memory.files == 2 and memory.sessions == {"s": [0], "t": [1]}
    assert len(memory) == 4  # "d" is new; the others keep their first file
    # the same session: its earlier files' ids are copies, unless the tool differs
    resumed = fed(
        (1, Session("s")),
        (1, Session("s")),
        (2, call("b", "Read")),
        (3, call("c", "Grep")),
        (4, call("a", "Read")),
        (5, call("d", "Bash")),  # from the other lineage
        memory=memory,
    )
    assert resumed.linked_files == {0}
    copied = {c: o.copied for c, o in resumed.open_calls.items()}
    assert copied == {"b": True, "c": True, "a": False, "d": False}


def test_a_copied_call_is_answered_but_not_timed_again() -> None:
    memory = RunMemory()
    remember(memory, fed((1, call("a", "Bash", message_id="m")), memory=memory))
    m = fed(
        (1, call("a", "Bash", message_id="m", timestamp="2025-01-01T00:00:00Z")),
        (2, Result("a", True, timestamp="2025-01-01T00:00:09Z")),
        memory=memory,
    )
    tally = m.tools["Bash"]
    assert (tally.calls, tally.copied, tally.answered, tally.copied_answered) == (1, 1, 1, 1)
    assert (tally.errors, tally.copied_errors) == (1, 1)
    assert list(tally.latencies) == []


@pytest.mark.parametrize(
    ("start", "end", "latencies"),
    [
        ("2025-01-01T00:00:00Z", "2025-01-01T00:00:02.5Z", [2.5]),
        ("2025-01-01T00:00:00Z", "2025-01-01T00:00:00.5Z", [0.5]),
        ("2025-01-01T00:00:00Z", "2025-01-01T00:00:00Z", [0.0]),
        ("2025-01-01T00:00:05Z", "2025-01-01T00:00:00Z", [0.0]),  # never negative
        ("2025-01-01T00:00:00Z", "2025-01-01T00:00:01", []),  # one zone, one none
        ("yesterday", "today", []),
        (None, "2025-01-01T00:00:00Z", []),
        ("2025-01-01T00:00:00Z", None, []),
    ],
)
def test_latency_is_the_time_from_call_to_result(
    start: str | None, end: str | None, latencies: list[float]
) -> None:
    m = fed((1, call("a", "Bash", timestamp=start)), (2, Result("a", False, timestamp=end)))
    assert list(m.tools["Bash"].latencies) == latencies
    if start is not None and end is not None:
        expected = latencies[0] if latencies else None
        assert seconds_between(start, end) == expected


def test_an_echo_takes_its_records_message_id_and_richer_input() -> None:
    heard = Recorder()
    m = fed(
        (1, call("c", "Bash", implicit=True)),
        (2, call("c", "Bash", input={"cmd": "ls"}, message_id="m1")),
        (3, call("c", "Bash", input={"cmd": "ls", "cwd": "/"}, message_id="m1")),  # same message
        listeners=[heard],
    )
    opened = m.open_calls["c"]
    assert (opened.call.message_id, opened.call.implicit) == ("m1", False)
    assert opened.call.input == {"cmd": "ls", "cwd": "/"} and m.duplicates == {}
    assert heard.heard == [("started", "c", 1), ("enriched", "c", 2), ("enriched", "c", 3)]
    kept = fed(
        (1, call("c", "Bash", implicit=True, message_id="m0")),
        (2, call("c", "Bash", message_id="m1")),
    )
    assert kept.open_calls["c"].call.message_id == "m0"  # the first one known stays


def test_input_that_was_empty_is_completed_whatever_its_type() -> None:
    for empty in (None, "", [], {}):
        heard = Recorder()
        m = fed(
            (1, call("c", "Bash", input=empty, message_id="m1")),
            (2, call("c", "Bash", input="ls -la", message_id="m1")),
            listeners=[heard],
        )
        assert m.open_calls["c"].call.input == "ls -la"
        assert heard.heard[1:] == [("enriched", "c", 2)]
    unchanged = fed(
        (1, call("c", "Bash", input="ls", message_id="m1")),
        (2, call("c", "Bash", input="", message_id="m1")),
    )
    assert unchanged.open_calls["c"].call.input == "ls"


def test_a_file_of_two_sessions_links_both_lineages() -> None:
    memory = RunMemory()
    remember(memory, fed((1, Session("s")), memory=memory))
    remember(memory, fed((1, Session("t")), memory=memory))
    both = fed((1, Session("s")), (2, Session("t")), memory=memory)
    assert both.linked_files == {0, 1}


def test_counts_add_up_per_tool() -> None:
    memory = RunMemory()
    remember(memory, fed((1, call("a", "Bash", message_id="m")), (2, call("b", "Bash", message_id="n")), memory=memory))  # fmt: skip
    m = fed(
        (1, call("a", "Bash", message_id="m")),
        (2, call("b", "Bash", message_id="n")),
        (3, call("c", "Bash")),
        (4, Result("a", True)),
        (5, Result("b", True)),
        (6, Result("c", True)),
        (7, Result("x", True)),
        (8, Result("y", True)),
        memory=memory,
    )
    tally = m.tools["Bash"]
    assert (tally.calls, tally.answered, tally.errors) == (3, 3, 3)
    assert (tally.copied, tally.copied_answered, tally.copied_errors) == (2, 2, 2)
    assert (m.copied_calls, m.error_results, m.results) == (2, 5, 5)


def test_an_explicit_or_sidechain_parent_needs_no_running_task() -> None:
    m = fed(
        (1, call("t1", "Task", input={"prompt": "look"})),
        (2, Result("t1", False)),  # no Task runs from here on
        (3, call("c1", "Read", parent="p9")),
        (4, SidechainStart("look")),
        (5, call("c2", "Read", sidechain=True)),
        (6, call("c3", "Read")),
        (7, Result("c1", False)),
    )
    assert [m.open_calls[c].parent for c in ("c2", "c3")] == ["t1", None]
    assert m.children == Counter({("p9", "", "parent_tool_use_id"): 1, ("t1", "", "sidechain-prompt"): 1})  # fmt: skip


def test_answering_a_child_leaves_its_task_running() -> None:
    m = fed((1, call("t1", "Task")), (2, call("c1", "Read")), (3, Result("c1", False)))
    assert m.active_parents == {"t1": "Task"}
    m.feed((Result("t1", False),), 4)
    assert m.active_parents == {}


def test_a_call_after_the_last_result_was_interrupted() -> None:
    """Even a call on the first line, in a file with no result at all."""
    alone = run((1, call("a", "Bash")))
    assert [(u.id, u.line, u.interrupted) for u in alone.unanswered] == [("a", 1, True)]
    answered_later = run((1, call("a")), (2, call("b")), (3, Result("b", False)))
    assert [(u.id, u.interrupted) for u in answered_later.unanswered] == [("a", False)]
