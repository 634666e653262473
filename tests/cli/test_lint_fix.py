"""`lint --fix`, `--diff` and `--statistics` through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from tests.conftest import Cli
from toolsel.schemas import schema_text

REGISTRY = """\
# keep me
tools:
  - name: get_order
    description: Looks up an order.
    parameters:
      type: object
      properties:
        order_id: {type: string}
        note: {type: [string, "null"]}
      required: [order_id]
"""


@pytest.fixture
def registry(tmp_path: Path) -> Path:
    path = tmp_path / "tools.yaml"
    path.write_text(REGISTRY)
    return path


def test_fix_shows_the_diff_then_what_remains(cli: Cli, registry: Path) -> None:
    run = cli("lint", str(registry), "-t", "openai-strict", "--fix", "-q")
    assert run.exit_code == 0, run.stdout
    assert run.stdout.splitlines()[:2] == [
        f"Fixed {registry}: 2 findings (TS401 1, TS402 1)",
        "Fixed 2 findings in 1 file.",
    ]
    assert run.stdout.rstrip().endswith(
        "No problems at the minimum severity in 1 file; 9 info not shown."
    )
    assert registry.read_text() == REGISTRY.replace(
        "      required: [order_id]\n",
        "      required: [order_id, note]\n      additionalProperties: false\n",
    )
    again = cli("lint", str(registry), "-t", "openai-strict", "--fix")
    assert again.stdout.startswith("Nothing to fix.\n") and again.exit_code == 0


def test_fix_prints_a_unified_diff(cli: Cli, registry: Path) -> None:
    run = cli("lint", str(registry), "-t", "openai-strict", "--fix", "--select", "TS4")
    assert f"--- {registry}\n+++ {registry}\n" in run.stdout
    assert "-      required: [order_id]\n+      required: [order_id, note]\n" in run.stdout
    assert "+      additionalProperties: false\n" in run.stdout


def test_diff_writes_nothing_and_exits_1_when_there_is_a_fix(cli: Cli, registry: Path) -> None:
    run = cli("lint", str(registry), "-t", "openai-strict", "--diff")
    assert run.exit_code == 1 and "+      additionalProperties: false" in run.stdout
    assert "2 findings would be fixed" not in run.stdout
    assert "Would fix 2 findings in 1 file." in run.stdout
    assert registry.read_text() == REGISTRY
    clean = cli("lint", str(registry), "--diff")  # portable: nothing to fix
    assert clean.exit_code == 0 and clean.stdout == "Nothing to fix.\n"


def test_what_fix_leaves_is_said_with_its_reason(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text(REGISTRY.replace("      required: [order_id]\n", ""))
    run = cli("lint", str(path), "-t", "openai-strict", "--fix", "-q")
    assert run.exit_code == 1
    assert (
        f"{path}:8:9: TS402 not fixed: 'order_id' is optional and not nullable; make it type "
        "[T, 'null'] first"
    ) in run.stdout
    assert "1 error in 1 file" in run.stdout


@pytest.mark.parametrize("fmt", ["json", "sarif", "github", "junit", "gitlab"])
def test_fix_refuses_machine_formats(cli: Cli, registry: Path, fmt: str) -> None:
    run = cli("lint", str(registry), "-t", "openai-strict", "--fix", "-f", fmt)
    assert run.exit_code == 2 and run.stdout == ""
    assert run.stderr == (
        f"toolsel: error: --fix reports in the human format, not {fmt} (run `toolsel lint "
        f"-f {fmt}` after fixing)\n"
    )
    assert registry.read_text() == REGISTRY


def test_fix_and_diff_together_is_refused(cli: Cli, registry: Path) -> None:
    run = cli("lint", str(registry), "--fix", "--diff")
    assert run.exit_code == 2 and "give one of them" in run.stderr


def test_fix_never_touches_a_file_that_does_not_parse(cli: Cli, tmp_path: Path) -> None:
    good, bad = tmp_path / "a.yaml", tmp_path / "b.yaml"
    good.write_text(REGISTRY)
    text = REGISTRY.replace("get_order", "other") + "  - name: [\n"
    bad.write_text(text)
    run = cli("lint", str(tmp_path), "-t", "openai-strict", "--fix", "-q")
    assert bad.read_text() == text and good.read_text() != REGISTRY
    assert "TS001" in run.stdout and run.exit_code == 1


def test_statistics_counts_per_rule(cli: Cli, registry: Path) -> None:
    run = cli("lint", str(registry), "-t", "openai-strict", "--statistics")
    assert run.exit_code == 1
    lines = run.stdout.splitlines()
    assert lines[0] == "count  rule   name                          severity  fixable"
    assert "    1  TS401  openai-additional-properties  error           1" in lines
    assert "    1  TS402  openai-all-required           error           1" in lines
    assert "    2  TS304  property-without-description  info            -" in lines
    assert lines[-1] == "2 errors, 9 info in 1 file."
    assert max(len(line) for line in lines) <= 80
    assert "tools.yaml:" not in run.stdout  # instead of the findings, as ruff does


def test_statistics_in_json_follow_the_published_schema(cli: Cli, registry: Path) -> None:
    run = cli("lint", str(registry), "-t", "openai-strict", "--statistics", "-f", "json", "-q")
    document = json.loads(run.stdout)
    Draft202012Validator(json.loads(schema_text("lint"))).validate(document)
    assert document["statistics"] == [
        {
            "rule": "TS401",
            "name": "openai-additional-properties",
            "severity": "error",
            "count": 1,
            "fixable": 1,
        },
        {
            "rule": "TS402",
            "name": "openai-all-required",
            "severity": "error",
            "count": 1,
            "fixable": 1,
        },
    ]
    assert len(document["findings"]) == 2  # JSON keeps the findings beside the counts
    plain = json.loads(cli("lint", str(registry), "-f", "json").stdout)
    assert "statistics" not in plain


def test_statistics_refuses_other_machine_formats(cli: Cli, registry: Path) -> None:
    run = cli("lint", str(registry), "--statistics", "-f", "sarif")
    assert run.exit_code == 2
    assert run.stderr == (
        "toolsel: error: --statistics is for the human and json formats, not sarif\n"
    )
