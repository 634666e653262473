"""Hostile inputs, each as a whole process (`toolsel`, or Python for a library case): peak
memory and time must stay bounded.

    python benchmarks/hostile.py            # every case, a Markdown table
    python benchmarks/hostile.py --only deps-dag

Targets (issue 10): every case under 500 MB peak RSS and 5 s, exit code 0, 1 or 2 (never a
crash), and no traceback on stderr. Inputs are generated in a temporary folder; nothing is
fetched. Reports the figures; exits 1 when a case misses a target.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LIMIT_MB = 500
LIMIT_S = 5.0
PEAK = """
import resource, subprocess, sys, time
started = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=60)
elapsed = time.perf_counter() - started
print(done.returncode, elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, int(b"Traceback" in done.stderr))
"""


def _tool(name: str, description: str = "does a thing", **extra: object) -> dict[str, object]:
    return {"name": name, "description": description, **extra}


def _registry(folder: Path, name: str, tools: list[dict[str, object]]) -> str:
    path = folder / name
    path.write_text(json.dumps({"tools": tools}))
    return str(path)


def cases(folder: Path) -> dict[str, list[str]]:
    """name -> argv (after `toolsel`)."""
    made: dict[str, list[str]] = {}
    # a DAG with shared subtrees: each of 60 tools requires the next two (2^59 paths)
    dag = [_tool(f"t{i}", requires=[f"t{j}" for j in (i + 1, i + 2) if j < 60]) for i in range(60)]
    made["deps-dag"] = ["deps", "t0", "-r", _registry(folder, "dag.json", dag), "--no-cache"]
    ring = [_tool(f"c{i}", requires=[f"c{(i + 1) % 1000}"]) for i in range(1000)]
    made["deps-all-ring"] = [
        "deps",
        "--all",
        "-r",
        _registry(folder, "ring.json", ring),
        "--no-cache",
    ]
    # a 40k-value enum (TS310 once compared each value with every other)
    enum = _tool(
        "pick",
        parameters={
            "type": "object",
            "properties": {"v": {"type": "string", "enum": [f"v{i}" for i in range(40_000)]}},
        },
    )
    made["lint-enum-40k"] = [
        "lint",
        _registry(folder, "enum.json", [enum]),
        "--no-cache",
        "-f",
        "json",
    ]
    # alias amplification: one 100 KB string aliased 90 times, and 27k aliases
    big = "x" * 100_000
    text = (
        "a: &a "
        + json.dumps(big)
        + "\ntools:\n"
        + "".join(f"  - {{name: t{i}, description: *a}}\n" for i in range(90))
    )
    (folder / "alias90.yaml").write_text(text)
    made["lint-alias-90x100k"] = ["lint", str(folder / "alias90.yaml"), "--no-cache"]
    lines = ["base: &b [" + ", ".join(["x"] * 10) + "]"]
    lines += [
        f"l{i}: &l{i} [*{'b' if i == 0 else f'l{i - 1}'}, *{'b' if i == 0 else f'l{i - 1}'}]"
        for i in range(27)
    ]
    (folder / "alias27k.yaml").write_text("\n".join(lines) + "\ntools: []\n")
    made["lint-alias-27k"] = ["lint", str(folder / "alias27k.yaml"), "--no-cache"]
    # a schema nested 490 levels
    deep = '{"type": "object", "properties": {"x": ' * 490 + '{"type": "string"}' + "}}" * 490
    (folder / "deep.json").write_text(
        '{"tools": [{"name": "a", "description": "d", "parameters": ' + deep + "}]}"
    )
    made["lint-deep-490"] = ["lint", str(folder / "deep.json"), "--no-cache"]
    # stats on one transcript with 6,000 distinct tools (co-used pairs once quadratic)
    calls = [
        json.dumps(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"c{i}",
                        "type": "function",
                        "function": {"name": f"tool_{i}", "arguments": "{}"},
                    }
                ],
            }
        )
        for i in range(6000)
    ]
    (folder / "many.jsonl").write_text("\n".join(calls) + "\n")
    made["stats-6000-tools"] = ["stats", str(folder / "many.jsonl"), "--no-registry"]
    # endless input with no newline
    made["replay-dev-zero"] = ["replay", "/dev/zero", "--no-registry"]
    made["batch-dev-zero"] = ["rank", "--batch", "/dev/zero"]
    made["eval-dev-zero"] = ["eval", "--cases", "/dev/zero"]
    made["test-dev-zero"] = ["test", "/dev/zero"]
    made["rank-registry-dev-zero"] = ["rank", "x", "-r", "/dev/zero"]
    # ReDoS: ^(a+)+$ against 40 a's and a b, validated by replay -r
    redos = _tool(
        "match",
        parameters={
            "type": "object",
            "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}},
        },
    )
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "match", "arguments": json.dumps({"s": "a" * 40 + "b"})},
            }
        ],
    }
    (folder / "redos.jsonl").write_text(json.dumps(call) + "\n")
    made["replay-redos"] = [
        "replay",
        str(folder / "redos.jsonl"),
        "-r",
        _registry(folder, "redos.json", [redos]),
    ]
    # values nested 1,000 levels deep (the full parse reads 1,024): a tool's name, a
    # block's type and an input, each line twice (a repeated call's input is compared)
    deep = "[" * 1000 + "]" * 1000
    lines = [
        '{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": %s, "input": {}}]}',
        '{"role": "assistant", "content": [{"type": %s, "id": "t2", "name": "x", "input": {}}]}',
        '{"role": "assistant", "content": [{"type": "tool_use", "id": "t3", "name": "x", "input": {"a": %s}}]}',
        '{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": %s, "arguments": "{}"}}]}',
    ]  # fmt: skip
    (folder / "deep.jsonl").write_text("".join(2 * (line % deep + "\n") for line in lines))
    made["replay-deep-values"] = ["replay", str(folder / "deep.jsonl"), "--format", "json"]
    # a huge registry refused from its size (sparse: 2 GB, no blocks)
    with (folder / "huge.yaml").open("wb") as handle:
        handle.truncate(2 * 1024**3)
    made["lint-huge-2gb"] = ["lint", str(folder / "huge.yaml"), "--no-cache"]
    made.update(number_cases(folder))
    made.update(_validation_cases(folder))
    return made


def _fan_out(levels: int) -> dict[str, object]:
    """Issue 17: each of `levels` definitions applies the next twice (2^levels in place)."""
    defs: dict[str, object] = {
        f"l{i}": {"allOf": [{"$ref": f"#/$defs/l{i + 1}"}, {"$ref": f"#/$defs/l{i + 1}"}]}
        for i in range(levels)
    }
    defs[f"l{levels}"] = {"type": "string"}
    return {"type": "object", "properties": {"x": {"$ref": "#/$defs/l0"}}, "$defs": defs}


def _descending(levels: int) -> dict[str, object]:
    """Each level applies the next twice to the value's property `a`: 2^depth at depth."""
    defs: dict[str, object] = {
        f"l{i}": {"allOf": [{"properties": {"a": {"$ref": f"#/$defs/l{i + 1}"}}}] * 2}
        for i in range(levels)
    }
    defs[f"l{levels}"] = {"type": "string"}
    return {"type": "object", "properties": {"x": {"$ref": "#/$defs/l0"}}, "$defs": defs}


