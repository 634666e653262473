"""`toolsel rank` through the CLI (see tests/ranking/ for the library)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli

Write = Callable[..., Path]


def test_rank_on_the_bundled_registry(cli: Cli) -> None:
    run = cli("rank", "-r", str(ROOT / "registries"), "read the config file", "--format", "json")
    data = json.loads(run.stdout)
    assert data["schema"] == "toolsel.rank/v3" and data["mode"] == "search"
    matched = [r for r in data["results"] if not r["always_include"]]
    assert matched[0]["name"] == "read_file"
    assert all(0 <= r["score"] <= 1 for r in data["results"])
    assert {"name": "search_files", "replaced_by": "search_documents"} in data["deprecated"]


def test_rank_human_table(cli: Cli) -> None:
    run = cli("rank", "-r", str(ROOT / "registries"), "deploy the billing service to production")
    assert run.exit_code == 0 and "deploy_service" in run.stdout and "\x1b[" not in run.stdout


def test_rank_is_deterministic(cli: Cli) -> None:
    args = ("rank", "-r", str(ROOT / "registries"), "delete a record", "-f", "json")
    assert cli(*args).stdout == cli(*args).stdout


@pytest.mark.parametrize(
    ("args", "message"), [(("   ",), "prompt is empty"), (("x", "--top", "0"), "--top")]
)
def test_rank_bad_input(cli: Cli, args: tuple[str, ...], message: str) -> None:
    run = cli("rank", "-r", str(ROOT / "registries"), *args)
    assert run.exit_code == 2 and message in run.stderr


def test_rank_on_a_broken_registry_is_one_line(cli: Cli, write: Write) -> None:
    run = cli("rank", "-r", str(write("b.yaml", "tools:\n  - name: [x\n")), "anything")
    assert run.exit_code == 2
    assert run.stderr.count("\n") == 1 and "b.yaml:3:1: TS001" in run.stderr
    assert "starts at line 2, column 11" in run.stderr


def test_rank_on_a_registry_without_tools(cli: Cli, write: Write) -> None:
    run = cli("rank", "-r", str(write("e.yaml", "tools: []\n")), "anything")
    assert run.exit_code == 2 and "no tools" in run.stderr


def test_a_synonym_is_shown_as_a_synonym_never_as_the_prompts_word(cli: Cli) -> None:
    """Issue 32: "meeting" matched `event` in a tool's name; the why column once said
    `event (name)`, as if the prompt had said it, and JSON `why` only "match"."""
    args = ("rank", "-r", str(ROOT / "registries"), "set up a meeting with the team")
    human = cli(*args, "--method", "hybrid").stdout
    assert "meeting → event (synonym, name)" in human
    assert "event (name)" not in human.replace("→ event (synonym, name)", "")
    data = json.loads(cli(*args, "--method", "hybrid", "-f", "json").stdout)
    first = data["results"][0]
    assert first["name"] == "create_calendar_event" and first["why"]["how"] == "match"
    terms = first["why"]["terms"]
    synonym = [t for t in terms if t["term"] == "event" and t["field"] == "name"]
    assert synonym and synonym[0]["synonym_of"] == "meeting"
    said = [t for t in terms if t["term"] == "meet"]
    assert said and all(t["synonym_of"] is None and t["word"] == "meeting" for t in said)
    weights = [t["weight"] for t in terms]
    assert weights == sorted(weights, reverse=True) and all(w > 0 for w in weights)


def test_the_output_says_which_method_ranked(cli: Cli) -> None:
    args = ("rank", "-r", str(ROOT / "registries"), "deploy the service")
    assert "· hybrid (auto)" in cli(*args).stdout.splitlines()[0]  # TOOLSEL_EMBED=0 here
    assert cli(*args, "--method", "bm25").stdout.splitlines()[0].endswith("· bm25")


def test_fusion_explain_says_what_the_embedding_contributed(cli: Cli, fake_embedder) -> None:  # type: ignore[no-untyped-def]
    run = cli(
        "rank", "-r", str(ROOT / "registries"), "roll back the last deploy",
        "--method", "fusion", "--explain",
    )  # fmt: skip
    assert run.exit_code == 0, run.stderr
    assert (
        "embedding: alike" in run.stdout and "of the way from the least to the most" in run.stdout
    )
