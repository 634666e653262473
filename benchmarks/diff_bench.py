"""Speed of `toolsel diff` (issue 21 targets: two 1,000-tool registries in under 2 s;
`--transcripts` at replay speed).

    python benchmarks/diff_bench.py            # print the figures
    python benchmarks/diff_bench.py --tools 1000 --calls 20000

Writes two generated registries (NEW edits a tenth of the tools: descriptions, bounds,
enums, required parameters, a few removals and additions) and a Claude Code transcript,
then times, in one process each run: loading + diffing; `replay -r NEW` of the transcript;
and the transcript evidence of `diff` (one replay pass checking OLD and NEW).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import yaml


def registry(n: int, *, edited: bool) -> dict[str, object]:
    tools = []
    for i in range(n):
        if edited and i % 97 == 0:
            continue  # removed
        limit = 10 if edited and i % 10 == 0 else 50
        properties: dict[str, object] = {
            "query": {"type": "string", "description": f"what to look for in store {i}"},
            "limit": {"type": "integer", "maximum": limit},
            "mode": {
                "type": "string",
                "enum": ["fast", "full"] if not (edited and i % 10 == 1) else ["fast"],
            },
        }
        required = ["query", "mode"] if edited and i % 10 == 2 else ["query"]
        description = f"Search store {i} for records about a topic and return matches."
        if edited and i % 10 == 3:
            description += " Prefer this tool."
        tools.append(
            {
                "name": f"tool_{i}",
                "description": description,
                "parameters": {"type": "object", "properties": properties, "required": required},
            }
        )
    if edited:
        tools += [{"name": f"added_{i}", "description": f"A new tool {i}."} for i in range(10)]
    return {"tools": tools}


def transcript(calls: int, tools: int) -> str:
    lines = []
    for i in range(calls):
        name = f"tool_{i % tools}"
        use = {
            "type": "tool_use",
            "id": f"t{i}",
            "name": name,
            "input": {"query": "x", "limit": 20, "mode": "full"},
        }
        lines.append(
            {
                "type": "assistant",
                "sessionId": "s",
                "message": {"role": "assistant", "id": f"m{i}", "content": [use]},
            }
        )
        lines.append(
            {
                "type": "user",
                "sessionId": "s",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "ok"}],
                },
            }
        )
    return "".join(json.dumps(line) + "\n" for line in lines)


def best(function, repeat: int = 3) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args()
    from toolsel.diff.engine import diff_registries
    from toolsel.diff.evidence import transcript_evidence
    from toolsel.registry import load_registry
    from toolsel.replay.driver import replay_paths

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        old_path, new_path, log = root / "old.yaml", root / "new.yaml", root / "session.jsonl"
        old_path.write_text(yaml.safe_dump(registry(args.tools, edited=False)))
        new_path.write_text(yaml.safe_dump(registry(args.tools, edited=True)))
        log.write_text(transcript(args.calls, args.tools))
        old = load_registry(old_path, use_cache=False)
        new = load_registry(new_path, use_cache=False)
        changes = diff_registries(old, new)
        load_and_diff = best(
            lambda: diff_registries(
                load_registry(old_path, use_cache=False), load_registry(new_path, use_cache=False)
            )
        )
        diff_only = best(lambda: diff_registries(old, new))
        replay = best(lambda: replay_paths([str(log)], registry=new))
        evidence = best(lambda: transcript_evidence([str(log)], old, new))
        found = transcript_evidence([str(log)], old, new)
        print(f"registries: {args.tools} tools each; {len(changes)} changes")
        print(f"load both + diff:          {load_and_diff:.3f} s (target < 2 s)")
        print(f"diff only (loaded):        {diff_only:.3f} s")
        print(f"replay -r NEW, {args.calls} calls: {replay:.3f} s")
        print(
            f"diff --transcripts (evidence only): {evidence:.3f} s ({evidence / replay:.2f}x replay; "
            f"{sum(len(c.evidence) for c in found.changes)} calls now invalid)"
        )


if __name__ == "__main__":
    main()