def _transcript(folder: Path, name: str, tool: str, arguments: object) -> str:
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": tool, "arguments": json.dumps(arguments)},
            }
        ],
    }
    (folder / name).write_text(json.dumps(call) + "\n")
    return str(folder / name)


def _validation_cases(folder: Path) -> dict[str, list[str]]:
    """Validation work (issue 17): `$ref` fan-out, work multiplied by the input, and what
    jsonschema did slowly on its own (uniqueItems, anchors, a nested `$schema`)."""
    made: dict[str, list[str]] = {}
    for levels in (40, 1000):
        registry = _registry(
            folder, f"fan{levels}.json", [_tool("boom", parameters=_fan_out(levels))]
        )
        calls = _transcript(folder, f"fan{levels}.jsonl", "boom", {"x": "v"})
        made[f"replay-ref-fan-out-{levels}"] = ["replay", calls, "-r", registry, "--no-cache"]
        if levels == 40:
            made["lint-ref-fan-out-40"] = ["lint", registry, "--no-cache", "-f", "json"]
            code = (
                "import json, sys; from toolsel.validate import InputValidator; "
                "schema = json.load(open(sys.argv[1]))['tools'][0]['parameters']; "
                "print(InputValidator(schema).check({'x': 'v'}))"
            )
            made["library-ref-fan-out-40"] = [sys.executable, "-c", code, registry]
    deep: object = "v"
    for _ in range(40):
        deep = {"a": deep}
    registry = _registry(folder, "down.json", [_tool("deep", parameters=_descending(40))])
    calls = _transcript(folder, "down.jsonl", "deep", {"x": deep})
    made["replay-ref-descending-40"] = ["replay", calls, "-r", registry, "--no-cache"]
    unique = _tool("tag", parameters={"type": "object", "properties": {"items": {"type": "array", "uniqueItems": True}}})  # fmt: skip
    registry = _registry(folder, "unique.json", [unique])
    items = [{"k": i, "tags": [i, str(i)]} for i in range(50_000)]
    calls = _transcript(folder, "unique.jsonl", "tag", {"items": items})
    made["replay-unique-items-50k"] = ["replay", calls, "-r", registry, "--no-cache"]
    defs = {f"d{i}": {"$anchor": f"a{i}", "type": "string"} for i in range(2000)}
    anchors = _tool("pick", parameters={"type": "object", "properties": {"x": {"type": "array", "items": {"$ref": "#a0"}}}, "$defs": defs})  # fmt: skip
    registry = _registry(folder, "anchors.json", [anchors])
    calls = _transcript(folder, "anchors.jsonl", "pick", {"x": ["v"] * 1000})
    made["replay-anchor-refs-2000"] = ["replay", calls, "-r", registry, "--no-cache"]
    nested = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string", "pattern": "^(a+)+$"}  # fmt: skip
    escape = _tool("match", parameters={"type": "object", "properties": {"s": {"$ref": "#/$defs/s"}}, "$defs": {"s": nested}})  # fmt: skip
    registry = _registry(folder, "escape.json", [escape])
    calls = _transcript(folder, "escape.jsonl", "match", {"s": "a" * 40 + "b"})
    made["replay-nested-schema-redos"] = ["replay", calls, "-r", registry, "--no-cache"]
    return made


