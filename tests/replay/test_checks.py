"""toolsel/replay/checks.py: a call's input is checked within the caller's deadline (serve
passes its request's), and a schema too costly to validate is a violation, not a hang."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fan_out import branching, fan_out, hard_timeout, tree
from toolsel.registry import load_registry
from toolsel.replay.checks import RegistryChecker
from toolsel.replay.events import Call


def _checker(tmp_path: Path) -> RegistryChecker:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"tools": [
        {"name": "tree", "description": "d", "parameters": branching(8)},
        {"name": "boom", "description": "d", "parameters": fan_out(40)},
    ]}))  # fmt: skip
    return RegistryChecker(load_registry([path], use_cache=False))


def test_a_deadline_reaches_the_input_check(tmp_path: Path) -> None:
    checker = _checker(tmp_path)
    call = Call("c1", "tree", {"x": tree(8)})
    assert checker.check(call, 1, deadline=time.monotonic() + 3600) == []
    (late,) = checker.check(call, 2, deadline=time.monotonic() - 1)
    assert (late.rule, late.line) == ("not-checked", 2)
    assert late.message.startswith("validation took too long")


def test_a_schema_too_costly_is_a_violation_on_every_call(tmp_path: Path) -> None:
    checker = _checker(tmp_path)
    with hard_timeout(60):
        found = [checker.check(Call(f"c{i}", "boom", {"x": "v"}), i) for i in range(3)]
    assert [[v.rule for v in violations] for violations in found] == [["not-checked"]] * 3
    assert all("schema too costly to validate" in v[0].message for v in found)


def test_a_call_by_an_alias_is_its_tools_call(tmp_path: Path) -> None:
    """Claude Code sessions before 2.1 call Task, which the catalog keeps as Agent's alias:
    not unknown, checked against Agent's schema, and it satisfies `requires: [Agent]`."""
    path = tmp_path / "r.yaml"
    path.write_text(
        "tools:\n"
        "  - name: Agent\n    aliases: [Task]\n    description: d\n"
        "    parameters: {type: object, properties: {prompt: {type: string}}, required: [prompt]}\n"
        "  - name: report\n    description: d\n    requires: [Agent]\n"
    )
    checker = RegistryChecker(load_registry([path], use_cache=False))
    assert checker.check(Call("c1", "Task", {"prompt": "go"}), 1) == []
    (bad,) = checker.check(Call("c2", "Task", {}), 2)
    assert bad.rule == "invalid-input"
    checker.succeeded.add(checker._canonical("Task"))
    assert checker.check(Call("c3", "report", {}), 3) == []
    assert (
        RegistryChecker(load_registry([path], use_cache=False))
        .check(Call("c4", "report", {}), 4)[0]
        .rule
        == "requires"
    )


def test_a_conflict_is_found_from_either_side(tmp_path: Path) -> None:
    """`conflicts` is declared on one tool; calling the other one after it is a conflict too."""
    path = tmp_path / "r.yaml"
    path.write_text(
        "tools:\n  - name: deploy\n    description: d\n    conflicts: [rollback]\n"
        "  - name: rollback\n    description: d\n  - name: status\n    description: d\n"
    )
    registry = load_registry([path], use_cache=False)
    for first, second in (("deploy", "rollback"), ("rollback", "deploy")):
        checker = RegistryChecker(registry)
        assert checker.check(Call("c1", first, {}), 1) == []
        assert checker.check(Call("c2", "status", {}), 2) == []
        (found,) = checker.check(Call("c3", second, {}), 3)
        assert found.rule == "conflict" and repr(first) in found.message


def test_an_unknown_tools_did_you_mean_is_worked_out_once_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every file of a run says the same hint, and the registry is searched for it once."""
    from toolsel.replay import checks
    from toolsel.replay.driver import replay_paths

    registry = tmp_path / "r.json"
    registry.write_text(json.dumps({"tools": [{"name": "read_file", "description": "d"}]}))
    for n in range(3):
        use = {"type": "tool_use", "id": f"c{n}", "name": "read_fil", "input": {}}
        line = {"type": "assistant", "uuid": f"u{n}", "message": {"id": f"m{n}", "content": [use]}}
        (tmp_path / f"s{n}.jsonl").write_text(json.dumps(line) + "\n")
    searched: list[str] = []
    real = checks.did_you_mean

    def counted(word: str, choices: Any) -> str:
        searched.append(word)
        return real(word, choices)

    monkeypatch.setattr(checks, "did_you_mean", counted)
    paths = sorted(str(p) for p in tmp_path.glob("s*.jsonl"))
    result = replay_paths(paths, registry=load_registry([registry], use_cache=False))
    messages = [v.message for report in result.files for v in report.violations]
    assert messages == ["'read_fil' is not in the registry (did you mean 'read_file'?)"] * 3
    assert searched == ["read_fil"]
