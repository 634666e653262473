"""`toolsel replay` speed and memory on generated transcripts, against floors in the same run.

    python benchmarks/replay_bench.py --megabytes 200
    python benchmarks/replay_bench.py --megabytes 1000 --runs 1 --formats claude-code
    python benchmarks/replay_bench.py --megabytes 200 --variants json registry jsonl learn

  floor json   for line in f: json.loads(line)     (a whole process, as replay is)
  floor orjson for line in f: orjson.loads(line)
  replay       the whole `toolsel replay --format json FILE` process, and its peak RSS
               (variants: `registry` adds `-r registries/`, `jsonl` is `--format jsonl`,
               `learn` is `toolsel learn --transcripts FILE`, mining example prompts)

One row per format: Claude Code sessions, Agent SDK stream-json, Codex rollouts and OpenAI
Chat JSONL, each shaped like the real files in ../shared/transcripts-external. Each figure
is the best of --runs (the machine is shared: the least disturbed run is the closest to the
code's own cost), as wall seconds and as CPU seconds (user + system, which other processes
on the machine disturb less); the ratios divide replay's by the floor's.
Targets: issue 9, replay within 1.3x the json.loads floor and peak RSS under 150 MB at 1 GB;
issue 23, Claude Code, stream-json and Codex replay within 1.5x the orjson floor.
`--baseline DIR` also times the toolsel package in DIR (an older checkout) in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FLOOR = """
import sys, {module}
with open(sys.argv[1], "rb") as f:
    for line in f:
        {module}.loads(line)
"""
PEAK = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(usage.ru_maxrss, usage.ru_utime + usage.ru_stime)
"""
#: The command line of an older toolsel package (`--baseline DIR`, DIR holding `toolsel/`).
BASELINE = "import sys; sys.path.insert(0, sys.argv.pop(1)); from toolsel.cli import main; main()"
TOOLS = ["read_file", "run_tests", "search_code", "patch_file", "list_directory", "write_file"]
#: Every PROMPT_EVERY-th call follows a human request (what `toolsel learn` mines).
PROMPT_EVERY = 8


def _asks(n: int) -> str | None:
    return f"please look at file_{n}.py and fix the failing test" if n % PROMPT_EVERY == 1 else None


def _stamp(n: int, second: int) -> str:
    return f"2026-01-01T{(n // 3600) % 24:02d}:{(n // 60) % 60:02d}:{second:02d}.000Z"