def number_cases(folder: Path) -> dict[str, list[str]]:
    """Numbers and config files Python cannot read or JSON cannot hold (issue 17)."""
    made: dict[str, list[str]] = {}
    bounded = "tools:\n  - name: n\n    description: d\n    parameters: {maximum: %s}\n"
    (folder / "digits.yaml").write_text(bounded % ("9" * 5000))
    made["lint-int-5000-digits"] = ["lint", str(folder / "digits.yaml"), "--no-cache"]
    made["rank-int-5000-digits"] = ["rank", "x", "-r", str(folder / "digits.yaml")]
    (folder / "u64.yaml").write_text(bounded % "18446744073709551616")
    made["emit-int-beyond-64-bits"] = ["rank", "n", "-r", str(folder / "u64.yaml"), "--emit", "openai"]  # fmt: skip
    (folder / "pyproject.toml").write_text(
        "[tool.other]\nx = " + "[" * 10_000 + "]" * 10_000 + "\n"
    )
    made["lint-config-nested-10k"] = ["lint", "--config", str(folder / "pyproject.toml"), str(folder / "u64.yaml")]  # fmt: skip
    (folder / "nan.toml").write_text("[lint.options]\nmax-tools = nan\n")
    made["lint-config-nan"] = ["lint", "--config", str(folder / "nan.toml"), str(folder / "u64.yaml")]  # fmt: skip
    shared = folder / "shared-cache"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    ENVIRONMENTS["rank-world-writable-cache"] = {"TOOLSEL_CACHE_DIR": str(shared)}
    made["rank-world-writable-cache"] = ["rank", "n", "-r", str(folder / "u64.yaml")]
    return made


#: Cases that run with more environment variables.
ENVIRONMENTS: dict[str, dict[str, str]] = {}


def measure(argv: list[str], env: dict[str, str] | None = None) -> tuple[int, float, float, bool]:
    """Run one case: `toolsel ARGV`, or ARGV itself when it starts with this Python."""
    toolsel = str(Path(sys.executable).with_name("toolsel"))
    command = argv if argv[0] == sys.executable else [toolsel, *argv]
    out = subprocess.run(
        [sys.executable, "-c", PEAK, *command],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    ).stdout.split()
    code, seconds, peak_kb, traceback = int(out[0]), float(out[1]), int(out[2]), out[3] == "1"
    return code, seconds, peak_kb / 1024, traceback


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", help="run one case")
    args = parser.parse_args()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TOOLSEL_CACHE_DIR"] = str(Path(tmp) / "cache")
        all_cases = cases(Path(tmp))
        print("| case | exit | seconds | peak RSS (MB) | within targets |")
        print("|---|---:|---:|---:|---|")
        for name, argv in all_cases.items():
            if args.only and name != args.only:
                continue
            code, seconds, mb, traceback = measure(argv, ENVIRONMENTS.get(name))
            ok = code in (0, 1, 2) and seconds < LIMIT_S and mb < LIMIT_MB and not traceback
            failed |= not ok
            print(f"| {name} | {code} | {seconds:.2f} | {mb:.0f} | {'yes' if ok else 'NO'} |")
    return 1 if failed else 0


if __name__ == "__main__":
    started = time.perf_counter()
    status = main()
    print(f"\n{time.perf_counter() - started:.1f} s in all", file=sys.stderr)
    sys.exit(status)
