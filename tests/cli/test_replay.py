"""`toolsel replay` through the CLI: the JSON and JSONL contracts, --fail-on, registry
checks, stdin and forced input formats."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli
from tests.fan_out import chain, descending, fan_out, hard_timeout
from toolsel.render.formats import ReplayFormat

T = ROOT / "transcripts"
TOP = sorted(str(p) for p in T.iterdir() if p.is_file())


def test_cli_json_contract_and_default_exit(cli: Cli) -> None:
    run = cli("replay", str(T / "claude-code-session.jsonl"), "-f", "json")
    data = json.loads(run.stdout)
    assert data["schema"] == "toolsel.replay/v1" and run.exit_code == 1  # orphan + conflicting
    (f,) = data["files"]
    assert {
        "path",
        "format",
        "lines",
        "calls",
        "results",
        "paired",
        "unreadable_lines",
        "unanswered_calls",
        "orphan_results",
        "duplicate_calls",
        "duplicate_results",
        "subagents",
        "violations",
        "tools",
    } <= set(f)
    assert data["summary"]["calls"] == 9 and data["summary"]["orphan_results"] == 1


def test_cli_fail_on(cli: Cli) -> None:
    chat = str(T / "openai-chat.jsonl")
    assert cli("replay", chat).exit_code == 0  # unanswered and reused are not failures by default
    assert cli("replay", chat, "--fail-on", "unanswered").exit_code == 1
    assert cli("replay", str(T / "claude-code-session.jsonl"), "--fail-on", "none").exit_code == 0
    run = cli("replay", chat, "--fail-on", "orphan")
    assert run.exit_code == 2 and "did you mean 'orphans'" in run.stderr


def test_cli_jsonl_events(cli: Cli) -> None:
    lines = [
        json.loads(line)
        for line in cli(
            "replay", str(T / "stream-json-task.jsonl"), "-f", "jsonl", "--no-registry"
        ).stdout.splitlines()
    ]
    assert {line["event"] for line in lines} == {"tool_start", "tool_result"}
    child = next(
        line for line in lines if line["id"] == "toolu_c1" and line["event"] == "tool_start"
    )
    assert (child["parent"], child["parent_rule"], child["display_name"]) == (
        "toolu_T",
        "parent_tool_use_id",
        "List Directory",
    )
    assert child["schema"] == "toolsel.replay-event/v1"
    assert set(child) == {
        "schema",
        "event",
        "id",
        "tool",
        "display_name",
        "parent",
        "parent_rule",
        "turn_id",
        "file",
        "line",
        "at",
        "copied",
    }


def test_cli_registry_violations(cli: Cli) -> None:
    run = cli(
        "replay",
        str(T / "openai-chat.jsonl"),
        "-r",
        str(ROOT / "registries"),
        "--permission",
        "write",
        "-f",
        "json",
    )
    violations = json.loads(run.stdout)["files"][0]["violations"]
    rules = {(v["tool"], v["rule"]) for v in violations}
    assert ("deploy_service", "permission") in rules
    # run_tests and check_health (its requires) both succeeded earlier in this transcript
    assert ("deploy_service", "requires") not in rules
    assert run.exit_code == 1


def test_cli_invalid_input_and_unknown_tool(cli: Cli, write) -> None:
    path = write(
        "t.jsonl",
        "\n".join(
            [
                json.dumps(
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "a",
                                "type": "function",
                                "function": {
                                    "name": "read_file",
                                    "arguments": json.dumps({"path": 3}),
                                },
                            }
                        ],
                    }
                ),
                json.dumps(
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "b",
                                "type": "function",
                                "function": {"name": "raed_file", "arguments": "{}"},
                            }
                        ],
                    }
                ),
                json.dumps(
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "c",
                                "type": "function",
                                "function": {
                                    "name": "patch_file",
                                    "arguments": json.dumps(
                                        {"path": "a", "old_text": "x", "new_text": "y"}
                                    ),
                                },
                            }
                        ],
                    }
                ),
                json.dumps(
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "d",
                                "type": "function",
                                "function": {
                                    "name": "rollback_deployment",
                                    "arguments": json.dumps(
                                        {"service": "api", "environment": "staging"}
                                    ),
                                },
                            }
                        ],
                    }
                ),
                json.dumps(
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "e",
                                "type": "function",
                                "function": {
                                    "name": "deploy_service",
                                    "arguments": json.dumps(
                                        {
                                            "service": "api",
                                            "environment": "staging",
                                            "image_tag": "1",
                                        }
                                    ),
                                },
                            }
                        ],
                    }
                ),
            ]
        )
        + "\n",
    )
    data = json.loads(cli("replay", str(path), "-r", str(ROOT / "registries"), "-f", "json").stdout)
    found = {(v["tool"], v["rule"]): v["message"] for v in data["files"][0]["violations"]}
    assert "input at /path is invalid" in found[("read_file", "invalid-input")]
    assert "did you mean 'read_file'" in found[("raed_file", "unknown-tool")]
    # read_file never succeeded (no result), so patch_file's requires is unmet
    assert "requires read_file" in found[("patch_file", "requires")]
    assert "conflicts with 'rollback_deployment'" in found[("deploy_service", "conflict")]


def test_cli_missing_input(cli: Cli, tmp_path) -> None:
    run = cli("replay", str(tmp_path / "nope.jsonl"))
    assert run.exit_code == 2 and "no such file" in run.stderr


def test_stdin(cli: Cli) -> None:
    text = (T / "openai-chat.jsonl").read_text()
    data = json.loads(cli("replay", "-", "-f", "json", input=text).stdout)
    assert data["files"][0]["calls"] == 3


def test_forced_input_format(cli: Cli) -> None:
    chat = str(T / "openai-chat.jsonl")
    wrong = json.loads(
        cli(
            "replay", chat, "--input-format", "claude-code", "-f", "json", "--fail-on", "none"
        ).stdout
    )["files"][0]
    # every line is reported: the chat lines with tool calls as content no decoder read
    assert wrong["calls"] == 0 and len(wrong["unreadable_lines"]) == 4
    assert [u["line"] for u in wrong["unread_tool_records"]] == [3, 5, 7]
    right = json.loads(cli("replay", chat, "--input-format", "openai-chat", "-f", "json").stdout)[
        "files"
    ][0]
    assert right["calls"] == 3 and right["unreadable_lines"] == []
    assert cli("replay", chat, "--input-format", "gemini").exit_code == 2


def test_replay_uses_the_project_registry_by_default(cli: Cli, in_tmp) -> None:
    """`-r` defaults to the project's registry ([tool.toolsel] or ./registries/), as the help
    says, and to none when the project has none (never the bundled example)."""
    import shutil

    transcript = str(T / "openai-chat.jsonl")
    alone = json.loads(cli("replay", transcript, "-f", "json").stdout)
    assert alone["summary"]["violations"] == 0  # no project registry: nothing to check
    (in_tmp / "registries").mkdir()
    (in_tmp / "registries" / "r.yaml").write_text(
        "tools:\n  - {name: read_file, description: Reads a file.}\n"
    )
    checked = json.loads(cli("replay", transcript, "-f", "json").stdout)
    assert checked["summary"]["violations"] > 0  # deploy_service is not in the project's registry
    skipped = json.loads(cli("replay", transcript, "-f", "json", "--no-registry").stdout)
    assert skipped["summary"]["violations"] == 0
    both = cli("replay", transcript, "-r", "registries", "--no-registry")
    assert both.exit_code == 2 and "not both" in both.stderr
    shutil.rmtree(in_tmp / "registries")


def _stream_json_call(message: str, call_id: str, tool: str, arguments: dict[str, object]) -> str:
    return json.dumps(
        {
            "type": "assistant",
            "message": {
                "id": message,
                "role": "assistant",
                "content": [{"type": "tool_use", "id": call_id, "name": tool, "input": arguments}],
            },
            "parent_tool_use_id": None,
        }
    )


def _stream_json_result(call_id: str) -> str:
    return json.dumps(
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": call_id, "content": "ok"}],
            },
            "parent_tool_use_id": None,
        }
    )


def test_an_enriched_call_is_checked_once_its_input_is_complete(cli: Cli, write) -> None:
    """Found by mutation testing: a call whose input arrives in a later line (a streaming
    agent re-emits an enriched tool_use) was reported `invalid-input` and replay exited 1.
    Both ways: in a later message (an enriched duplicate) and in the same message."""
    registry = str(ROOT / "registries")
    path = write(
        "enriched.jsonl",
        "\n".join(
            [
                _stream_json_call("m1", "a", "read_file", {}),
                _stream_json_call("m2", "a", "read_file", {"path": "README.md"}),
                _stream_json_result("a"),
                _stream_json_call("m3", "b", "read_file", {}),
                _stream_json_call("m3", "b", "read_file", {"path": "setup.py"}),
                _stream_json_result("b"),
            ]
        )
        + "\n",
    )
    run = cli("replay", str(path), "-r", registry, "-f", "json", "--fail-on", "violations")
    (report,) = json.loads(run.stdout)["files"]
    assert report["violations"] == [] and run.exit_code == 0, run.stdout
    # a call that stays incomplete is still checked, by the end of the transcript
    incomplete = write("incomplete.jsonl", _stream_json_call("m1", "c", "read_file", {}) + "\n")
    run = cli("replay", str(incomplete), "-r", registry, "-f", "json", "--fail-on", "violations")
    (report,) = json.loads(run.stdout)["files"]
    assert [v["rule"] for v in report["violations"]] == ["invalid-input"]
    assert run.exit_code == 1


def _call(tool: str, arguments: object, index: int = 1) -> str:
    message = {"role": "assistant", "content": None, "tool_calls": [{"id": f"c{index}", "type": "function", "function": {"name": tool, "arguments": json.dumps(arguments)}}]}  # fmt: skip
    return json.dumps(message)


def test_replay_reports_a_schema_that_fans_out_and_finishes(
    cli: Cli, write: Callable[..., Path]
) -> None:
    """Issue 17: 40 levels of `$defs`, each applying the next twice (a 3 KB schema), hung
    `replay -r`; and a schema whose work multiplies with the input's depth."""
    registry = write("r.json", json.dumps({"tools": [
        {"name": "boom", "description": "d", "parameters": fan_out(40)},
        {"name": "deep", "description": "d", "parameters": descending(40)},
    ]}))  # fmt: skip
    transcript = write("t.jsonl", _call("boom", {"x": "v"}) + "\n" + _call("deep", {"x": chain(40)}, 2) + "\n")  # fmt: skip
    with hard_timeout(120):
        run = cli("replay", str(transcript), "-r", str(registry), "-f", "json")
    assert run.exit_code == 1  # violations fail by default
    violations = json.loads(run.stdout)["files"][0]["violations"]
    assert [(v["tool"], v["rule"]) for v in violations] == [
        ("boom", "not-checked"),
        ("deep", "not-checked"),
    ]
    assert violations[0]["message"].startswith("schema too costly to validate: `$ref: #/$defs/l0` at #/properties/x applies")  # fmt: skip
    assert violations[1]["message"].startswith("schema too costly to validate (over ")
    human = cli("replay", str(transcript), "-r", str(registry))
    assert "not-checked: schema too costly to validate" in human.stdout and human.exit_code == 1
    assert cli("replay", str(transcript), "-r", str(registry), "--fail-on", "none").exit_code == 0