def claude_code(n: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    """A streamed assistant call, then the user line carrying its result."""
    call_id = f"toolu_{n:024d}"
    if ask := _asks(n):
        yield {"parentUuid": f"u{n - 1}", "isSidechain": False, "type": "user", "uuid": f"h{n}", "sessionId": "s",
               "timestamp": _stamp(n, 0), "message": {"role": "user", "content": ask}}  # fmt: skip
    yield {"parentUuid": f"u{n - 1}", "isSidechain": False, "type": "assistant", "uuid": f"a{n}", "sessionId": "s",
           "timestamp": _stamp(n, 0), "message": {"id": f"msg_{n}", "role": "assistant", "content": [
               {"type": "tool_use", "id": call_id, "name": rng.choice(TOOLS), "input": {"path": f"/src/file_{n}.py"}}]}}  # fmt: skip
    yield {"parentUuid": f"a{n}", "isSidechain": False, "type": "user", "uuid": f"u{n}", "sessionId": "s",
           "timestamp": _stamp(n, 1), "message": {"role": "user", "content": [
               {"type": "tool_result", "tool_use_id": call_id, "content": "x" * rng.randint(200, 2000)}]}}  # fmt: skip


def stream_json(n: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    """`claude -p --output-format stream-json` messages: explicit parent_tool_use_id."""
    call_id = f"toolu_{n:024d}"
    if ask := _asks(n):
        yield {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": ask}]},
               "parent_tool_use_id": None, "session_id": "s", "uuid": f"h{n}"}  # fmt: skip
    yield {"type": "assistant", "message": {"id": f"msg_{n}", "type": "message", "role": "assistant", "content": [
               {"type": "tool_use", "id": call_id, "name": rng.choice(TOOLS), "input": {"path": f"/src/file_{n}.py"}}]},
           "parent_tool_use_id": None, "session_id": "s", "uuid": f"a{n}"}  # fmt: skip
    yield {"type": "user", "message": {"role": "user", "content": [
               {"tool_use_id": call_id, "type": "tool_result", "content": "x" * rng.randint(200, 2000)}]},
           "parent_tool_use_id": None, "session_id": "s", "uuid": f"u{n}",
           "tool_use_result": {"stdout": "ok", "stderr": "", "interrupted": False}}  # fmt: skip


def codex_rollout(n: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    """A rollout turn: reasoning, a shell call, its JSON-encoded output, a token count."""
    call_id = f"call_{n:024d}"
    output = json.dumps({"output": "x" * rng.randint(200, 2000), "metadata": {"exit_code": rng.choice([0, 0, 0, 1]), "duration_seconds": 0.1}})  # fmt: skip
    if ask := _asks(n):
        yield {"timestamp": _stamp(n, 0), "type": "response_item", "payload": {"type": "message", "role": "user",
               "content": [{"type": "input_text", "text": ask}]}}  # fmt: skip
    yield {"timestamp": _stamp(n, 0), "type": "response_item", "payload": {"type": "reasoning", "summary": [
        {"type": "summary_text", "text": "Looking at the file"}], "content": None, "encrypted_content": "gAAAA" + "b" * 200}}  # fmt: skip
    yield {"timestamp": _stamp(n, 0), "type": "response_item", "payload": {"type": "function_call", "name": "shell",
           "arguments": json.dumps({"command": ["bash", "-lc", f"cat src/file_{n}.py"], "workdir": "/repo"}), "call_id": call_id}}  # fmt: skip
    yield {"timestamp": _stamp(n, 1), "type": "response_item", "payload": {"type": "function_call_output", "call_id": call_id, "output": output}}  # fmt: skip
    yield {"timestamp": _stamp(n, 1), "type": "event_msg", "payload": {"type": "token_count", "info": {
        "total_token_usage": {"input_tokens": 1000 + n, "output_tokens": 20}}}}  # fmt: skip


def openai_chat(n: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    """Chat Completions messages: an assistant message with tool_calls, then the tool message."""
    call_id = f"call_{n:024d}"
    if ask := _asks(n):
        yield {"role": "user", "content": ask}
    yield {"role": "assistant", "content": None, "tool_calls": [{"id": call_id, "type": "function", "function": {
        "name": rng.choice(TOOLS), "arguments": json.dumps({"path": f"/src/file_{n}.py"})}}]}  # fmt: skip
    yield {"role": "tool", "tool_call_id": call_id, "content": "x" * rng.randint(200, 2000)}


FORMATS: dict[str, Callable[[int, random.Random], Iterator[dict[str, Any]]]] = {
    "claude-code": claude_code,
    "stream-json": stream_json,
    "codex-rollout": codex_rollout,
    "openai-chat": openai_chat,
}


def generate(path: Path, fmt: str, megabytes: int) -> None:
    rng = random.Random(3)
    target = megabytes * 1024 * 1024
    written = n = 0
    with path.open("w") as out:
        while written < target:
            n += 1
            for record in FORMATS[fmt](n, rng):
                line = json.dumps(record) + "\n"
                out.write(line)
                written += len(line)


def floor(module: str, path: Path, env: dict[str, str]) -> Run:
    """A bare `for line in f: module.loads(line)` pass, as a whole process."""
    return measure([sys.executable, "-c", FLOOR.format(module=module), str(path)], env)


#: (wall seconds, CPU seconds, peak RSS in MB) of one whole process.
Run = tuple[float, float, float]


def measure(command: list[str], env: dict[str, str]) -> Run:
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", PEAK, *command], capture_output=True, text=True, check=True, env=env
    )
    rss, cpu = out.stdout.split()
    return time.perf_counter() - started, float(cpu), int(rss) / 1024


def best(runs: list[Run]) -> Run:
    """The fastest wall time and the least CPU time of the runs, and the highest peak RSS."""
    return min(r[0] for r in runs), min(r[1] for r in runs), max(r[2] for r in runs)


VARIANTS = {
    # --no-registry: run from a checkout, replay would check calls against ./registries/
    "json": ["replay", "--format", "json", "--no-registry"],
    "registry": ["replay", "--format", "json", "-r", str(ROOT / "registries")],
    "jsonl": ["replay", "--format", "jsonl", "--no-registry"],
    # mining examples (issue 11: at replay speed); the overlay goes to a scratch file
    "learn": ["learn", "-o", os.devnull, "--transcripts"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--formats", nargs="+", choices=list(FORMATS), default=list(FORMATS))
    parser.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=["json"])
    parser.add_argument("--baseline", type=Path, help="a directory holding an older toolsel/")
    args = parser.parse_args()
    toolsel = str(Path(sys.executable).with_name("toolsel"))
    commands = {"": [toolsel]}
    if args.baseline:
        commands = {" (baseline)": [sys.executable, "-c", BASELINE, str(args.baseline)], **commands}
    # measure what users get: a normal install has bytecode, even where the environment
    # forbids writing it (PYTHONDONTWRITEBYTECODE makes an editable install recompile)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for tree in [ROOT] + ([args.baseline] if args.baseline else []):
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(tree / "toolsel")],
            env=env, check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
    print(f"best of {args.runs} runs; wall seconds, and CPU seconds in brackets")
    header = "| format | input | json.loads floor | orjson floor |"
    columns = [(v, name) for v in args.variants for name in commands]
    header += "".join(f" {v}{name} | vs orjson | vs json | peak RSS |" for v, name in columns)
    print(header)
    print("|---|---:|---:|---:|" + "---:|---:|---:|---:|" * len(columns))
    for fmt in args.formats:
        path = HERE / "data" / f"transcript-{fmt}-{args.megabytes}mb-v2.jsonl"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            generate(path, fmt, args.megabytes)
        # floors and toolsel take turns, so drifting load on a shared machine hits all alike
        floors: dict[str, list[Run]] = {"json": [], "orjson": []}
        runs: dict[tuple[str, str], list[Run]] = {c: [] for c in columns}
        for _ in range(args.runs):
            for module, floor_runs in floors.items():
                floor_runs.append(floor(module, path, env))
            for variant, name in columns:
                command = [*commands[name], *VARIANTS[variant], str(path)]
                runs[variant, name].append(measure(command, env))
        json_floor, orjson_floor = best(floors["json"]), best(floors["orjson"])
        row = f"| {fmt} | {path.stat().st_size / 1e6:.0f} MB | {_pair(json_floor)} | {_pair(orjson_floor)} |"
        for column in columns:
            wall, cpu, peak = best(runs[column])
            row += f" {_pair((wall, cpu))} | {_ratio((wall, cpu), orjson_floor)} |"
            row += f" {_ratio((wall, cpu), json_floor)} | {peak:.0f} MB |"
        print(row, flush=True)


def _pair(run: tuple[float, ...]) -> str:
    return f"{run[0]:.2f} s ({run[1]:.2f})"


def _ratio(run: tuple[float, ...], floor_run: tuple[float, ...]) -> str:
    return f"{run[0] / floor_run[0]:.2f}x ({run[1] / floor_run[1]:.2f}x)"


if __name__ == "__main__":
    main()
