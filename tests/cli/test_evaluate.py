"""`toolsel eval` through the CLI."""

from __future__ import annotations

import json

from tests.conftest import ROOT, Cli

REG = str(ROOT / "registries")
CASES = str(ROOT / "tests" / "selection" / "registries.eval.jsonl")
GOLDEN = str(ROOT / "tests" / "selection" / "registries.yaml")


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
