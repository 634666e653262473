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
    # the bundled registry has example prompts: each method that uses them runs without
    # and with them; fuzzy and cc do not use them
    assert [(m["method"], m["examples"]) for m in data["methods"]] == [
        ("hybrid", False),
        ("hybrid", True),
        ("tfidf", False),
        ("tfidf", True),
        ("bm25", False),
        ("bm25", True),
        ("fuzzy", False),
        ("cc", False),
        ("semantic", False),
        ("semantic", True),
        ("fusion", False),
        ("fusion", True),
    ]
    hybrid = data["methods"][0]
    assert 0 <= hybrid["ndcg@10"] <= 1 and set(hybrid["recall"]) == {"1", "3"}
    assert hybrid["queries"][0]["ranks"] == {"deploy_service": 1}
    assert set(hybrid["missed"]) == {"conflict", "permission", "not_retrieved"}


def test_eval_counts_conflict_exclusions_apart_from_misses(cli: Cli, write) -> None:
    registry = write(
        "r.yaml",
        """
        tools:
          - name: deploy_service
            description: Deploy a service to production.
            conflicts: [rollback_deployment]
          - name: rollback_deployment
            description: Roll back a deployment of a service.
          - name: read_file
            description: Read a file.
          - name: admin_reset
            description: Reset the service deployment state.
            permission: admin
        """,
    )
    cases = write(
        "c.jsonl",
        '{"id": "a", "query": "deploy the service", "expected": ["rollback_deployment"]}\n'
        '{"id": "b", "query": "deploy the service", "expected": ["read_file"]}\n',
    )
    data = json.loads(cli("eval", "-r", str(registry), "--cases", str(cases), "-f", "json").stdout)
    assert data["methods"][0]["missed"] == {"conflict": 1, "permission": 0, "not_retrieved": 1}
    human = cli("eval", "-r", str(registry), "--cases", str(cases)).stdout
    assert "1 excluded by a conflict, 0 blocked by permission, 1 not retrieved" in human


def test_eval_no_examples(cli: Cli) -> None:
    data = json.loads(
        cli("eval", "-r", REG, "--cases", CASES, "--no-examples", "-f", "json").stdout
    )
    assert [(m["method"], m["examples"]) for m in data["methods"]] == [("hybrid", False)]
    data = json.loads(cli("eval", "-r", REG, "--cases", CASES, "-f", "json").stdout)
    assert [(m["method"], m["examples"]) for m in data["methods"]] == [("hybrid", True)]


def test_eval_human_lists_worst_queries(cli: Cli) -> None:
    run = cli("eval", "-r", REG, "--cases", CASES)
    assert "NDCG@10" in run.stdout and "Worst queries (hybrid+examples)" in run.stdout
    assert run.exit_code == 0


def test_eval_reports_bad_lines_and_goes_on(cli: Cli, write) -> None:
    cases = write(
        "c.jsonl",
        '{"id": "a", "query": "deploy", "expected": ["deploy_service"]}\nnope\n{"query": "x"}\n{"query": "y", "expected": ["read_file"]}\n',
    )
    run = cli("eval", "-r", REG, "--cases", str(cases), "-f", "json")
    data = json.loads(run.stdout)
    assert run.exit_code == 1
    assert [b["line"] for b in data["unreadable_lines"]] == [2, 3]
    assert data["unknown_tools"] == [] and data["methods"][0]["cases"] == 2


def test_an_expected_tool_the_registry_lacks_is_an_error_with_a_suggestion(cli: Cli, write) -> None:
    """Issue 20: a typo made eval exit 0 and count a miss."""
    cases = write("c.jsonl", '{"id": "a", "query": "deploy it", "expected": ["deploy_servce"]}\n')
    run = cli("eval", "-r", REG, "--cases", str(cases))
    assert run.exit_code == 2
    assert "'deploy_servce' (did you mean 'deploy_service'?)" in run.stderr


def test_eval_bad_k_and_empty_file(cli: Cli, write) -> None:
    assert cli("eval", "-r", REG, "--cases", CASES, "-k", "x").exit_code == 2
    run = cli("eval", "-r", REG, "--cases", str(write("e.jsonl", "\n")))
    assert run.exit_code == 2 and "not a case file: it is empty" in run.stderr


def test_conversational_prompts_examples_lift_recall(cli: Cli) -> None:
    """The hand-written conversational set: the bundled examples lift hybrid's Recall@5,
    and hybrid is not behind plain BM25 (the gap the always-include fix closed)."""
    cases = str(ROOT / "tests" / "selection" / "conversational.eval.jsonl")
    data = json.loads(cli("eval", "-r", REG, "--cases", cases, "--compare", "-f", "json").stdout)
    r5 = {(m["method"], m["examples"]): m["recall"]["5"] for m in data["methods"]}
    ndcg = {(m["method"], m["examples"]): m["ndcg@10"] for m in data["methods"]}
    assert data["methods"][0]["cases"] >= 60
    assert r5["hybrid", True] > r5["hybrid", False] >= r5["bm25", False]
    # Examples cover part of these registries, so a prompt like no example gains little
    # (never at the other tools' cost): 0.797 / 0.722 here, 0.773 / 0.657 without.
    assert r5["hybrid", True] >= 0.78
    assert ndcg["hybrid", True] >= ndcg["hybrid", False] + 0.05


def test_eval_reports_expected_tools_without_evidence(cli: Cli, write) -> None:
    """Issue 22: how often no prompt word matched the expected tool at all."""
    registry = write(
        "r.yaml",
        """
        tools:
          - name: deploy_service
            description: Deploy a service to production.
          - name: read_file
            description: Read a file from disk.
        """,
    )
    cases = write(
        "c.jsonl",
        '{"id": "a", "prompt": "ship the service", "expect": ["deploy_service", "read_file"]}\n'
        '{"id": "b", "prompt": "open the file", "expect": ["read_file"]}\n',
    )
    data = json.loads(cli("eval", "-r", str(registry), "--cases", str(cases), "-f", "json").stdout)
    method = data["methods"][0]
    assert method["no_evidence"] == {"tools": 1, "expected": 3, "queries": 1}
    assert [q["no_evidence"] for q in method["queries"]] == [["read_file"], []]
    human = cli("eval", "-r", str(registry), "--cases", str(cases)).stdout
    assert "hybrid: no evidence for 1 of 3 expected tools (33.3%), in 1 query" in human
    assert "read_file no evidence" in human
