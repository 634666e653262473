"""Real transcripts from public repositories reproduce the counts in their SOURCE.md."""

from __future__ import annotations

import pytest

from tests.conftest import requires_shared
from toolsel.replay.driver import replay_paths

# file: (calls, results, unanswered, duplicate call ids, error results)
GROUND_TRUTH = {
    "claude-code/agentcmd/06381696-0074-49f8-863e-6ad4fac507f9.jsonl": (3, 2, 1, 0, 0),
    "claude-code/agentcmd/full-session.jsonl": (23, 20, 3, 0, 0),
    "claude-code/claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl": (
        167,
        167,
        0,
        0,
        23,
    ),
    "claude-code/sniffly/d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl": (59, 58, 1, 0, 4),
    "claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl": (177, 177, 0, 0, 13),
    "claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-a7be2f0.jsonl": (
        19,
        19,
        0,
        0,
        2,
    ),
    "claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-acompact-f46190.jsonl": (
        0,
        0,
        0,
        0,
        0,
    ),
    "claude-code/spotter/short.jsonl": (2, 2, 0, 0, 2),
    "codex/agentcmd/exec-json-stream-output-4.jsonl": (1, 1, 0, 0, 0),
    "codex/agentcmd/rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl": (
        123,
        123,
        0,
        0,
        None,
    ),
    "openai-chat/swe-agent/marshmallow-code__marshmallow-1867.function_calling_replace.traj": (
        11,
        11,
        0,
        3,
        0,
    ),
    "openai-chat/tau-bench/gpt-4o-airline.task0.trial0.messages.jsonl": (8, 8, 0, 2, 0),
    "stream-json/claude-orchestrator/custom_agent_output.jsonl": (2, 2, 0, 0, 1),
    "stream-json/claude-orchestrator/task_tool_output.jsonl": (36, 36, 0, 0, 2),
}
UNANSWERED = {
    "claude-code/agentcmd/06381696-0074-49f8-863e-6ad4fac507f9.jsonl": {
        "toolu_01BxsuUhRW9umBEuD9FYvYDu"
    },
    "claude-code/agentcmd/full-session.jsonl": {
        "toolu_011df4X9k8WZCHh9sXKVzGHZ",
        "toolu_019KCj6ze6s4xPHdfY6s1FC5",
        "toolu_01XSaf9HkXmiWhn7q2mekBiR",
    },
    "claude-code/sniffly/d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl": {
        "toolu_012VXnBYGCQT1B47QH1zPGpC"
    },
}


@pytest.fixture(scope="module")
def reports() -> dict[str, object]:
    root = requires_shared("transcripts-external")
    result = replay_paths([str(root)])
    return {f.path.split("transcripts-external/", 1)[1]: f for f in result.files}


@pytest.mark.parametrize("name", list(GROUND_TRUTH))
def test_counts(reports: dict, name: str) -> None:
    calls, results, unanswered, duplicate_ids, errors = GROUND_TRUTH[name]
    report = reports[name]
    assert (report.calls, report.results, len(report.unanswered), len(report.duplicate_calls)) == (
        calls,
        results,
        unanswered,
        duplicate_ids,
    )
    assert report.orphans == () and report.unreadable == ()
    if errors is not None:  # Codex has no error flag; toolsel reads exit codes (8 here)
        assert report.error_results == errors
    assert report.lines + 0 == report.lines  # every line is accounted for below
    if name in UNANSWERED:
        assert {u.id for u in report.unanswered} == UNANSWERED[name]
        assert all(u.interrupted for u in report.unanswered)


def test_subagent_call_counts(reports: dict) -> None:
    spotter = reports["claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"]
    assert [(s.parent_id, s.calls, s.rule) for s in spotter.subagents] == [
        ("toolu_017SvvKc8KLbhGMG3tXkf21Z", 19, "agent-file")
    ]
    viewer = reports["claude-code/claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"]
    assert sorted(s.calls for s in viewer.subagents) == sorted([8, 33, 39, 24, 52])
    assert {s.rule for s in viewer.subagents} == {"sidechain-prompt"}
    stream = reports["stream-json/claude-orchestrator/task_tool_output.jsonl"]
    assert [(s.parent_id, s.calls) for s in stream.subagents] == [
        ("toolu_01EMBD2Ez8pt8LWj5ovow1mU", 35)
    ]


def test_reused_ids_are_reported_as_reused(reports: dict) -> None:
    tau = reports["openai-chat/tau-bench/gpt-4o-airline.task0.trial0.messages.jsonl"]
    assert {(d.id, d.kind) for d in tau.duplicate_calls} == {
        ("call_HGn16KZh9oNCruxsMJ4gYXan", "reused"),
        ("call_oIHazX6yQrB8hUwl4cRilFKj", "reused"),
    }
    swe = reports[
        "openai-chat/swe-agent/marshmallow-code__marshmallow-1867.function_calling_replace.traj"
    ]
    assert {d.id: len(d.lines) for d in swe.duplicate_calls} == {
        "call_5iDdbOYybq7L19vqXmR0DPaU": 4,
        "call_q3VsBszvsntfyPkxeHq4i5N1": 2,
        "call_ahToD2vM0aQWJPkRmy5cumru": 2,
    }


def test_embedded_transcripts_and_progress_copies_do_not_count(reports: dict) -> None:
    # spotter Reads other transcripts (ids inside strings) and carries 19 progress copies
    assert reports["claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"].calls == 177