# -- --jobs and --since -----------------------------------------------------------------------

CORPUS = str(ROOT / "tests" / "corpus" / "transcripts")


@pytest.fixture
def pool_for_few_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker processes even for a handful of files, so that --jobs 2 takes the pool."""
    from toolsel.replay import parallel

    monkeypatch.setattr(parallel, "MIN_FILES", 2)


@pytest.mark.usefixtures("pool_for_few_files")
@pytest.mark.parametrize("fmt", [f.value for f in ReplayFormat])
@pytest.mark.parametrize(
    "args",
    [[str(T), CORPUS, "--no-registry"], [str(T), CORPUS, "-r", str(ROOT / "registries")]],
    ids=["no-registry", "registry"],
)
def test_jobs_give_byte_identical_output(cli: Cli, fmt: str, args: list[str]) -> None:
    one = cli("replay", *args, "-f", fmt, "--jobs", "1")
    two = cli("replay", *args, "-f", fmt, "-j", "2")
    assert one.stdout and (one.stdout, one.stderr, one.exit_code) == (
        two.stdout,
        two.stderr,
        two.exit_code,
    )


def test_since_skips_files_last_modified_before(cli: Cli, tmp_path: Path) -> None:
    for name in ("old.jsonl", "new.jsonl"):
        (tmp_path / name).write_bytes((T / "openai-chat.jsonl").read_bytes())
    old = datetime(2025, 6, 1, tzinfo=UTC).timestamp()
    os.utime(tmp_path / "old.jsonl", (old, old))
    run = cli("replay", str(tmp_path), "--since", "2026-01-01", "-f", "json", "--no-registry")
    assert [Path(f["path"]).name for f in json.loads(run.stdout)["files"]] == ["new.jsonl"]
    run = cli("replay", str(tmp_path), "--since", "100000d", "-f", "json", "--no-registry")
    assert len(json.loads(run.stdout)["files"]) == 2


@pytest.mark.parametrize(
    ("since", "said"),
    [
        ("yesterday", "'yesterday' is not an ISO 8601"),
        ("2026-01-05+05:00", "'2026-01-05+05:00': a date is followed by its time after a T"),
    ],
)
def test_a_bad_since_is_one_line(cli: Cli, since: str, said: str) -> None:
    run = cli("replay", str(T), "--since", since)
    assert run.exit_code == 2 and run.stdout == ""
    assert run.stderr.startswith(f"toolsel: error: --since: {said}")
    assert len(run.stderr.strip().splitlines()) <= 2  # the error, and a hint at most


@pytest.mark.usefixtures("pool_for_few_files")
def test_a_file_that_cannot_be_read_is_the_same_one_line_from_a_worker(
    cli: Cli, tmp_path: Path
) -> None:
    for name in ("a.jsonl", "b.jsonl", "c.jsonl"):
        (tmp_path / name).write_bytes((T / "openai-chat.jsonl").read_bytes())
    (tmp_path / "d.jsonl").symlink_to(tmp_path / "missing")
    one = cli("replay", str(tmp_path), "-j", "1")
    two = cli("replay", str(tmp_path), "-j", "2")
    assert one.exit_code == two.exit_code == 2
    assert one.stderr == two.stderr
    assert one.stderr.startswith(f"toolsel: error: {tmp_path / 'd.jsonl'}: cannot read")


def test_an_argument_value_quoted_in_a_violation_is_masked(cli: Cli, write) -> None:  # type: ignore[no-untyped-def]
    registry = write(
        "r.yaml",
        "tools:\n- name: search\n  description: Search the web for pages about a topic.\n"
        "  parameters: {type: object, properties: {limit: {type: integer}}}\n",
    )
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2
    transcript = write(
        "t.jsonl",
        '{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": '
        f'{{"name": "search", "arguments": "{{\\"limit\\": \\"{token}\\"}}"}}}}]}}\n'
        '{"role": "tool", "tool_call_id": "c1", "content": "ok"}\n',
    )
    for output in ("human", "json"):
        run = cli("replay", str(transcript), "-r", str(registry), "-f", output)
        assert run.exit_code == 1, run.stderr
        assert token not in run.stdout and "<github-token>" in run.stdout
