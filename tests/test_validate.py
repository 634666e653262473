"""toolsel/validate.py: inputs are checked against tool schemas without fetching anything,
without running a pattern in a backtracking engine, and without passing what it cannot check."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from toolsel.validate import InputValidator, nesting


def nested_schema(levels: int) -> dict:
    schema: dict = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


def nested_value(levels: int) -> object:
    value: object = "v"
    for _ in range(levels):
        value = {"x": value}
    return value


@pytest.mark.parametrize(
    ("schema", "value", "rule", "words"),
    [
        (
            {"type": "object", "properties": {"n": {"type": "integer"}}},
            {"n": "1"},
            "invalid-input",
            "/n",
        ),
        (
            {"properties": {"p": {"type": "string", "pattern": "^(a+)+$"}}},
            {"p": "a" * 60 + "b"},
            "invalid-input",
            "does not match",
        ),
        (
            {"properties": {"p": {"$ref": "http://127.0.0.1:9/x.json"}}},
            {"p": 1},
            "external-ref",
            "never fetches",
        ),
        (
            {"properties": {"p": {"$ref": "file:///etc/passwd"}}},
            {"p": 1},
            "external-ref",
            "file:///etc/passwd",
        ),
        (
            {"properties": {"p": {"$ref": "#/$defs/missing"}}},
            {"p": 1},
            "not-checked",
            "points at nothing",
        ),
        ({"properties": {"c": {"$ref": "#"}}}, nested_value(150), "not-checked", "input too deep"),
        (nested_schema(120), nested_value(2), "not-checked", "schema too deep"),
        (
            {"properties": {"p": {"type": "string", "pattern": "(?=x)x"}}},
            {"p": "x"},
            "not-checked",
            "RE2",
        ),
        (
            {"type": "object", "properties": {"n": {"type": "intger"}}},
            {"n": 1},
            "not-checked",
            "not valid JSON Schema",
        ),
        ("not a schema", {}, "not-checked", "not a schema"),
        (
            {
                "type": "object",
                "additionalProperties": False,
                "patternProperties": {"^x_": {"type": "integer"}},
            },
            {"x_a": 1, "y": 2},
            "invalid-input",
            "'y' unexpected",
        ),
    ],
)
def test_what_cannot_pass(schema: object, value: object, rule: str, words: str) -> None:
    problem = InputValidator(schema).check(value)
    assert problem is not None and problem.rule == rule and words in problem.message, problem


def test_valid_inputs_pass_and_local_references_resolve() -> None:
    schema = {
        "type": "object",
        "properties": {
            "item": {"$ref": "#/$defs/item"},
            "tags": {"patternProperties": {"^t": {"type": "string"}}},
        },
        "$defs": {"item": {"type": "string", "pattern": "^[a-z]+$"}},
    }
    assert InputValidator(schema).check({"item": "abc", "tags": {"t1": "x"}}) is None
    assert InputValidator(schema).check({"item": "ABC"}).rule == "invalid-input"  # type: ignore[union-attr]


def test_nesting_is_counted_without_recursion() -> None:
    assert nesting(nested_value(50_000)) == 50_000 and nesting("x") == 0 and nesting([[], {}]) == 2


def test_replay_opens_no_socket_and_reads_no_file_outside_its_inputs(tmp_path: Path) -> None:
    """An audit hook records every socket and every file opened while `replay -r` checks
    calls against a schema that refers to the network and to a local file."""
    secret = tmp_path / "secret.json"
    secret.write_text('{"type": "string", "description": "SECRET-CONTENTS"}')
    registry = tmp_path / "r.yaml"
    registry.write_text(
        textwrap.dedent(f"""\
        tools:
          - name: fetcher
            description: d
            parameters:
              type: object
              properties:
                a: {{$ref: "http://127.0.0.1:9/schema.json"}}
                b: {{$ref: "file://{secret}"}}
                c: {{$ref: "{secret}"}}
        """)
    )
    transcript = tmp_path / "t.jsonl"
    call = {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "fetcher", "arguments": json.dumps({"a": 1, "b": 2, "c": 3})}}]}  # fmt: skip
    transcript.write_text(json.dumps(call) + "\n")
    script = textwrap.dedent(f"""\
        import sys
        events = []
        def hook(event, args):
            if event.startswith("socket.") or event == "urllib.Request":
                events.append(event)
            if event == "open" and isinstance(args[0], str) and "secret" in args[0]:
                events.append("open " + args[0])
        sys.addaudithook(hook)
        from toolsel.cli import app
        try:
            app(["replay", "-r", {str(registry)!r}, {str(transcript)!r}, "-f", "json", "--no-cache"])
        except SystemExit:
            pass
        print("EVENTS", events, file=sys.stderr)
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert "EVENTS []" in run.stderr, run.stderr
    report = json.loads(run.stdout)["files"][0]
    assert [v["rule"] for v in report["violations"]] == ["external-ref"]
    assert "SECRET-CONTENTS" not in run.stdout
