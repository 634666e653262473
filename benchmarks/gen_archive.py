"""Generate a many-file archive of Claude Code sessions, shaped like `~/.claude/projects`.

    python benchmarks/gen_archive.py 10000 /tmp/archive-10k
    python benchmarks/gen_archive.py 50000 /tmp/archive-50k --resumed 0.2 --seed 7

One directory per project, one `<session>.jsonl` per session, and Claude Code 2.x
sub-agent files under `<session>/subagents/agent-<id>.jsonl` (linked by the `agentId` of
the Task result that launched them). A share of sessions are *resumed*: they start with a
copy of an earlier session's lines of the same project (message and tool ids included)
and go on with new turns, as `claude --resume` writes them, so that counting each file
alone would count the copied calls twice. Assistant messages are streamed one content
block per line (the same `message.id` on each), every few calls follow a human request
(what `toolsel learn` mines; most are distinct), some results are errors, and each file's
modification time is its last timestamp (what `--since` reads). Deterministic for a seed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

TOOLS = ["Read", "Bash", "Grep", "Edit", "Glob", "Write", "TodoWrite", "WebFetch", "LS"]
WEIGHTS = [30, 25, 14, 12, 8, 5, 3, 2, 1]
VERBS = "fix add refactor explain test document rename speed up clean remove port".split()
THINGS = "parser cache login page retry loop config loader date helper CLI flag report test suite migration logger".split()
#: Sessions end within this many days before the archive's newest time.
SPREAD_DAYS = 60
NEWEST = datetime(2026, 3, 1, tzinfo=UTC)


def _stamp(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


#: What a failing call of each tool says (`{n}`: a number drawn for the result, so that
#: paths and counts differ from one error to the next, as real ones do).
ERRORS = {
    "Read": "<tool_use_error>File does not exist: /home/dev/project/src/f{n}.py</tool_use_error>",
    "Edit": "String to replace not found in file.\nString: def helper_{n}(",
    "Bash": "Error: Command failed with exit code {n}\n{n} tests failed",
    "Grep": "Path does not exist: /home/dev/project/lib{n}",
}


def _content(tool: str, n: int, error: bool) -> str:
    """A result's text: `n` characters, or, for an error, the tool's error message."""
    if not error:
        return "x" * n
    return ERRORS.get(tool, "Error: request timed out after {n} ms").format(n=n)


class _Session:
    """One session file being written: its lines, clock and ids."""

    result_chars = 800  # the longest result text (characters); at least 40

    def __init__(self, rng: random.Random, session_id: str, start: datetime) -> None:
        self.rng = rng
        self.id = session_id
        self.clock = start
        self.lines: list[dict[str, Any]] = []
        self.parent: str | None = None
        self.agents: list[tuple[str, list[dict[str, Any]]]] = []  # (agent id, its lines)

    def _tick(self, low: float, high: float) -> str:
        self.clock += timedelta(seconds=self.rng.uniform(low, high))
        return _stamp(self.clock)

    def _line(self, kind: str, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
        line_uuid = str(uuid.UUID(int=self.rng.getrandbits(128)))
        line = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/home/dev/project",
            "sessionId": self.id,
            "version": "2.0.14",
            "type": kind,
            "message": message,
            "uuid": line_uuid,
            "timestamp": self._tick(0.2, 3.0),
            **extra,
        }
        self.parent = line_uuid
        self.lines.append(line)
        return line

    def human(self, number: int) -> None:
        rng = self.rng
        text = (
            f"please {rng.choice(VERBS)} the {rng.choice(THINGS)} in "
            f"src/module_{rng.randrange(400)}.py (case {number})"
        )
        self._line("user", {"role": "user", "content": text})

    def turn(self, subagents: float, cut: bool = False) -> None:
        """One assistant message with 1-3 tool calls, streamed a block per line, then
        each result in a user line; `cut`: the session ends before the last result."""
        rng = self.rng
        message_id = f"msg_{rng.getrandbits(96):024x}"
        calls = []
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            tool = rng.choices(TOOLS, WEIGHTS)[0]
            if rng.random() < subagents:
                tool = "Task"
            call_id = f"toolu_{rng.getrandbits(96):024x}"
            arguments: dict[str, Any] = {
                "file_path": f"/home/dev/project/src/f{rng.randrange(999)}.py"
            }
            if tool == "Task":
                arguments = {
                    "description": "look around",
                    "prompt": f"survey part {rng.randrange(99)}",
                }
            calls.append((call_id, tool))
            self._line(
                "assistant",
                {"id": message_id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                 "content": [{"type": "tool_use", "id": call_id, "name": tool, "input": arguments}],
                 "stop_reason": None, "usage": {"input_tokens": 4, "output_tokens": 120}},
                requestId=f"req_{rng.getrandbits(64):016x}",
            )  # fmt: skip
        for call_id, tool in calls[:-1] if cut else calls:
            self._tick(0.5, 20.0)
            error = rng.random() < 0.06
            extra: dict[str, Any] = {}
            if tool == "Task":
                agent = f"{rng.getrandbits(64):016x}"
                extra["toolUseResult"] = {
                    "status": "completed",
                    "agentId": agent,
                    "totalToolUseCount": 3,
                }
                self.agents.append((agent, self._subagent(agent)))
            self._line(
                "user",
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id,
                 "content": _content(tool, rng.randint(40, self.result_chars), error), "is_error": error}]},
                **extra,
            )  # fmt: skip

    def _subagent(self, agent: str) -> list[dict[str, Any]]:
        """A sub-agent's own file: a prompt, then a few calls, each answered."""
        rng = self.rng
        child = _Session(rng, self.id, self.clock)
        child._line("user", {"role": "user", "content": "survey the code"}, agentId=agent)
        for _ in range(rng.randint(1, 4)):
            call_id = f"toolu_{rng.getrandbits(96):024x}"
            tool = rng.choices(TOOLS, WEIGHTS)[0]
            child._line(
                "assistant",
                {"id": f"msg_{rng.getrandbits(96):024x}", "role": "assistant",
                 "content": [{"type": "tool_use", "id": call_id, "name": tool, "input": {"pattern": "TODO"}}]},
                agentId=agent,
            )  # fmt: skip
            child._line(
                "user",
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id,
                 "content": "y" * rng.randint(40, 600)}]},
                agentId=agent,
            )  # fmt: skip
        for line in child.lines:
            line["isSidechain"] = True
        return child.lines


