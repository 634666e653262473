"""Every hostile input, through the CLI: `lint` reports a finding and goes on (exit 1), other
commands print one line on stderr (exit 2); nobody sees a traceback."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli
from tests.registry.test_source import BILLION_LAUGHS

Write = Callable[..., Path]

GOOD = "tools:\n  - name: fine_tool\n    description: d\n"
DEEP_JSON = (
    '{"tools": [{"name": "a", "description": "d", "parameters": '
    + '{"type": "object", "properties": {"x": ' * 10_000
    + "{}"
    + "}}" * 10_000
    + "}]}"
)

HUGE = "9" * 5000
NUMBER_IN_SCHEMA = (
    "tools:\n  - name: a\n    description: d\n"
    "    parameters: {type: object, properties: {n: {type: integer, maximum: %s}}}\n"
)
NUMBER_IN_JSON = (
    '{"tools": [{"name": "a", "description": "d", "parameters": '
    '{"type": "object", "properties": {"n": {"type": "integer", "maximum": %s}}}}]}'
)

CASES: dict[str, tuple[str, str | bytes, str]] = {
    "yaml syntax error": ("bad.yaml", "tools:\n  - name: a\n    description: [unclosed\n", "TS001"),
    "duplicate keys": (
        "dup.yaml",
        "tools:\n  - name: a\n    description: x\n    description: y\n",
        "TS002",
    ),
    "tools is a mapping": ("map.yaml", "tools:\n  a: {description: d}\n", "TS003"),
    "name is a number": ("num.yaml", "tools:\n  - name: 42\n    description: d\n", "TS003"),
    "empty file": ("empty.yaml", "", "TS003"),
    "binary file": ("bin.yaml", b"\x00\x01\x02\x03PNG", "TS001"),
    "non-utf8 file": ("latin.yaml", "tools:\n  - name: caf\xe9\n".encode("latin-1"), "TS001"),
    "alias bomb": ("bomb.yaml", BILLION_LAUGHS, "TS001"),
    "nested 10,000 deep": ("deep.json", DEEP_JSON, "TS001"),
    "not a registry": ("list.yaml", "- 1\n- 2\n", "TS003"),
    "integer of 5,000 digits": ("huge.yaml", NUMBER_IN_SCHEMA % HUGE, "TS001"),
    "JSON integer of 5,000 digits": ("huge.json", NUMBER_IN_JSON % HUGE, "TS001"),
    "hex integer of 6,000 digits": ("hex.yaml", NUMBER_IN_SCHEMA % ("0x" + "f" * 5000), "TS001"),
    "infinite bound": ("inf.yaml", NUMBER_IN_SCHEMA % "1.0e+999", "TS001"),
    "JSON infinite bound": ("inf.json", NUMBER_IN_JSON % "1e999", "TS001"),
    "NaN bound": ("nan.json", NUMBER_IN_JSON % "NaN", "TS001"),
    "!!int that is not one": ("tag.yaml", NUMBER_IN_SCHEMA % "!!int ten", "TS001"),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_lint_reports_it_and_still_lints_other_files(cli: Cli, write: Write, case: str) -> None:
    name, content, rule = CASES[case]
    bad, good = write(name, content), write("good.yaml", GOOD)
    run = cli("lint", "-f", "json", "--no-cache", str(bad), str(good))
    assert run.exit_code == 1 and "Traceback" not in run.stderr
    findings = json.loads(run.stdout)["findings"]
    assert any(f["rule"] == rule and f["file"] == str(bad) and f["line"] >= 1 for f in findings)
    assert any(f["file"] == str(good) for f in findings)  # the good file was linted too


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_other_commands_give_one_line_and_exit_two(cli: Cli, write: Write, case: str) -> None:
    name, content, rule = CASES[case]
    run = cli("rank", "-r", str(write(name, content)), "anything")
    assert run.exit_code == 2 and run.stdout == ""
    assert run.stderr.startswith("toolsel: error: ") and run.stderr.count("\n") == 1
    assert f"{name}:" in run.stderr and rule in run.stderr


def test_directory_without_registry_files(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "nothing").mkdir()
    for args in (
        ("lint", str(tmp_path / "nothing")),
        ("rank", "-r", str(tmp_path / "nothing"), "x"),
    ):
        run = cli(*args)
        assert run.exit_code == 2 and "no registry files" in run.stderr


def test_huge_file_over_the_limit(cli: Cli, write: Write, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSEL_MAX_FILE_BYTES", "100")
    run = cli("lint", "-f", "json", str(write("big.yaml", GOOD * 10)))
    assert run.exit_code == 1
    (finding,) = json.loads(run.stdout)["findings"]
    assert finding["rule"] == "TS001" and "limit" in finding["message"]


def test_unreadable_output_file_is_exit_two(cli: Cli, write: Write, tmp_path: Path) -> None:
    run = cli(
        "lint",
        "-f",
        "json",
        "-o",
        str(tmp_path / "no" / "such" / "dir" / "out.json"),
        str(write("g.yaml", GOOD)),
    )
    assert run.exit_code == 2 and "cannot write" in run.stderr


def test_a_prompt_that_is_not_utf8_is_one_line(cli: Cli) -> None:
    for fmt in ("json", "jsonl", "human"):
        run = cli("rank", "read \udcff file", "-f", fmt)  # argv byte 0xff, as Python holds it
        assert run.exit_code == 2 and run.stdout == "" and run.stderr.count("\n") == 1
        assert "prompt: not valid UTF-8 (byte 0xff)" in run.stderr
    run = cli("deps", "read_fil\udce9")
    assert run.exit_code == 2 and "tools: not valid UTF-8 (byte 0xe9)" in run.stderr


def test_file_names_that_are_not_utf8_are_escaped_the_same_everywhere(
    cli: Cli, tmp_path: Path
) -> None:
    bad = tmp_path / "caf\udce9.yaml"  # the file name's byte 0xe9 is not UTF-8
    bad.write_text("tools:\n  - name: Bad Name\n    description: d\n")
    shown = str(tmp_path / "caf\\xe9.yaml")
    lint = cli("lint", str(bad), "-f", "json")
    assert lint.exit_code == 1 and {f["file"] for f in json.loads(lint.stdout)["findings"]} == {
        shown
    }
    sarif = cli("lint", str(bad), "-f", "sarif")
    assert sarif.exit_code == 1 and "caf%E9.yaml" in sarif.stdout  # the real byte
    human = cli("lint", str(bad))
    assert f"{shown}:2:" in human.stdout
    rank = cli("rank", "x", "-r", str(bad), "-f", "json")
    assert rank.exit_code == 0
    transcript = tmp_path / "t\udce9.jsonl"
    transcript.write_text('{"role": "tool", "tool_call_id": "x", "content": "ok"}\n')
    replay = cli("replay", str(transcript), "-f", "json")
    assert json.loads(replay.stdout)["files"][0]["path"] == str(tmp_path / "t\\xe9.jsonl")
    events = cli("replay", str(transcript), "-f", "jsonl")
    assert events.exit_code == 1 and "Traceback" not in events.stderr


def _deep(open_: str, close: str, levels: int, inner: str) -> str:
    return open_ * levels + inner + close * levels


def test_lint_on_a_schema_nested_490_levels_is_a_finding(cli: Cli, write: Write) -> None:
    schema = _deep('{"type": "object", "properties": {"x": ', "}}", 490, '{"type": "string"}')
    path = write(
        "deep.json", '{"tools": [{"name": "a", "description": "d", "parameters": ' + schema + "}]}"
    )
    run = cli("lint", str(path), "-f", "json")
    assert run.exit_code == 1 and "Traceback" not in run.stderr
    (finding,) = [f for f in json.loads(run.stdout)["findings"] if f["rule"] == "TS001"]
    assert "more than 128 levels deep" in finding["message"] and finding["line"] == 1
    assert "more than 128 levels" in cli("rank", "x", "-r", str(path)).stderr


def test_replay_reports_what_it_could_not_validate(cli: Cli, write: Write) -> None:
    def tool(name: str, properties: dict, **extra: object) -> dict:
        schema = {"type": "object", "properties": properties, **extra}
        return {"name": name, "description": "d", "parameters": schema}

    node = {
        "type": "object",
        "properties": {"next": {"$ref": "#/$defs/node"}},
        "additionalProperties": False,
    }
    tools = [
        tool("rec", {"n": {"$ref": "#/$defs/node"}}, **{"$defs": {"node": node}}),
        tool("dangle", {"n": {"$ref": "#/$defs/missing"}}),
        tool("num", {"s": {"type": "integer"}}),
    ]
    registry = write("r.json", json.dumps({"tools": tools}))
    calls = [
        ("c1", "rec", '{"n": ' + _deep('{"next": ', "}", 3000, "{}") + "}"),
        ("c2", "rec", '{"n": ' + _deep('{"next": ', "}", 300, "{}") + "}"),
        ("c3", "dangle", '{"n": 1}'),
        ("c4", "num", json.dumps({"s": "x" * 100_000})),
    ]
    lines = []
    for call_id, name, arguments in calls:
        call = {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        lines.append(json.dumps({"role": "assistant", "content": None, "tool_calls": [call]}))
        lines.append(json.dumps({"role": "tool", "tool_call_id": call_id, "content": "ok"}))
    transcript = write("t.jsonl", "\n".join(lines) + "\n")
    run = cli("replay", str(transcript), "-r", str(registry), "-f", "json")
    assert run.exit_code == 1 and "Traceback" not in run.stderr
    violations = {v["id"]: (v["rule"], v["message"]) for v in json.loads(run.stdout)["files"][0]["violations"]}  # fmt: skip
    assert violations["c1"] == ("invalid-input", "the call's arguments are nested too deep to read (over 1,024 levels); not checked")  # fmt: skip
    assert violations["c2"] == ("not-checked", "input too deep to validate (302 levels, max 100)")
    assert violations["c3"][0] == "not-checked" and "'/$defs/missing' points at nothing" in violations["c3"][1]  # fmt: skip
    assert violations["c4"][0] == "invalid-input" and len(violations["c4"][1]) < 260  # bounded


@pytest.mark.parametrize(
    "command",
    [
        ("rank", "x", "--emit", "openai", "-r"),
        ("rank", "x", "-f", "json", "-r"),
        ("replay", str(ROOT / "transcripts" / "claude-code-session.jsonl"), "-r"),
        ("deps", "--all", "-r"),
        ("prompt", "-r"),
    ],
    ids=["rank --emit", "rank -f json", "replay -r", "deps --all", "prompt"],
)
def test_a_5000_digit_integer_is_one_line_with_its_position_everywhere(
    cli: Cli, write: Write, command: tuple[str, ...]
) -> None:
    path = write("huge.yaml", NUMBER_IN_SCHEMA % HUGE)
    run = cli(*command, str(path))
    assert run.exit_code == 2 and run.stdout == "" and "Traceback" not in run.stderr
    assert run.stderr.startswith(f"toolsel: error: {path}:4:73: TS001 cannot parse: an integer")
    assert "5,000 digits" in run.stderr and run.stderr.count("\n") == 1
