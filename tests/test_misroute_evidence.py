"""Misroutes as evidence (issue 35): `stats --misroutes -f json` feeds `learn --misroutes`
(examples of the tool that then worked) and `lint --misroutes` (TS708 on the failed tool)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Cli

REQUEST = "what is in the reports folder"
VAGUE = """\
tools:
  - name: read_file
    description: Read what is in a file or folder on disk.
  - name: list_dir
    description: Show entries.
"""
CLEAR = """\
tools:
  - name: read_file
    description: Read the text of one file by its path; not for folders (use list_dir).
  - name: list_dir
    description: List what is in a folder, the files in the reports folder.
"""


def _session(path: Path) -> None:
    """One request; read_file fails on the folder, list_dir then lists it."""
    lines = [{"type": "user", "uuid": "h", "sessionId": "s",
              "message": {"role": "user", "content": REQUEST}}]  # fmt: skip
    for n, (tool, said, error) in enumerate(
        [
            ("read_file", "EISDIR: illegal operation on a directory", True),
            ("list_dir", "q1.csv q2.csv", False),
        ]
    ):
        use = {"type": "tool_use", "id": f"t{n}", "name": tool, "input": {"path": "reports/"}}
        lines.append({"type": "assistant", "uuid": f"a{n}", "sessionId": "s",
                      "message": {"id": f"m{n}", "content": [use]}})  # fmt: skip
        result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": said,
                  "is_error": error}  # fmt: skip
        lines.append({"type": "user", "uuid": f"r{n}", "sessionId": "s",
                      "message": {"content": [result]}})  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


@pytest.fixture
def evidence(cli: Cli, tmp_path: Path) -> Path:
    _session(tmp_path / "s.jsonl")
    run = cli("stats", str(tmp_path / "s.jsonl"), "--misroutes", "--no-registry", "-f", "json")
    assert run.exit_code == 0, run.stderr
    out = tmp_path / "misroutes.json"
    out.write_text(run.stdout, encoding="utf-8")
    [pair] = json.loads(run.stdout)["pairs"]
    assert pair["requests"] == [{"text": REQUEST, "count": 1}]  # additive in v1
    return out


def test_learn_takes_each_pairs_requests_as_examples_of_the_winner(
    cli: Cli, tmp_path: Path, evidence: Path
) -> None:
    (tmp_path / "tools.yaml").write_text(CLEAR, encoding="utf-8")
    overlay = tmp_path / "learned.yaml"
    run = cli("learn", "--misroutes", str(evidence), "-r", str(tmp_path / "tools.yaml"),
              "-o", str(overlay))  # fmt: skip
    assert run.exit_code == 0, run.stderr
    assert "1 misroute request read as examples of the tool that then worked" in run.stderr
    text = overlay.read_text(encoding="utf-8")
    assert "list_dir" in text and REQUEST in text
    assert "read_file:" not in text  # the failed tool learns nothing
    assert f"{tmp_path / 's.jsonl'}:2" in text  # the example's source: the failed call


def test_learn_drops_a_winner_the_registry_lacks(cli: Cli, tmp_path: Path, evidence: Path) -> None:
    (tmp_path / "tools.yaml").write_text(
        "tools:\n  - name: read_file\n    description: Read a file.\n", encoding="utf-8"
    )
    run = cli("learn", "--misroutes", str(evidence), "-r", str(tmp_path / "tools.yaml"))
    assert run.exit_code == 1 and "list_dir" in run.stderr  # named, and nothing learned


def test_lint_reports_the_failed_tool_where_rank_does_not_separate_them(
    cli: Cli, tmp_path: Path, evidence: Path
) -> None:
    registry = tmp_path / "tools.yaml"
    registry.write_text(VAGUE, encoding="utf-8")
    run = cli("lint", str(registry), "--misroutes", str(evidence), "--select", "TS708",
              "-f", "json")  # fmt: skip
    [finding] = json.loads(run.stdout)["findings"]
    assert finding["rule"] == "TS708" and finding["tool"] == "read_file"
    assert finding["line"] == 3  # read_file's description, in the registry
    assert "'list_dir' then answered (1 time, e.g." in finding["message"]
    assert run.exit_code == 0  # a warning: `--strict` makes it fail
    strict = cli("lint", str(registry), "--misroutes", str(evidence), "--strict")
    assert strict.exit_code == 1 and "TS708" in strict.stdout
    registry.write_text(CLEAR, encoding="utf-8")
    clear = cli("lint", str(registry), "--misroutes", str(evidence), "--select", "TS708")
    assert clear.exit_code == 0 and "TS708" not in clear.stdout  # rank already separates them
    bare = cli("lint", str(tmp_path / "tools.yaml"), "--select", "TS708")
    assert bare.exit_code == 0  # no evidence, no finding


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "cannot read the misroutes file"),
        ("", "empty misroutes file"),
        ('{"schema": "toolsel.misroutes/v1",\n "pairs": [}', "bad.json:2:12: not JSON"),
        ('{"schema": "toolsel.lint/v1", "pairs": []}', "not a toolsel.misroutes/v1 document"),
        ('{"schema": "toolsel.misroutes/v1", "pairs": [{"loser": 1}]}', "/pairs/0: needs"),
    ],
)
@pytest.mark.parametrize("command", ["learn", "lint"])
def test_a_bad_misroutes_file_is_one_line_and_exit_2(
    cli: Cli, tmp_path: Path, content: str | None, says: str, command: str
) -> None:
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content, encoding="utf-8")
    (tmp_path / "tools.yaml").write_text(CLEAR, encoding="utf-8")
    run = cli(command, "--misroutes", str(bad), "-r", str(tmp_path / "tools.yaml"))
    assert run.exit_code == 2 and run.stderr.count("\n") == 1, run.stderr
    assert says in run.stderr


def test_a_secret_in_a_request_is_masked_in_the_document(cli: Cli, tmp_path: Path) -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    _session(tmp_path / "s.jsonl")
    text = (tmp_path / "s.jsonl").read_text(encoding="utf-8").replace(REQUEST, f"{REQUEST} {token}")
    (tmp_path / "s.jsonl").write_text(text, encoding="utf-8")
    run = cli("stats", str(tmp_path / "s.jsonl"), "--misroutes", "--no-registry", "-f", "json")
    [pair] = json.loads(run.stdout)["pairs"]
    assert token not in run.stdout
    assert pair["requests"] == [{"text": f"{REQUEST} <github-token>", "count": 1}]