def sessions(
    count: int,
    *,
    seed: int = 0,
    resumed: float = 0.15,
    subagents: float = 0.01,
    turns: int = 8,
    unanswered: float = 0.0,
    result_chars: int = 800,
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """(relative path, lines) of each file of an archive of `count` sessions (sub-agent
    files come after their session's file and are not counted in `count`). `turns` is the
    mean number of assistant turns of a session; `unanswered` the share of sessions that
    end before their last call's result (which a session resuming one copies);
    `result_chars` the longest result text (each is 40 to that many characters)."""
    rng = random.Random(seed)
    projects = max(1, count // 250)
    earlier: dict[int, list[list[dict[str, Any]]]] = {}  # project -> its sessions' lines
    for number in range(count):
        project = rng.randrange(projects)
        session_id = str(uuid.UUID(int=rng.getrandbits(128)))
        start = NEWEST - timedelta(days=rng.uniform(0, SPREAD_DAYS))
        session = _Session(rng, session_id, start)
        session.result_chars = result_chars
        before = earlier.get(project)
        if before and rng.random() < resumed:
            # `claude --resume`: the earlier messages again, ids and all, in the new file
            copied = [dict(line, sessionId=session_id) for line in rng.choice(before)]
            session.lines.extend(copied)
            session.parent = copied[-1]["uuid"] if copied else None
            session.clock = max(start, _parse(copied[-1]["timestamp"])) if copied else start
        else:
            session.lines.append({"type": "summary", "summary": "work", "leafUuid": "none"})
        count_turns = max(1, round(rng.expovariate(1 / turns)))
        # drawn only when asked for, so that other archives stay what they were
        cut = unanswered > 0 and rng.random() < unanswered
        for turn in range(count_turns):
            if turn % 3 == 0:
                session.human(number * 100 + turn)
            session.turn(subagents, cut=cut and turn == count_turns - 1)
        directory = f"-home-dev-project{project}"
        kept = earlier.setdefault(project, [])
        kept.append(session.lines)
        if len(kept) > 8:  # a resumed session resumes a recent one
            kept.pop(0)
        yield f"{directory}/{session_id}.jsonl", session.lines
        for agent, lines in session.agents:
            yield f"{directory}/{session_id}/subagents/agent-{agent}.jsonl", lines


def _parse(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp)


def write_archive(out: Path, count: int, **options: Any) -> list[Path]:
    """Write the archive under `out`; each file's mtime is its last timestamp."""
    written = []
    for relative, lines in sessions(count, **options):
        path = out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))
        last = max(
            (_parse(line["timestamp"]) for line in lines if "timestamp" in line), default=NEWEST
        )
        os.utime(path, (last.timestamp(), last.timestamp()))
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sessions", type=int, help="how many session files (sub-agents extra)")
    parser.add_argument("out", type=Path, help="the archive's directory (created)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resumed", type=float, default=0.15, help="share of resumed sessions")
    parser.add_argument("--subagents", type=float, default=0.01, help="share of Task calls")
    parser.add_argument("--turns", type=int, default=8, help="mean assistant turns a session")
    parser.add_argument("--result-chars", type=int, default=800, help="longest result text")
    args = parser.parse_args()
    files = write_archive(
        args.out,
        args.sessions,
        seed=args.seed,
        resumed=args.resumed,
        subagents=args.subagents,
        turns=args.turns,
        result_chars=args.result_chars,
    )
    size = sum(p.stat().st_size for p in files)
    print(f"{len(files)} files, {size / 1e6:.1f} MB in {args.out}")


if __name__ == "__main__":
    main()
