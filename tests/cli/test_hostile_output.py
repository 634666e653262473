"""Text from a hostile registry, transcript, case file or file name never acts on the
terminal or the reader: every command's human output (and the GitHub and JUnit outputs)
shows control characters as visible escapes and Rich markup as written."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import Cli

CLEAR = "\x1b[2J"
TITLE = "\x1b]0;pwned\x07"
CLIPBOARD = "\x1b]52;c;ZWNobyBoaQ==\x07"
CSI = "\x9b31m"
BIDI = "\u202e"
MARKUP = "[bold red]x[/bold red][link=https://evil.example]here[/link]"
HOSTILE = f"{CLEAR}{TITLE}{CLIPBOARD}{CSI}{BIDI}{MARKUP}"
#: characters that must never reach the output raw
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


def assert_safe(text: str) -> None:
    for ch in RAW:
        assert ch not in text, f"raw {ch!r} in output"


@pytest.fixture
def hostile(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / f"dir{CLEAR}"
    folder.mkdir()
    name = f"evil{TITLE}"
    registry = folder / f"reg{CLIPBOARD}.json"
    tools = [
        {
            "name": name,
            "description": f"Reads files {HOSTILE}. Use it to read files.",
            "category": f"fs{CLEAR}",
            "tags": [f"t{CSI}"],
            "requires": ["read_text"],
            "parameters": {
                "type": "object",
                "properties": {f"p{BIDI}": {"type": "string", "description": HOSTILE}},
            },
        },
        {
            "name": "read_text",
            "description": f"Read a text file {MARKUP}",
            "requires": [f"missing{CLEAR}"],
            "conflicts": [name],
            "deprecated": True,
            "replaced_by": name,
        },
    ]
    registry.write_text(json.dumps({"tools": tools}), encoding="utf-8")
    transcript = folder / f"t{TITLE}.jsonl"
    lines = [
        {
            "type": "assistant",
            "uuid": "a1",
            "sessionId": "s",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": f"id{CLEAR}", "name": name, "input": {}},
                    {"type": "tool_use", "id": "id2", "name": f"x{MARKUP}", "input": {}},
                ],
            },
        },
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": "s",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"orphan{CSI}", "content": "x"}],
            },
        },
    ]
    transcript.write_text(
        "\n".join(json.dumps(line) for line in lines) + f"\nnot json {CLEAR}\n", encoding="utf-8"
    )
    cases = folder / "cases.jsonl"
    cases.write_text(
        json.dumps({"id": f"c{CLEAR}", "query": f"read files {TITLE}", "expected": [name]}) + "\n",
        encoding="utf-8",
    )
    golden = folder / "golden.yaml"
    golden.write_text(
        'cases:\n  - name: "case\\e[2J"\n    prompt: "read files\\e]0;x\\a"\n'
        '    expect: ["nope\\e[2J"]\n',
        encoding="utf-8",
    )
    return {
        "registry": registry,
        "transcript": transcript,
        "cases": cases,
        "golden": golden,
        "name": Path(name),
    }


def _commands(h: dict[str, Path]) -> list[list[str]]:
    reg, name = str(h["registry"]), str(h["name"])
    return [
        ["rank", "read files", "-r", reg, "--explain", "--include-deprecated"],
        ["rank", f"read files {HOSTILE}", "-r", reg],
        ["rank", f"select:{name},read_text,nope{TITLE}", "-r", reg, "--with-deps"],
        ["deps", "--all", "-r", reg],
        ["deps", name, "-r", reg, "--graph", "mermaid"],
        ["prompt", "-r", reg],
        ["lint", reg],
        ["lint", reg, "-f", "github"],
        ["replay", str(h["transcript"]), "-r", reg],
        ["stats", str(h["transcript"]), "-r", reg],
        ["eval", "--cases", str(h["cases"]), "-r", reg],
        ["test", str(h["golden"]), "-r", reg],
    ]


def test_every_human_output_shows_controls_escaped(cli: Cli, hostile) -> None:
    for args in _commands(hostile):
        run = cli(*args)
        assert run.exit_code in (0, 1), args  # every command ran (2 would be a usage error)
        assert_safe(run.stdout + run.stderr)
        assert "Traceback" not in run.stdout + run.stderr
    # and the errors that name an input
    gone = str(hostile["registry"].with_name(f"gone{TITLE}.yaml"))
    for args in (["rank", "x", "-r", gone], ["lint", gone], ["replay", gone]):
        run = cli(*args)
        assert run.exit_code == 2 and "gone\\x1b]0;pwned\\x07" in run.stderr
        assert_safe(run.stdout + run.stderr)
    run = cli("rank", "x", "--category", f"no{CLEAR}", "-r", str(hostile["registry"]))
    assert run.exit_code == 2 and "no\\x1b[2J" in run.stderr and "fs\\x1b[2J" in run.stderr
    assert_safe(run.stdout + run.stderr)


def test_names_are_shown_with_visible_escapes(cli: Cli, hostile) -> None:
    run = cli("rank", "select:" + str(hostile["name"]), "-r", str(hostile["registry"]))
    assert "evil\\x1b]0;pwned\\x07" in run.stdout
    run = cli("replay", str(hostile["transcript"]), "-r", str(hostile["registry"]))
    assert "[bold red]x[/bold red]" in run.stdout  # markup shown as written, not applied
    assert "orphan\\x9b31m" in run.stdout
    assert "dir\\x1b[2J" in run.stdout  # the file name too


def test_missing_file_error_is_one_escaped_line(cli: Cli, hostile) -> None:
    gone = str(hostile["registry"].with_name(f"gone{TITLE}.yaml"))
    run = cli("rank", "x", "-r", gone)
    assert run.exit_code == 2
    assert run.stderr.count("\n") == 1 and "gone\\x1b]0;pwned\\x07.yaml" in run.stderr


def test_junit_outputs_stay_well_formed(cli: Cli, hostile, tmp_path: Path) -> None:
    lint_xml = tmp_path / "lint.xml"
    cli("lint", str(hostile["registry"]), "-f", "junit", "-o", str(lint_xml))
    test_xml = tmp_path / "test.xml"
    cli(
        "test",
        str(hostile["golden"]),
        "-r",
        str(hostile["registry"]),
        "-f",
        "junit",
        "-o",
        str(test_xml),
    )
    for path in (lint_xml, test_xml):
        text = path.read_text(encoding="utf-8")
        assert_safe(text)
        root = ET.fromstring(text)
        assert root.tag == "testsuites"
    suites = ET.parse(lint_xml).getroot().findall("testsuite")
    assert any("\\x1b]52;c;" in (s.get("name") or "") for s in suites)


def test_github_annotations_carry_no_raw_controls(cli: Cli, hostile) -> None:
    run = cli("lint", str(hostile["registry"]), "-f", "github")
    errors = [line for line in run.stdout.splitlines() if line.startswith("::error ")]
    assert errors and all("reg\\x1b]52;c;" in line for line in errors)
    assert_safe(run.stdout)
