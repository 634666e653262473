"""`toolsel stats` through the CLI."""

from __future__ import annotations

import json

from tests.conftest import ROOT, Cli

T = ROOT / "transcripts"
TOP = sorted(str(p) for p in T.iterdir() if p.is_file())


def test_stats(cli: Cli) -> None:
    data = json.loads(cli("stats", *TOP, "-r", str(ROOT / "registries"), "-f", "json").stdout)
    assert data["schema"] == "toolsel.stats/v1" and data["transcripts"] == 9
    assert data["tools"]["read_file"] == {
        "calls": 4,
        "errors": 1,
        "error_rate": 0.25,
        "success_rate": 0.75,
        "median_latency_s": 1.0,
        "transcripts": 3,
    }
    assert "git_status" in data["never_called"] and len(data["co_used_pairs"]) == 20
    assert data["co_used_pairs"][0] == {"tools": ["Task", "list_directory"], "transcripts": 2}
