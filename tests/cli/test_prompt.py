"""`toolsel prompt` through the CLI."""

from __future__ import annotations

import json

from tests.conftest import ROOT, Cli

REG = str(ROOT / "registries")
CASES = str(ROOT / "tests" / "selection" / "registries.eval.jsonl")
GOLDEN = str(ROOT / "tests" / "selection" / "registries.yaml")


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
