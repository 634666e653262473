"""A generated archive of transcripts with what makes a fleet's hard: Claude Code
sessions resumed into new files (their calls copied, message ids and all), Codex
rollouts that share a session id (copied calls with no message id, linked by session
only, one named after a call), sub-agent Task calls, errors, unanswered calls, reused ids,
tied and odd latencies, and an unreadable line. Deterministic for a seed."""

from __future__ import annotations

import json
import random
from pathlib import Path

TOOLS = ["Read", "Edit", "Bash", "Grep", "Glob", "Write", "WebFetch", "TodoWrite", "Task"]


def _at(second: float) -> str:
    whole, frac = divmod(second, 1)
    minute, sec = divmod(int(whole), 60)
    hour, minute = divmod(minute, 60)
    return f"2026-01-01T{hour % 24:02d}:{minute:02d}:{sec:02d}.{int(frac * 1000):03d}Z"


def _claude_session(rng: random.Random, name: str, calls: int) -> list[str]:
    lines = []
    clock = rng.uniform(0, 3000)
    for n in range(calls):
        tool = rng.choice(TOOLS)
        call_id = f"toolu_{name}_{n}"
        message = f"msg_{name}_{n}"
        base = {"sessionId": name, "uuid": f"{name}-{n}"}
        lines.append(json.dumps({**base, "type": "assistant", "timestamp": _at(clock), "message": {"role": "assistant", "id": message, "content": [{"type": "tool_use", "id": call_id, "name": tool, "input": {"n": n}}]}}))  # fmt: skip
        if rng.random() < 0.08:
            continue  # unanswered
        clock += rng.choice([0.0, 0.5, 1.25, rng.uniform(0, 30)])
        error = rng.random() < 0.15
        lines.append(json.dumps({**base, "type": "user", "timestamp": _at(clock), "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": "x", "is_error": error}]}}))  # fmt: skip
        clock += rng.uniform(0, 5)
    return lines


def _codex_rollout(
    rng: random.Random, session: str, calls: list[int], meta_after: int
) -> list[str]:
    lines = []
    meta = json.dumps({"timestamp": _at(0), "type": "session_meta", "payload": {"id": session, "cwd": "/"}})  # fmt: skip
    for i, n in enumerate(calls):
        if i == meta_after:
            lines.append(meta)
        call_id = f"call_{session}_{n}"
        tool = ["shell", "apply_patch", "read"][n % 3]
        lines.append(json.dumps({"timestamp": _at(n), "type": "response_item", "payload": {"type": "function_call", "name": tool, "arguments": "{}", "call_id": call_id}}))  # fmt: skip
        lines.append(json.dumps({"timestamp": _at(n + 0.5 * (n % 4)), "type": "response_item", "payload": {"type": "function_call_output", "call_id": call_id, "output": "ok"}}))  # fmt: skip
    if meta_after >= len(calls):
        lines.append(meta)
    return lines


def write_archive(root: Path, sessions: int, *, seed: int = 7, calls: int = 12) -> list[Path]:
    """`sessions` Claude Code sessions (about one in four resumed into a second file) and a
    few Codex lineages, under `root`; the paths written, in path order."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    for s in range(sessions):
        name = f"s{s:06d}"
        folder = root / "claude" / f"p{s % 17:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = _claude_session(rng, name, rng.randint(0, calls))
        (folder / f"{name}-a.jsonl").write_text("\n".join(lines) + "\n")
        if rng.random() < 0.25:  # resumed: the new file starts with the old one's lines
            more = _claude_session(rng, f"{name}r", rng.randint(1, calls))
            (folder / f"{name}-b.jsonl").write_text("\n".join(lines + more) + "\n")
    codex = root / "codex"
    codex.mkdir(exist_ok=True)
    for lineage in range(max(1, sessions // 20)):
        session = f"th{lineage}"
        first = list(range(rng.randint(1, 6)))
        (codex / f"{session}-1.jsonl").write_text("\n".join(_codex_rollout(rng, session, first, 0)) + "\n")  # fmt: skip
        # resumed: the same session, the first calls again, then new ones; the session is
        # named after the first call in one of them (that call is no copy)
        resumed = first + list(range(len(first), len(first) + 3))
        (codex / f"{session}-2.jsonl").write_text("\n".join(_codex_rollout(rng, session, resumed, lineage % 2)) + "\n")  # fmt: skip
    (root / "broken.jsonl").write_text('{"type": "assistant"\nnot json\n')
    return sorted(root.rglob("*.jsonl"))
