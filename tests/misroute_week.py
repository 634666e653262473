"""A generated week of Claude Code sessions with planted misroutes and decoys, and the
misroutes planted in it, known by construction (not by running the finder).

Each step opens with a human request that the winner of its scenario answers best (so
`rank` has something to find), then calls that work, then plays one scenario:

- planted: the loser fails (an error, or an empty result) once or twice, then a different
  tool works: one misroute at the loser's first failure;
- retry: the loser fails, then the same tool works: none;
- detour: the loser fails, a different tool works, then the loser works (the other tool
  was a step towards it, as a Read before an Edit): none;
- new request: the loser fails, a new human request comes, a different tool works: none;
- far later: the loser fails, then another tool fails `window` times in a row, then a
  different tool works: the loser is out of the window (none), the other tool's chain is
  answered (one misroute at its first failure);
- exit status: the loser's error only says how the command it ran exited ("Exit code 1":
  the tests it ran failed), then a different tool works (an Edit that fixes them): none;
- batch: the loser and a different tool are called in one message, the loser fails and
  the other works (it was no answer to the failure), and the step ends: none;
- elsewhere: the loser fails, then a different tool works on something else (another
  path): none (the labelled false positives of real sessions: the next piece of work);
- edit after: a shell (`run_shell_command`, a built-in `dangerous` tool) fails, then an
  edit (`write_file`, `write`) of the same path works (the fix after a failed run): none;
- read after edit: the edit fails, then a look-up (`read_file`, `read`) of the same path
  works (what the edit asked for first), then sometimes another editor (`replace`) edits
  it: none;
- empty command: a shell (`run_shell_command`, which acts) says nothing, then a
  different tool works on the same path (`mkdir`, then a write): none;
- thought: a call whose only argument is prose (tau-bench's `think`) comes back empty,
  then a different tool works: none (a note, not a look-up).

Every call of a step names the step's path, in one of the forms calls use (relative,
absolute, inside a shell command); other calls name paths of their own. Calls of tools
that did not fail may follow, which change nothing.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Each tool, with what a person asks for when it is the tool to use.
REQUESTS = {
    "read_file": "show me what the settings file on disk says",
    "search_docs": "what does the product documentation say about the retry policy",
    "run_query": "how many orders did the analytics database record yesterday, in SQL",
    "list_dir": "which files are in the reports folder",
    "fetch_url": "fetch the status web page at this URL",
    "grep_code": "find where the code calls the payment pattern",
}
TOOLS = list(REQUESTS)
SCENARIOS = ["planted", "retry", "detour", "new request", "far later", "batch", "exit status",
             "elsewhere", "edit after", "read after edit", "empty command", "thought"]  # fmt: skip
#: Built-in tools (Gemini CLI's catalog) whose permission says what kind of job they do.
EDITOR, OTHER_EDITOR, READER, SHELL = "write_file", "replace", "read_file", "run_shell_command"

#: A planted misroute: (file name, line of the loser's first failure, loser, winner).
Planted = tuple[str, int, str, str]


@dataclass
class _Session:
    name: str
    lines: list[dict[str, Any]] = field(default_factory=list)
    planted: list[Planted] = field(default_factory=list)
    calls: int = 0
    target: str = "notes.txt"  # the path the step works on

    def human(self, text: str) -> None:
        self.lines.append({"type": "user", "uuid": f"h{len(self.lines)}", "sessionId": self.name,
                           "message": {"role": "user", "content": text}})  # fmt: skip

    def batch(self, outcomes: list[tuple[str, str]], target: str | None = None) -> int:
        """Call the tools in one message on `target` (default: the step's path), each
        answered as `outcome` says (ok, error, empty, exit: an exit status); the call's
        line."""
        uses, results = [], []
        for tool, outcome in outcomes:
            self.calls += 1
            call = f"toolu_{self.name}_{self.calls}"
            where = _form(target or self.target, self.calls)
            uses.append({"type": "tool_use", "id": call, "name": tool,
                         "input": {"n": self.calls, **where}})  # fmt: skip
            content = {"ok": f"{tool} answered", "error": "Error: it failed", "empty": "",
                       "exit": "Exit code 1\ntests failed"}[outcome]  # fmt: skip
            results.append({"type": "tool_result", "tool_use_id": call, "content": content,
                            "is_error": outcome in ("error", "exit")})  # fmt: skip
        self.lines.append({"type": "assistant", "uuid": f"a{len(self.lines)}",
                           "sessionId": self.name,
                           "message": {"role": "assistant", "id": f"m{len(self.lines)}",
                                       "content": uses}})  # fmt: skip
        line = len(self.lines)
        self.lines.append({"type": "user", "uuid": f"r{len(self.lines)}", "sessionId": self.name,
                           "message": {"role": "user", "content": results}})  # fmt: skip
        return line

    def think(self) -> None:
        """A `think` call: a thought in, nothing out."""
        self.calls += 1
        call = f"toolu_{self.name}_{self.calls}"
        thought = f"The request may need step {self.calls} first, then the rest of it."
        use = {"type": "tool_use", "id": call, "name": "think", "input": {"thought": thought}}
        self.lines.append({"type": "assistant", "uuid": f"a{len(self.lines)}",
                           "sessionId": self.name,
                           "message": {"role": "assistant", "id": f"m{len(self.lines)}",
                                       "content": [use]}})  # fmt: skip
        result = {"type": "tool_result", "tool_use_id": call, "content": "", "is_error": False}
        self.lines.append({"type": "user", "uuid": f"r{len(self.lines)}", "sessionId": self.name,
                           "message": {"role": "user", "content": [result]}})  # fmt: skip

    def call(self, tool: str, outcome: str = "ok", target: str | None = None) -> int:
        return self.batch([(tool, outcome)], target)


def _form(path: str, n: int) -> dict[str, str]:
    """One of the ways calls name a path: as it is, absolute, or in a shell command."""
    return [{"path": path}, {"file_path": f"/home/me/proj/{path}"},
            {"command": f"cat '{path}' | head -5"}][n % 3]  # fmt: skip


def _scenario(
    session: _Session, kind: str, tools: list[str], rng: random.Random, window: int
) -> None:
    loser, winner, other = tools
    failure = rng.choice(["error", "empty"])
    if kind == "planted":
        first = session.call(loser, failure)
        for _ in range(rng.randrange(2)):  # the same tool failing again: the same chain
            session.call(loser, rng.choice(["error", "empty"]))
        session.call(winner)
        session.planted.append((session.name, first, loser, winner))
    elif kind == "retry":
        session.call(loser, failure)
        session.call(loser)
    elif kind == "detour":
        session.call(loser, failure)
        session.call(winner)
        session.call(loser)
    elif kind == "new request":
        session.call(loser, failure)
        session.human(f"now something else {rng.randrange(1000)}")
        session.call(winner)
    elif kind == "far later":
        session.call(loser, failure)
        first = session.call(other, "error")
        for _ in range(window - 1):
            session.call(other, "error")
        session.call(winner)
        session.planted.append((session.name, first, other, winner))
    elif kind == "exit status":
        session.call(loser, "exit")
        session.call(winner)
    elif kind == "elsewhere":
        session.call(loser, failure)
        session.call(winner, target=f"elsewhere/{session.calls}.txt")
    elif kind == "edit after":
        session.call(SHELL, "error")  # the program it ran failed (no exit status said)
        session.call(EDITOR)
    elif kind == "read after edit":
        session.call(EDITOR, "error")
        session.call(READER)
        if rng.randrange(2):
            session.call(OTHER_EDITOR)
    elif kind == "thought":
        session.think()
        session.call(winner)
    elif kind == "empty command":
        session.call(SHELL, "empty")
        session.call(winner)
    else:  # batch; and the step ends (any tool that worked next would answer the failure)
        session.batch([(loser, failure), (winner, "ok")])
        return
    for _ in range(rng.randrange(3)):  # later calls of the tools that did not fail: nothing
        tool = rng.choice([t for t in TOOLS if t not in (loser, other)])
        session.call(tool, target=f"other/{session.calls}.md")


def write_misroute_week(
    folder: Path, *, seed: int = 35, sessions_a_day: int = 3, steps: int = 14, window: int = 3
) -> list[Planted]:
    """Write seven days of sessions into `folder`; the misroutes planted, in path order."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    planted: list[Planted] = []
    for day in range(7):
        for number in range(sessions_a_day):
            session = _Session(f"day{day}-s{number}.jsonl")
            for _ in range(steps):
                tools = rng.sample(TOOLS, 3)  # loser, winner, other
                session.human(REQUESTS[tools[1]])  # the winner is the tool to use
                session.target = f"reports/step-{len(session.lines)}.csv"
                for _ in range(rng.randrange(3)):
                    session.call(rng.choice(TOOLS))
                _scenario(session, rng.choice(SCENARIOS), tools, rng, window)
            text = "".join(json.dumps(line) + "\n" for line in session.lines)
            (folder / session.name).write_text(text, encoding="utf-8")
            planted += session.planted
    return planted
