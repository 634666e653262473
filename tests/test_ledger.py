"""The cost and usage ledger: definition tokens beside usage, and a deferral plan whose
reachability is measured on the calls themselves."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from tests.conftest import Cli
from toolsel.ledger import build_ledger, server_of
from toolsel.listing import definition_tokens
from toolsel.registry.model import Registry
from toolsel.replay.stats import ToolUsage, UsageStats

REGISTRY = """\
tools:
  - name: mcp__tickets__create_ticket
    description: Create a ticket in the issue tracker for a bug or a task.
  - name: mcp__tickets__close_ticket
    description: Close an existing ticket in the issue tracker once it is done.
  - name: mcp__deploy__deploy_service
    description: Deploy a service to production and roll it out to every region.
  - name: get_weather
    description: Get the current weather forecast for a city.
"""


def _registry(tmp_path: Path) -> Registry:
    from toolsel.registry.loader import load_registry

    path = tmp_path / "tools.yaml"
    path.write_text(REGISTRY, encoding="utf-8")
    return load_registry(path)


def _usage(calls: dict[str, int]) -> UsageStats:
    tools = tuple(ToolUsage(name, n, 0, 1, None, n) for name, n in calls.items())
    return UsageStats(1, tools, None, ())


def _found(reached: dict[str, int]):  # type: ignore[no-untyped-def]
    return lambda registry, requests, top_k: reached


def test_the_plan_keeps_loaded_only_what_search_cannot_reach(tmp_path: Path) -> None:
    registry = _registry(tmp_path)
    usage = _usage({"mcp__tickets__create_ticket": 90, "get_weather": 10})
    # every ticket call is found by its request; weather calls never are
    ledger = build_ledger(
        usage, registry, {}, target=0.99, found=_found({"mcp__tickets__create_ticket": 90})
    )
    plan = {r.tool: r.loaded for r in ledger.rows}
    assert plan == {
        "mcp__tickets__create_ticket": False,
        "mcp__tickets__close_ticket": False,
        "mcp__deploy__deploy_service": False,
        "get_weather": True,
    }
    assert (ledger.calls, ledger.reachable_calls) == (100, 100)
    every = sum(definition_tokens(t) for t in registry.tools)
    assert ledger.tokens_before == every
    assert definition_tokens(registry.tools[3]) < ledger.tokens_after < every
    assert not ledger.failed


def test_a_lower_target_defers_more_and_the_gate_fails_on_budget_or_reach(
    tmp_path: Path,
) -> None:
    registry = _registry(tmp_path)
    usage = _usage({"mcp__tickets__create_ticket": 95, "get_weather": 5})
    loose = build_ledger(usage, registry, {}, target=0.9, found=_found({}))
    assert [r.tool for r in loose.rows if r.loaded] == ["mcp__tickets__create_ticket"]
    assert loose.reachable_share == 0.95 and not loose.failed
    tight = build_ledger(usage, registry, {}, target=0.9, budget=1, found=_found({}))
    assert tight.over_budget and tight.failed


def test_servers_come_from_mcp_names() -> None:
    assert server_of("mcp__tickets__create_ticket") == "tickets"
    assert server_of("Bash") == server_of("mcp__odd") == "-"


def _session(path: Path, turns: list[tuple[str, str]]) -> None:
    """A Claude Code session: each (request, tool called for it)."""
    lines = []
    for n, (request, tool) in enumerate(turns):
        lines.append({"type": "user", "uuid": f"h{n}", "sessionId": "s",
                      "message": {"role": "user", "content": request}})  # fmt: skip
        use = {"type": "tool_use", "id": f"t{n}", "name": tool, "input": {}}
        lines.append({"type": "assistant", "uuid": f"a{n}", "sessionId": "s",
                      "message": {"id": f"m{n}", "content": [use]}})  # fmt: skip
        result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": "done"}
        lines.append({"type": "user", "uuid": f"r{n}", "sessionId": "s",
                      "message": {"content": [result]}})  # fmt: skip
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))


def test_the_ledger_through_the_cli_measures_reach_with_rank(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "tools.yaml").write_text(REGISTRY, encoding="utf-8")
    _session(
        tmp_path / "s.jsonl",
        [("file a ticket for the login bug", "mcp__tickets__create_ticket")] * 3
        + [("zzz", "get_weather")],
    )
    run = cli("stats", str(tmp_path / "s.jsonl"), "--ledger", "-r", str(tmp_path / "tools.yaml"),
              "--format", "json", "--top-k", "1")  # fmt: skip
    assert run.exit_code == 0, run.stderr
    document = json.loads(run.stdout)
    rows = {r["tool"]: r for r in document["tools"]}
    assert rows["mcp__tickets__create_ticket"]["found_calls"] == 3
    assert rows["mcp__tickets__create_ticket"]["plan"] == "deferred"
    assert rows["get_weather"]["plan"] == "loaded"  # "zzz" finds nothing
    assert rows["get_weather"]["result_bytes"]["total"] == 4
    assert document["plan"]["reachable_calls"] == document["plan"]["calls"] == 4
    gated = cli("stats", str(tmp_path / "s.jsonl"), "--ledger", "-r",
                str(tmp_path / "tools.yaml"), "--budget", "1")  # fmt: skip
    assert gated.exit_code == 1 and "over budget" in gated.stdout


@pytest.mark.parametrize(
    "args",
    [["--ledger"], ["--budget", "10"], ["--ledger", "-r", "REG", "--format", "html"]],
)
def test_ledger_options_out_of_place_are_one_line_errors(
    cli: Cli, in_tmp: Path, tmp_path: Path, args: list[str]
) -> None:
    (tmp_path / "tools.yaml").write_text(REGISTRY, encoding="utf-8")
    _session(tmp_path / "s.jsonl", [("hi", "get_weather")])
    given = [str(tmp_path / "tools.yaml") if a == "REG" else a for a in args]
    run = cli("stats", str(tmp_path / "s.jsonl"), *given)
    assert run.exit_code == 2 and run.stderr.count("\n") == 1
