"""Where replay's time goes on one large Claude Code file, against the floors of issue 23.

    python benchmarks/decode_floor.py                      # the 200 MB file replay_bench.py made
    python benchmarks/decode_floor.py FILE --runs 5

Each step is a whole `python` process, timed in CPU seconds (user + system; best of
--runs), so that start-up counts as it does for `toolsel replay`:

  orjson loop     `for line in f: orjson.loads(line)`: the floor issue 23 measures against
  read + split    toolsel's block reader and line split, nothing parsed
  + decode        and each line decoded into replay's msgspec structs (fields it reads only)
  + bare pairing  and calls paired with results in a dict by id: no objects, no tallies, the
                  least any pairing costs (what a compiled matcher would approach)
  + fused path    and what pairing has to build: a Call, an OpenCall and a Result per
                  pair, per-tool tallies, latency from the two timestamps, in one loop with
                  no dispatch (an upper bound on what fusing decoder and matcher could save)
  + lean pairing  the same counts with no object per pair (a tuple per open call, tallies
                  in dicts): what a second, leaner matcher for the common case could reach
  + start-up      that lean loop after importing what `toolsel replay` imports before it
                  reads (the CLI, the driver, the renderer)
  toolsel replay  the whole `toolsel replay --format json --fail-on none FILE`

The gap between `+ decode` and `toolsel replay` is the matcher and the events; the gap
between `+ bare pairing` and the orjson loop is what the target leaves for them.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT = HERE / "data" / "transcript-claude-code-200mb-v2.jsonl"

PRELUDE = """
import gc, sys
from toolsel.replay.lines import Reading, jsonl_stream, line_blocks
gc.disable()
def lines(path):
    for first, block, rest in line_blocks(jsonl_stream(path), Reading()):
        pieces = block.split(b"\\n")
        if rest:
            pieces[-1] += rest.rstrip(b"\\n")
        elif block.endswith(b"\\n"):
            pieces.pop()
        yield from pieces
"""
DECODE = """
import msgspec
from toolsel.replay.formats.fast_shapes import Line
decode = msgspec.json.Decoder(Line).decode
ABSENT = msgspec.UNSET
"""
#: Each line's message with a list of blocks, as the pairing steps read it (the same code
#: in each, written out where it runs, so that no step pays for a call the others do not).
MESSAGE_LOOP = """for number, piece in enumerate(lines(sys.argv[1]), 1):
    line = decode(piece)
    message = line.message
    if message is ABSENT or message is None or type(message.content) is not list:
        continue
    stamp = line.timestamp
"""
STEPS = {
    "orjson loop": """
import sys, orjson
with open(sys.argv[1], "rb") as f:
    for line in f:
        orjson.loads(line)
""",
    "read + split": PRELUDE
    + """
for piece in lines(sys.argv[1]):
    pass
""",
    "+ decode": PRELUDE
    + DECODE
    + """
for piece in lines(sys.argv[1]):
    decode(piece)
""",
    "+ bare pairing": PRELUDE
    + DECODE
    + """
opened, paired = {}, 0
for piece in lines(sys.argv[1]):
    line = decode(piece)
    message = line.message
    if message is ABSENT or message is None or type(message.content) is not list:
        continue
    for block in message.content:
        if block.type == "tool_use":
            opened[block.id] = block.name
        elif block.type == "tool_result" and opened.pop(block.tool_use_id, None) is not None:
            paired += 1
""",
    "+ fused path": PRELUDE
    + DECODE
    + """
from datetime import datetime
from toolsel.replay.events import UNSET, Call, Result
from toolsel.replay.matcher import OpenCall, ToolTally
parse = datetime.fromisoformat
opened, answered, tools, calls = {}, {}, {}, 0
"""
    + MESSAGE_LOOP
    + """    for block in message.content:
        if block.type == "tool_use":
            call = Call(block.id, block.name, bytes(block.input), message.id, UNSET, stamp, False, True)
            opened[block.id] = OpenCall(call, number, None, None, False, calls, True)
            calls += 1
            tally = tools.get(call.tool)
            if tally is None:
                tally = tools[call.tool] = ToolTally()
            tally.calls += 1
            answered.pop(block.id, None)
        elif block.type == "tool_result":
            result = Result(block.tool_use_id, block.is_error is True, UNSET, stamp, None)
            open_call = opened.pop(result.id, None)
            if open_call is not None:
                answered[result.id] = (open_call.line << 32) | number
                tally = tools[open_call.call.tool]
                tally.answered += 1
                tally.errors += result.is_error
                seconds = (parse(stamp) - parse(open_call.call.timestamp)).total_seconds()
                tally.latencies.append(seconds)
""",
}
LEAN = (
    """
from datetime import datetime
parse = datetime.fromisoformat
opened, answered, calls, answers, errors, latencies = {}, {}, {}, {}, {}, {}
"""
    + MESSAGE_LOOP
    + """    for block in message.content:
        kind = block.type
        if kind == "tool_use":
            name = block.name
            opened[block.id] = (name, number, stamp)
            calls[name] = calls.get(name, 0) + 1
        elif kind == "tool_result":
            found = opened.pop(block.tool_use_id, None)
            if found is not None:
                name, start = found[0], found[2]
                answered[block.tool_use_id] = number
                answers[name] = answers.get(name, 0) + 1
                if block.is_error is True:
                    errors[name] = errors.get(name, 0) + 1
                if start is not None and stamp is not None:
                    seconds = (parse(stamp) - parse(start)).total_seconds()
                    latencies.setdefault(name, []).append(seconds)
"""
)
STEPS["+ lean pairing"] = PRELUDE + DECODE + LEAN
STEPS["+ start-up"] = (
    "import toolsel.cli, toolsel.replay.driver, toolsel.render.replay\n" + PRELUDE + DECODE + LEAN
)
MEASURE = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(usage.ru_utime + usage.ru_stime)
"""


def cpu(command: list[str], env: dict[str, str]) -> float:
    with tempfile.TemporaryDirectory() as empty:  # no project registry to pick up
        out = subprocess.run(
            [sys.executable, "-c", MEASURE, *command],
            env=env, capture_output=True, text=True, cwd=empty,
        )  # fmt: skip
    if out.returncode:
        sys.exit(out.stderr)
    return float(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    args.file = args.file.resolve()  # the steps run from an empty directory
    if not args.file.exists():
        sys.exit(f"{args.file}: not found; run benchmarks/replay_bench.py --megabytes 200 first")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    toolsel = str(Path(sys.executable).with_name("toolsel"))
    commands = {name: [sys.executable, "-c", code, str(args.file)] for name, code in STEPS.items()}
    commands["toolsel replay"] = [toolsel, "replay", "--format", "json", str(args.file)]
    best: dict[str, float] = {}
    for _ in range(args.runs):  # steps take turns, so drifting load hits all alike
        for name, command in commands.items():
            best[name] = min(best.get(name, float("inf")), cpu(command, env))
    floor = best["orjson loop"]
    print(f"{args.file.name}, {args.file.stat().st_size / 1e6:.0f} MB; CPU s, best of {args.runs}")
    print("| step | CPU s | vs orjson loop |")
    print("|---|---:|---:|")
    for name, seconds in best.items():
        print(f"| {name} | {seconds:.2f} | {seconds / floor:.2f}x |")


if __name__ == "__main__":
    main()
