"""`toolsel test` (golden selection tests) through the CLI."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from tests.conftest import ROOT, Cli

REG = str(ROOT / "registries")
CASES = str(ROOT / "tests" / "selection" / "registries.eval.jsonl")
GOLDEN = str(ROOT / "tests" / "selection" / "registries.yaml")


def test_golden_cases_pass_and_junit(cli: Cli, tmp_path) -> None:
    run = cli("test", "-r", REG, GOLDEN)
    assert run.exit_code == 0 and "14 passed, 0 failed" in run.stdout
    out = tmp_path / "junit.xml"
    cli("test", "-r", REG, GOLDEN, "-f", "junit", "-o", str(out))
    root = ET.parse(out).getroot()
    assert root.get("tests") == "14" and root.get("failures") == "0"


def test_golden_failures_exit_one_with_reasons(cli: Cli, write) -> None:
    cases = write(
        "g.yaml",
        """\
        cases:
          - prompt: delete the customer record
            expect: [send_email]
            forbid: [delete_database_record]
            top_k: 4
          - prompt: anything
            expect: [no_such_tool]
        """,
    )
    run = cli("test", "-r", REG, str(cases), "-f", "json")
    data = json.loads(run.stdout)
    assert run.exit_code == 1 and data["failed"] == 2
    first, second = data["cases"]
    assert first["missing"] == ["send_email"] and first["forbidden"] == ["delete_database_record"]
    assert second["unknown"] == ["no_such_tool"]
    junit = ET.fromstring(cli("test", "-r", REG, str(cases), "-f", "junit").stdout)
    assert junit.get("failures") == "2"


def test_golden_bad_case_files(cli: Cli, write) -> None:
    for text, message in (
        ("cases:\n  - prompt: x\n    expekt: [a]\n", "did you mean 'expect'"),
        ("cases:\n  - prompt: x\n", "bad.yaml:2:5: a case needs `expect`"),
        ("cases: [\n", "cannot parse"),
        ("cases: []\n", "has no cases; expected `cases:` with a list"),
        ("cases:\n  - prompt: x\n    expect: [a]\n    top_k: 0\n", "top_k"),
    ):
        run = cli("test", "-r", REG, str(write("bad.yaml", text)))
        assert run.exit_code == 2 and message in run.stderr and "Traceback" not in run.stderr


def test_top_k_counts_ranked_tools_and_always_include_tools_are_offered(cli: Cli, write) -> None:
    cases = write(
        "g.yaml",
        """\
        cases:
          - prompt: raed fle
            expect: [read_file, ask_user]
            top_k: 1
        """,
    )
    run = cli("test", "-r", REG, str(cases), "-f", "json")
    (case,) = json.loads(run.stdout)["cases"]
    assert run.exit_code == 0 and case["passed"]
    assert case["offered"][-1] == "read_file" and "ask_user" in case["offered"]
