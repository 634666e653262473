"""Why calls failed: an error result's first line, made safe (`error_message`), the form
stats counts it under (`normalise`), and the message in every output that carries it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Cli
from toolsel.replay.failures import MAX_CHARS, error_message, normalise


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("<tool_use_error>File does not exist: a.py</tool_use_error>", "File does not exist: a.py"),
        ("\n  \nfirst\nsecond", "first"),
        ([{"type": "text", "text": "boom 1"}, {"type": "text", "text": "later"}], "boom 1"),
        ({"error": {"message": "quota exceeded"}}, "quota exceeded"),
        ("\x1b[31mred\x1b[0m alert\x07", "red alert"),
        ({"exit_code": 3}, ""),
        (None, ""),
        # Cursor's outcomes: an error's errorMessage, a shell run's stderr under success
        ({"error": {"errorMessage": "not found"}}, "not found"),
        ({"success": {"exitCode": 1, "stderr": "killed"}}, "killed"),
        ({"rejected": {"reason": "user said no"}}, ""),
        ({"rejected": "user said no"}, "user said no"),
        # Gemini's recorded result: parts, a functionResponse, its response, its error
        ([{"functionResponse": {"id": "f1", "response": {"error": "no such file"}}}], "no such file"),
        # Kimi's tool message: its status line, unwrapped
        ([{"type": "text", "text": "<system>ERROR: exit 1.</system>"}, {"type": "text", "text": "x"}],
         "ERROR: exit 1."),
    ],
)  # fmt: skip
def test_the_first_line_is_kept_without_escapes(content: object, message: str) -> None:
    assert error_message(content) == message


def test_a_long_line_is_cut_and_a_secret_is_masked() -> None:
    token = "ghp_" + "a1B2" * 9
    said = error_message(f"auth failed for {token} " + "x" * 500)
    assert token not in said and "<github-token>" in said
    assert len(said) == MAX_CHARS and said.endswith("…")


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("File does not exist: a.py", "File does not exist: b.py"),
        ("Path does not exist: /home/dev/lib1", "Path does not exist: C:\\work\\lib22"),
        ("exit code 1 after 3.5 s", "exit code 127 after 12 s"),
        ("GET https://x.test/a?id=1 failed", "GET http://y.test/ failed"),
        ("session 3f2a9b7c1d0e gone", "session 0a1b2c3d4e5f6a7b gone"),
    ],
)
def test_what_differs_between_calls_is_normalised_away(one: str, other: str) -> None:
    assert normalise(one) == normalise(other)
    assert normalise(one) != normalise("something else entirely")


def _session(path: Path) -> None:
    """Three failing Read calls (two of one kind), and one that succeeds."""
    lines = []
    for n, (said, error) in enumerate(
        [("File does not exist: a.py", True), ("File does not exist: b.py", True),
         ("Permission denied", True), ("fine", False)]
    ):  # fmt: skip
        lines.append({"type": "assistant", "uuid": f"a{n}", "sessionId": "s", "message": {"id": f"m{n}", "content": [{"type": "tool_use", "id": f"t{n}", "name": "Read", "input": {}}]}})  # fmt: skip
        lines.append({"type": "user", "uuid": f"u{n}", "sessionId": "s", "message": {"content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": said, "is_error": error}]}})  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_every_output_carries_the_message(cli: Cli, tmp_path: Path) -> None:
    _session(tmp_path / "s.jsonl")
    path = str(tmp_path / "s.jsonl")
    (report,) = json.loads(cli("replay", path, "--no-registry", "-f", "json").stdout)["files"]
    assert [(f["id"], f["line"], f["message"]) for f in report["failed_calls"]] == [
        ("t0", 2, "File does not exist: a.py"),
        ("t1", 4, "File does not exist: b.py"),
        ("t2", 6, "Permission denied"),
    ]
    stats = json.loads(cli("stats", path, "--no-registry", "-f", "json").stdout)
    assert stats["tools"]["Read"]["top_errors"] == [
        {"message": "File does not exist: <path>", "count": 2},
        {"message": "Permission denied", "count": 1},
    ]
    human = cli("stats", path, "--no-registry").stdout
    assert "2× File does not exist: <path>" in human
    lines = cli("replay", path, "--no-registry", "-f", "jsonl").stdout.splitlines()
    results = [json.loads(line) for line in lines if '"tool_result"' in line]
    assert [(r["id"], r["error_text"]) for r in results if r["is_error"]] == [
        ("t0", "File does not exist: a.py"),
        ("t1", "File does not exist: b.py"),
        ("t2", "Permission denied"),
    ]
    assert all(r["error_text"] is None for r in results if not r["is_error"])
    assert all(isinstance(r["result_bytes"], int) for r in results)
    pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    out = tmp_path / "events"
    assert cli("export", path, "-o", str(out)).exit_code == 0
    events = json.loads(cli("stats", "--events", str(out), "--no-registry", "-f", "json").stdout)
    assert events["tools"]["Read"]["top_errors"] == stats["tools"]["Read"]["top_errors"]
