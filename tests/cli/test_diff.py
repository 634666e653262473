"""`toolsel diff` through the CLI: exit codes and --fail-on, the ignore file, REF:PATH git
revisions and --base, transcript evidence (TD901) and golden-case evidence (TD202)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Cli

OLD = """\
tools:
  - name: search
    description: Search the web for pages about a topic.
    parameters:
      type: object
      properties:
        query: {type: string}
        limit: {type: integer, maximum: 50}
      required: [query]
  - name: send_email
    description: Send an email to one recipient.
    permission: write
"""
NEW = OLD.replace("maximum: 50", "maximum: 10")


def test_exit_codes_follow_fail_on(cli: Cli, write: Callable[..., Path]) -> None:
    old, new = write("old.yaml", OLD), write("new.yaml", NEW)
    run = cli("diff", str(old), str(new))
    assert run.exit_code == 1 and "TD114 breaking" in run.stdout
    assert cli("diff", str(old), str(new), "--fail-on", "none").exit_code == 0
    assert cli("diff", str(old), str(old), "--fail-on", "any").exit_code == 0
    bad = cli("diff", str(old), str(new), "--fail-on", "sometimes")
    assert bad.exit_code == 2 and bad.stderr.startswith("toolsel: error: --fail-on")


def test_usage_errors_are_one_line(cli: Cli, write: Callable[..., Path]) -> None:
    old = write("old.yaml", OLD)
    for args in (("diff", str(old)), ("diff", str(old), "missing.yaml")):
        run = cli(*args)
        assert run.exit_code == 2 and run.stderr.count("\n") == 1, run.stderr


def test_json_output_has_both_sides(cli: Cli, write: Callable[..., Path]) -> None:
    old, new = write("old.yaml", OLD), write("new.yaml", NEW)
    data = json.loads(cli("diff", str(old), str(new), "-f", "json").stdout)
    (change,) = data["changes"]
    assert change["rule"] == "TD114" and change["old"]["line"] == 8 and change["new"]["value"] == 10


def test_ignore_file_needs_reasons_and_warns_when_stale(
    cli: Cli, write: Callable[..., Path]
) -> None:
    old, new = write("old.yaml", OLD), write("new.yaml", NEW)
    data = json.loads(cli("diff", str(old), str(new), "-f", "json").stdout)
    fingerprint = data["changes"][0]["fingerprint"]
    ignore = write(
        "ignore.yaml",
        f"ignore:\n  - fingerprint: {fingerprint}\n    reason: the API caps it\n"
        "  - rule: TD201\n    reason: nothing matches this\n"
        "  - rule: TD001\n    reason: old\n    expires: 2020-01-01\n",
    )
    run = cli("diff", str(old), str(new), "--ignore", str(ignore))
    assert run.exit_code == 0 and "1 ignored" in run.stdout
    assert "matches no change" in run.stdout and "expired on 2020-01-01" in run.stdout
    no_reason = write("bad.yaml", f"ignore:\n  - fingerprint: {fingerprint}\n")
    bad = cli("diff", str(old), str(new), "--ignore", str(no_reason))
    assert bad.exit_code == 2 and "bad.yaml:2:5: every entry needs a `reason`" in bad.stderr


def test_fingerprint_survives_reformatting(cli: Cli, write: Callable[..., Path]) -> None:
    old, new = write("old.yaml", OLD), write("new.yaml", NEW)
    first = json.loads(cli("diff", str(old), str(new), "-f", "json").stdout)["changes"][0]
    reformatted = write("new.json", json.dumps({"tools": [
        {"name": "send_email", "permission": "write", "description": "Send an email to one recipient."},
        {"parameters": {"required": ["query"], "properties": {"limit": {"maximum": 10, "type": "integer"},
         "query": {"type": "string"}}, "type": "object"},
         "description": "Search the web for pages about a topic.", "name": "search"},
    ]}, indent=4))  # fmt: skip
    data = json.loads(cli("diff", str(old), str(reformatted), "-f", "json").stdout)
    assert [c["fingerprint"] for c in data["changes"] if c["rule"] == "TD114"] == [
        first["fingerprint"]
    ]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=repo, check=True, capture_output=True,
    )  # fmt: skip


def test_git_revisions_and_base(cli: Cli, in_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _git(in_tmp, "init", "-q", "-b", "main")
    (in_tmp / "reg").mkdir()
    (in_tmp / "reg" / "tools.yaml").write_text(OLD)
    _git(in_tmp, "add", ".")
    _git(in_tmp, "commit", "-qm", "old")
    _git(in_tmp, "checkout", "-qb", "work")
    (in_tmp / "reg" / "tools.yaml").write_text(NEW)
    run = cli("diff", "main:reg/", "reg/", "-f", "json")
    data = json.loads(run.stdout)
    assert run.exit_code == 1 and [c["rule"] for c in data["changes"]] == ["TD114"]
    assert data["changes"][0]["old"]["file"] == "main:reg/tools.yaml"
    assert cli("diff", "--base", "main", "reg/").exit_code == 1
    missing = cli("diff", "origin/main:reg/", "reg/")
    assert missing.exit_code == 2 and "no such revision in this clone" in missing.stderr
    # a file named like REF:PATH on disk is read from disk, not from git
    (in_tmp / "main:reg").mkdir()
    (in_tmp / "main:reg" / "t.yaml").write_text(NEW)
    assert cli("diff", "main:reg/", "reg/").exit_code == 0


TRANSCRIPT = [
    {"type": "assistant", "sessionId": "s", "message": {"role": "assistant", "id": "m1", "content": [
        {"type": "tool_use", "id": "t1", "name": "search", "input": {"query": "x", "limit": 20}}]}},
    {"type": "user", "sessionId": "s", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}},
    {"type": "assistant", "sessionId": "s", "message": {"role": "assistant", "id": "m2", "content": [
        {"type": "tool_use", "id": "t2", "name": "search", "input": {"query": "y", "limit": 5}}]}},
]  # fmt: skip


def test_transcripts_prove_a_call_breaks(cli: Cli, write: Callable[..., Path]) -> None:
    old, new = write("old.yaml", OLD), write("new.yaml", NEW)
    log = write("session.jsonl", "\n".join(json.dumps(r) for r in TRANSCRIPT) + "\n")
    data = json.loads(
        cli("diff", str(old), str(new), "--transcripts", str(log), "-f", "json").stdout
    )
    (proof,) = [c for c in data["changes"] if c["rule"] == "TD901"]
    assert [(e["file"].endswith("session.jsonl"), e["line"]) for e in proof["evidence"]] == [
        (True, 1)
    ]
    same = json.loads(
        cli("diff", str(old), str(old), "--transcripts", str(log), "-f", "json").stdout
    )
    assert same["changes"] == []


def test_cases_show_an_expected_tool_leaving_the_top_k(
    cli: Cli, write: Callable[..., Path]
) -> None:
    old = write("old.yaml", OLD)
    new = write(
        "new.yaml",
        OLD.replace("Search the web for pages about a topic.", "Look things up.")
        + "".join(
            f"  - name: web_tool_{i}\n    description: Search the web for pages about topic {i}.\n"
            for i in range(6)
        ),
    )
    cases = write(
        "cases.yaml",
        "cases:\n  - name: web\n    prompt: search the web for pages about a topic\n"
        "    expect: [search]\n    top_k: 3\n",
    )
    data = json.loads(cli("diff", str(old), str(new), "--cases", str(cases), "-f", "json").stdout)
    (regression,) = [c for c in data["changes"] if c["rule"] == "TD202"]
    assert regression["class"] == "breaking" and "rank 1 -> " in regression["message"]
    assert regression["evidence"][0]["line"] == 2
