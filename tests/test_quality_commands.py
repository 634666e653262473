"""`toolsel eval`, `toolsel test` and `toolsel prompt` through the CLI."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from tests.conftest import ROOT, Cli
from toolsel.evaluate import Case, score_case

REG = str(ROOT / "registries")
CASES = str(ROOT / "tests" / "selection" / "registries.eval.jsonl")
GOLDEN = str(ROOT / "tests" / "selection" / "registries.yaml")


def test_metrics_by_hand() -> None:
    outcome = score_case(Case("q", "x", ("a", "b")), ["c", "a", "d", "b"])
    assert outcome.ranks == {"a": 2, "b": 4}
    assert outcome.reciprocal_rank == 0.5
    ideal = 1 + 1 / 1.584962500721156
    assert abs(outcome.ndcg10 - (1 / 1.584962500721156 + 1 / 2.321928094887362) / ideal) < 1e-12
    assert score_case(Case("q", "x", ("z",)), ["a"]).ndcg10 == 0.0


def test_eval_compare_json(cli: Cli, fake_embedder: object) -> None:
    data = json.loads(
        cli("eval", "-r", REG, "--cases", CASES, "--compare", "-f", "json", "-k", "1,3").stdout
    )
    assert data["schema"] == "toolsel.eval/v1" and data["k"] == [1, 3]
    assert [m["method"] for m in data["methods"]] == [
        "hybrid",
        "tfidf",
        "bm25",
        "fuzzy",
        "cc",
        "semantic",
        "fusion",
    ]
    hybrid = data["methods"][0]
    assert 0 <= hybrid["ndcg@10"] <= 1 and set(hybrid["recall"]) == {"1", "3"}
    assert hybrid["queries"][0]["ranks"] == {"deploy_service": 1}


def test_eval_human_lists_worst_queries(cli: Cli) -> None:
    run = cli("eval", "-r", REG, "--cases", CASES)
    assert "NDCG@10" in run.stdout and "Worst queries (hybrid)" in run.stdout and run.exit_code == 0


def test_eval_reports_bad_lines_and_goes_on(cli: Cli, write) -> None:
    cases = write(
        "c.jsonl",
        '{"id": "a", "query": "deploy", "expected": ["deploy_service"]}\nnope\n{"query": "x"}\n{"query": "y", "expected": ["ghost_tool"]}\n',
    )
    run = cli("eval", "-r", REG, "--cases", str(cases), "-f", "json")
    data = json.loads(run.stdout)
    assert run.exit_code == 1
    assert [b["line"] for b in data["unreadable_lines"]] == [2, 3]
    assert data["unknown_tools"] == ["ghost_tool"] and data["methods"][0]["cases"] == 2


def test_eval_bad_k_and_empty_file(cli: Cli, write) -> None:
    assert cli("eval", "-r", REG, "--cases", CASES, "-k", "x").exit_code == 2
    run = cli("eval", "-r", REG, "--cases", str(write("e.jsonl", "\n")))
    assert run.exit_code == 2 and "no readable cases" in run.stderr


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
        ("cases:\n  - prompt: x\n", "needs `expect` or `forbid`"),
        ("cases: [\n", "cannot parse"),
        ("cases: []\n", "list of test cases"),
        ("cases:\n  - prompt: x\n    expect: [a]\n    top_k: 0\n", "top_k"),
    ):
        run = cli("test", "-r", REG, str(write("bad.yaml", text)))
        assert run.exit_code == 2 and message in run.stderr and "Traceback" not in run.stderr


def test_prompt_listing_and_budget(cli: Cli) -> None:
    run = cli("prompt", "-r", REG)
    assert run.stdout.startswith("<available-deferred-tools>\ncreate_calendar_event\n")
    assert "</available-deferred-tools>" in run.stdout and "Always loaded" in run.stdout
    data = json.loads(cli("prompt", "-r", REG, "-f", "json").stdout)
    assert data["schema"] == "toolsel.prompt/v1" and data["deferred"] == sorted(data["deferred"])
    assert "delete_file" in data["deferred"] and "read_file" in [t["name"] for t in data["loaded"]]
    assert "search_files" not in data["deferred"]  # deprecated
    over = cli("prompt", "-r", REG, "--budget", "100")
    assert over.exit_code == 1 and "over the budget of 100" in over.stderr
    assert cli("prompt", "-r", REG, "--budget", "1000000").exit_code == 0


def test_missing_input_files_are_one_line_exit_two(cli: Cli, tmp_path) -> None:
    missing = str(tmp_path / "nope")
    for args in (
        ("eval", "-r", REG, "--cases", missing),
        ("test", "-r", REG, missing),
        ("stats", missing),
    ):
        run = cli(*args)
        assert (
            run.exit_code == 2 and run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
        ), args


def test_binary_transcript_is_unreadable_not_a_crash(cli: Cli, write) -> None:
    path = write("bin.jsonl", b"\x00\x01\x02\xff\xfe binary\n\x89PNG\r\n\x1a\n")
    data = json.loads(cli("replay", str(path), "-f", "json").stdout)
    (f,) = data["files"]
    assert len(f["unreadable_lines"]) == 3 and f["lines"] == 3  # the PNG header holds a newline
