"""Every command, every member of its --format enum: the output parses as that format, and
every machine output validates against its published JSON Schema (`toolsel schema --output`)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from enum import Enum
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.conftest import ROOT, Cli
from toolsel.render.formats import (
    DepsFormat,
    DiffFormat,
    EvalFormat,
    GraphFormat,
    LintFormat,
    PromptFormat,
    RankFormat,
    ReplayFormat,
    StatsFormat,
    TestFormat,
)
from toolsel.schemas import Output, schema_name, schema_text

REG = str(ROOT / "registries")
TRANSCRIPT = str(ROOT / "transcripts" / "claude-code-session.jsonl")
CASES = str(ROOT / "tests" / "selection" / "registries.eval.jsonl")
GOLDEN = str(ROOT / "tests" / "selection" / "registries.yaml")
BROKEN = str(ROOT / "tests" / "examples" / "invalid")


#: every output some format below is checked against
CHECKED: set[Output] = set()


def validates(output: Output) -> Callable[[str], None]:
    """Checks a JSON document against the published schema of `output`."""
    CHECKED.add(output)

    def check(text: str) -> None:
        document = json.loads(text)
        assert document["schema"] == schema_name(output)
        Draft202012Validator(json.loads(schema_text(output.value))).validate(document)

    return check


def lines_validate(output: Output) -> Callable[[str], None]:
    """Checks each line; registers `output` now, when the table is built, so the check
    below does not depend on which tests ran before it in this process."""
    one = validates(output)

    def check(text: str) -> None:
        lines = text.splitlines()
        assert lines, "no JSON lines"
        for line in lines:
            one(line)

    return check


def annotations(text: str) -> None:
    assert any(line.startswith("::error file=") for line in text.splitlines())


def markdown(text: str) -> None:
    assert text.startswith("### toolsel diff") and "| breaking | risky | safe |" in text


def human(text: str) -> None:
    assert text.strip() and "\x1b[" not in text
    with pytest.raises(ValueError):
        json.loads(text)


def xml(text: str) -> None:
    assert ET.fromstring(text).tag == "testsuites"


def json_value(text: str) -> None:
    json.loads(text)


def html_page(text: str) -> None:
    """A whole page with its data block (drawn and checked in a browser by tests/render)."""
    assert text.startswith("<!doctype html>") and text.rstrip().endswith("</html>")
    assert 'id="toolsel-data"' in text and "Content-Security-Policy" in text


def github(text: str) -> None:
    lines = text.splitlines()
    assert lines[0].startswith("::group::") and any(line.startswith("::error ") for line in lines)


# command -> (its --format enum, the arguments before --format, a checker per member)
COMMANDS: dict[str, tuple[type[Enum], tuple[str, ...], dict[Any, Callable[[str], None]]]] = {
    "rank": (
        RankFormat,
        ("rank", "-r", REG, "deploy the billing service"),
        {
            RankFormat.HUMAN: human,
            RankFormat.JSON: validates(Output.RANK),
            RankFormat.JSONL: lines_validate(Output.RANK_LINE),
        },
    ),
    "select": (
        RankFormat,
        ("rank", "-r", REG, "select:read_file,patch_file"),
        {
            RankFormat.HUMAN: human,
            RankFormat.JSON: validates(Output.SELECT),
            RankFormat.JSONL: lines_validate(Output.SELECT),
            RankFormat.TOOL_RESULT: json_value,
        },
    ),
    "batch": (
        RankFormat,
        ("rank", "-r", REG, "--batch", str(ROOT / "tests" / "selection" / "batch.jsonl")),
        {
            RankFormat.HUMAN: lines_validate(Output.RANK_LINE),
            RankFormat.JSON: validates(Output.RANK_BATCH),
            RankFormat.JSONL: lines_validate(Output.RANK_LINE),
        },
    ),
    "deps": (
        DepsFormat,
        ("deps", "-r", REG, "create_pull_request"),
        {DepsFormat.HUMAN: human, DepsFormat.JSON: validates(Output.DEPS)},
    ),
    "lint": (
        LintFormat,
        ("lint", BROKEN),
        {
            LintFormat.AUTO: human,
            LintFormat.HUMAN: human,
            LintFormat.JSON: validates(Output.LINT),
            LintFormat.SARIF: json_value,
            LintFormat.GITHUB: github,
            LintFormat.JUNIT: xml,
            LintFormat.GITLAB: json_value,
        },
    ),
    "diff": (
        DiffFormat,
        ("diff", REG, str(ROOT / "tests" / "examples" / "valid" / "native.yaml")),
        {
            DiffFormat.HUMAN: human,
            DiffFormat.JSON: validates(Output.DIFF),
            DiffFormat.MARKDOWN: markdown,
            DiffFormat.SARIF: json_value,
            DiffFormat.GITHUB: annotations,
        },
    ),
    "eval": (
        EvalFormat,
        ("eval", "-r", REG, "--cases", CASES),
        {EvalFormat.HUMAN: human, EvalFormat.JSON: validates(Output.EVAL)},
    ),
    "test": (
        TestFormat,
        ("test", "-r", REG, GOLDEN),
        {TestFormat.HUMAN: human, TestFormat.JSON: validates(Output.TEST), TestFormat.JUNIT: xml},
    ),
    "prompt": (
        PromptFormat,
        ("prompt", "-r", REG),
        {PromptFormat.HUMAN: human, PromptFormat.JSON: validates(Output.PROMPT)},
    ),
    "replay": (
        ReplayFormat,
        ("replay", "-r", REG, TRANSCRIPT),
        {
            ReplayFormat.HUMAN: human,
            ReplayFormat.JSON: validates(Output.REPLAY),
            ReplayFormat.JSONL: lines_validate(Output.REPLAY_EVENT),
            ReplayFormat.HTML: html_page,
        },
    ),
    "stats": (
        StatsFormat,
        ("stats", "-r", REG, TRANSCRIPT),
        {
            StatsFormat.HUMAN: human,
            StatsFormat.JSON: validates(Output.STATS),
            StatsFormat.HTML: html_page,
        },
    ),
    "stats --ledger": (
        StatsFormat,
        ("stats", "--ledger", "-r", REG, TRANSCRIPT),
        {StatsFormat.HUMAN: human, StatsFormat.JSON: validates(Output.LEDGER)},
    ),
    "stats --misroutes": (
        StatsFormat,
        ("stats", "--misroutes", "-r", REG, TRANSCRIPT),
        {StatsFormat.HUMAN: human, StatsFormat.JSON: validates(Output.MISROUTES)},
    ),
}
RUNS = [
    (command, member)
    for command, (enum, _, _) in COMMANDS.items()
    for member in enum  # type: ignore[var-annotated]
]


@pytest.mark.parametrize(("command", "member"), RUNS, ids=[f"{c}-{m}" for c, m in RUNS])
def test_every_format_of_every_command(cli: Cli, command: str, member: Enum) -> None:
    _, args, checks = COMMANDS[command]
    run = cli(*args, "--format", str(member.value))
    if member not in checks:  # a format this mode has no output for: refused, in one line
        assert run.exit_code == 2 and run.stderr.count("\n") == 1
        return
    assert run.exit_code in (0, 1), run.stderr
    checks[member](run.stdout)


LOCK_FILE = validates(Output.LOCK)


def test_the_lock_file_matches_its_schema(cli: Cli, in_tmp: Any) -> None:
    assert cli("lock", "-r", REG).exit_code == 0
    LOCK_FILE((in_tmp / "toolsel.lock").read_text(encoding="utf-8"))


@pytest.mark.parametrize("graph", list(GraphFormat))
def test_every_graph_format(cli: Cli, graph: GraphFormat) -> None:
    text = cli("deps", "-r", REG, "--all", "--graph", graph.value).stdout
    assert text.startswith(
        {GraphFormat.DOT: "digraph requires {", GraphFormat.MERMAID: "graph LR"}[graph]
    )


def test_every_output_has_a_checked_schema() -> None:
    from toolsel.schemas import SERVE_OUTPUTS

    assert set(Output) - SERVE_OUTPUTS == CHECKED  # the service's: tests/serve/test_http.py


@pytest.mark.parametrize("output", list(Output))
def test_schema_command_prints_each_schema(cli: Cli, output: Output) -> None:
    schema = json.loads(cli("schema", "--output", output.value).stdout)
    Draft202012Validator.check_schema(schema)
    assert schema["properties"]["schema"] == {"const": schema_name(output)}
    assert json.loads(cli("schema").stdout)["title"]  # without --output: the registry format
