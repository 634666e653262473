"""Every kind of finding, in every format: transcripts/grid/ holds one scenario
(tests/replay/grid.py) written in each transcript format toolsel reads."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.replay.grid import FILES
from toolsel.registry import load_registry
from toolsel.replay.file import replay_file

GRID = ROOT / "transcripts" / "grid"
REGISTRY = load_registry(ROOT / "registries")
FORMAT = {
    "claude-code.jsonl": "claude-code",
    "stream-json.jsonl": "stream-json",
    "anthropic-messages.jsonl": "anthropic",
    "anthropic-messages.json": "anthropic",
    "openai-chat.jsonl": "openai-chat",
    "openai-chat.json": "openai-chat",
    "openai-responses.jsonl": "openai-responses",
    "codex-rollout.jsonl": "codex-rollout",
    "codex-exec.jsonl": "codex-exec",
    "swe-agent.traj": "openai-chat",
    "copilot-cli.jsonl": "copilot-cli",
    "droid.jsonl": "droid",
    "gemini-stream-json.jsonl": "gemini-stream-json",
    "grok-cli.jsonl": "grok-cli",
    "pi.jsonl": "pi",
    "openhands.json": "openhands",
}
#: whole JSON documents have no lines to be unreadable
DOCUMENTS = {"anthropic-messages.json", "openai-chat.json", "swe-agent.traj", "openhands.json"}
#: OpenAI Chat and Responses results, and Grok CLI's, carry no error flag
NO_ERROR_FLAG = {
    "openai-chat.jsonl",
    "openai-chat.json",
    "openai-responses.jsonl",
    "swe-agent.traj",
    "grok-cli.jsonl",
}
#: formats that name a sub-agent call's parent
EXPLICIT_PARENT = {"stream-json.jsonl", "copilot-cli.jsonl"}


def test_the_committed_grid_is_what_the_generator_writes() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "replay" / "grid.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in GRID.iterdir()) == sorted(FILES) == sorted(FORMAT)


@pytest.mark.parametrize("name", sorted(FORMAT))
def test_every_kind_of_finding(name: str) -> None:
    r = replay_file(str(GRID / name), registry=REGISTRY)
    assert r.format == FORMAT[name]
    assert (r.calls, r.results, r.paired) == (10, 11, 9)
    assert [(u.id, u.tool, u.interrupted) for u in r.unanswered] == [
        ("id_C", "deploy_service", True)
    ]
    assert [o.id for o in r.orphans] == ["id_G"]
    assert {(d.id, d.kind) for d in r.duplicate_calls} == {
        ("id_D", "identical"),
        ("id_E", "conflicting"),
        ("id_F", "enriched"),
        ("id_A", "reused"),
    }
    assert [d.id for d in r.duplicate_results] == ["id_D"]
    rule = "parent_tool_use_id" if name in EXPLICIT_PARENT else "single-active-parent"
    assert [(s.parent_id, s.tool, s.calls, s.rule) for s in r.subagents] == [
        ("id_T", "Task", 1, rule)
    ]
    assert [u.line for u in r.unreadable] == ([] if name in DOCUMENTS else [24])
    assert r.error_results == (0 if name in NO_ERROR_FLAG else 1)
    violations = {(v.id, v.rule) for v in r.violations}
    expected = {
        ("id_U", "unknown-tool"),
        ("id_T", "invalid-input"),  # the registry's Task needs a task_description
        ("id_C", "invalid-input"),  # environment 'prod' is not an allowed value
    }
    # id_F's input came in a later line (an enriched call): checked once complete, it is valid
    if name not in NO_ERROR_FLAG:  # run_tests failed, so deploy_service's requires is unmet
        expected.add(("id_C", "requires"))
    assert violations == expected
    assert r.tools["read_file"].calls == 3  # A, E (first seen as read_file), A reused
