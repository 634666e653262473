"""Real public data (tests/fixtures/real, see SOURCE.md there for sources, licences and the
ground truth, which was worked out by reading the files)."""

from __future__ import annotations

import json

from tests.conftest import ROOT, Cli
from toolsel.registry import load_registry

REAL = ROOT / "tests" / "fixtures" / "real"


def test_mcp_captures_load_with_spec_permissions() -> None:
    fetch = load_registry(REAL / "mcp" / "mcp-server-fetch.json", use_cache=False)
    assert [(t.name, t.permission.value) for t in fetch.tools] == [("fetch", "dangerous")]
    puppeteer = load_registry(REAL / "mcp" / "server-puppeteer.json", use_cache=False)
    assert len(puppeteer.tools) == 7
    assert all(
        t.name.startswith("puppeteer_") and t.permission.value == "dangerous"
        for t in puppeteer.tools
    )


def test_mcp_captures_lint_for_gemini(cli: Cli) -> None:
    run = cli("lint", str(REAL / "mcp"), "-t", "gemini", "-f", "json")
    findings = json.loads(run.stdout)["findings"]
    ts442 = sorted(
        (f["file"].rsplit("/", 1)[-1], f["pointer"]) for f in findings if f["rule"] == "TS442"
    )
    assert ts442 == [
        ("mcp-server-fetch.json", "/tools/0/inputSchema/properties/max_length/exclusiveMaximum"),
        ("mcp-server-fetch.json", "/tools/0/inputSchema/properties/max_length/exclusiveMinimum"),
    ]
    assert not [f for f in findings if f["rule"] in ("TS101", "TS103", "TS441")]


def test_codex_exec_runs_match_the_ground_truth(cli: Cli) -> None:
    run = cli("replay", str(REAL / "codex-exec"), "--no-registry", "-f", "json")
    summary = json.loads(run.stdout)["summary"]
    assert (summary["calls"], summary["paired"], summary["error_results"]) == (3, 3, 0)
    assert (summary["orphan_results"], summary["copied_calls"], summary["unanswered_calls"]) == (
        0,
        0,
        0,
    )
    stats = json.loads(cli("stats", str(REAL / "codex-exec"), "--no-registry", "-f", "json").stdout)
    assert {name: t["calls"] for name, t in stats["tools"].items()} == {
        "command_execution": 2,
        "file_change": 1,
    }


def test_bfcl_function_docs_as_json_lines(cli: Cli) -> None:
    path = REAL / "bfcl" / "math_api.json"
    registry = load_registry(path, use_cache=False, strict=False)
    assert len(registry.tools) == 17 and registry.tools[0].name == "absolute_value"
    findings = json.loads(cli("lint", str(path), "-f", "json").stdout)["findings"]
    counts = {
        rule: sum(f["rule"] == rule for f in findings) for rule in ("TS301", "TS302", "TS209")
    }
    assert counts == {"TS301": 17, "TS302": 41, "TS209": 0}
    # positions point at the line each function doc is on
    first = next(f for f in findings if f["rule"] == "TS301" and f["pointer"].startswith("/16/"))
    assert first["line"] == 17
    ranked = json.loads(cli("rank", "square root of 2", "-r", str(path), "-f", "json").stdout)
    assert ranked["results"][0]["name"] == "square_root"


def test_codex_rollout_excerpt(cli: Cli) -> None:
    summary = json.loads(
        cli("replay", str(REAL / "codex-rollout"), "--no-registry", "-f", "json").stdout
    )["summary"]
    assert (summary["calls"], summary["paired"], summary["error_results"]) == (4, 4, 0)


def test_claude_code_excerpt(cli: Cli) -> None:
    data = json.loads(
        cli("replay", str(REAL / "claude-code"), "--no-registry", "-f", "json").stdout
    )
    (f,) = data["files"]
    assert (f["format"], f["calls"], f["paired"], f["error_results"]) == ("claude-code", 3, 3, 0)
    assert f["tools"]["mcp__happy__change_title"] == {
        "calls": 2,
        "errors": 0,
        "median_latency_s": 2.2,
    }
    assert f["tools"]["TodoWrite"]["median_latency_s"] == 0.323
