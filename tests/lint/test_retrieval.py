"""TS7xx (lint/rules/retrieval.py): tools can be found by search."""

from __future__ import annotations

import json

from tests.conftest import Cli
from tests.lint.helpers import assert_findings, lint_text

CROWDED = (
    "- name: fs_read\n  display_name: Read a file\n  description: Returns the bytes of a path on the local disk.\n"
    + "".join(
        f"- name: read_file_{s}\n  description: Read a file {s}. Reads the {s} of a file; read file {s}.\n"
        for s in ("head", "tail", "lines")
    )
)


def test_a_tool_rank_does_not_offer_for_its_display_name_is_reported() -> None:
    assert_findings(CROWDED, ["TS701 /tools/0/display_name"], rule="TS701", select=("TS701",))


def test_off_by_default() -> None:
    assert not [f for f in lint_text(CROWDED) if f.rule == "TS701"]


def test_lint_and_rank_agree(cli: Cli, write, monkeypatch) -> None:
    """TS701 ranks exactly as `toolsel rank -m hybrid` does: what it reports, rank shows;
    and it never ranks with embeddings, whatever extras are installed."""
    monkeypatch.setenv("TOOLSEL_EMBED", "1")  # auto would be fusion where [embed] is installed
    from tests.conftest import tools_document

    path = write("crowded.yaml", tools_document(CROWDED))
    findings = json.loads(cli("lint", str(path), "--extend-select", "TS701", "-f", "json").stdout)[
        "findings"
    ]
    (finding,) = [f for f in findings if f["rule"] == "TS701"]
    ranked = json.loads(
        cli("rank", "Read a file", "-r", str(path), "-n", "3", "-m", "hybrid", "-f", "json").stdout
    )
    offered = [r["name"] for r in ranked["results"]]
    assert "fs_read" not in offered
    assert f"({', '.join(offered)} come first)" in finding["message"]
    # a name written as words is an exact match for rank, so it is never reported
    assert not any(f["pointer"].endswith("/name") for f in findings if f["rule"] == "TS701")


def test_a_display_name_or_hint_with_no_searchable_words_is_not_checked() -> None:
    """Found by mutation testing: `ranked_for` ranked '???' (no searchable words), and TS701
    reported "does not offer 'read_file' in its top 3 (nothing come first)"."""
    text = (
        "- name: read_file\n  display_name: '???'\n  search_hint: '-- !!'\n"
        "  description: Read a file from disk.\n"
        "- name: write_file\n  description: Write a file to disk.\n"
    )
    assert_findings(text, [], rule="TS701", select=("TS701",))
