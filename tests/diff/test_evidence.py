"""TD901 evidence: a recorded call is evidence only when OLD accepts it and NEW rejects it,
whatever order the checks run in (inputs of changed tools are validated under OLD only
when NEW rejects them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolsel.diff.evidence as evidence
from toolsel.registry import load_registry


def registry(path: Path, maximum: int) -> Path:
    path.write_text(
        "tools:\n  - name: search\n    description: d\n    parameters:\n      type: object\n"
        "      properties:\n        limit: {type: integer, maximum: " + str(maximum) + "}\n"
    )
    return path


def session(path: Path, limits: list[object]) -> Path:
    uses = [{"type": "tool_use", "id": f"t{i}", "name": "search", "input": {"limit": limit}}
            for i, limit in enumerate(limits)]  # fmt: skip
    path.write_text(
        json.dumps({"type": "assistant", "message": {"role": "assistant", "content": uses}}) + "\n"
    )
    return path


@pytest.mark.parametrize("deferred", [evidence.MAX_DEFERRED, 0])
def test_only_calls_old_accepts_and_new_rejects_are_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, deferred: int
) -> None:
    monkeypatch.setattr(evidence, "MAX_DEFERRED", deferred)  # 0: validate at once
    old = load_registry([registry(tmp_path / "old.yaml", 50)], use_cache=False)
    new = load_registry([registry(tmp_path / "new.yaml", 10)], use_cache=False)
    # t0 fine under both; t1 fine under OLD only; t2 and t3 rejected by both
    log = session(tmp_path / "s.jsonl", [5, 30, 80, "many"])
    result = evidence.transcript_evidence([str(log)], old, new)
    [change] = result.changes
    assert change.rule == "TD901"
    assert [e.message.split(":")[0] for e in change.evidence] == ["call t1"]
