"""`toolsel learn` through the CLI: from cases, from transcripts, and what it refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, Cli

REG = str(ROOT / "registries")
CASES = str(ROOT / "tests" / "selection" / "registries.eval.jsonl")
GOLDEN = str(ROOT / "tests" / "selection" / "registries.yaml")


def _examples(path: Path) -> dict[str, list[str]]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))["examples"]


def test_learn_from_cases_writes_a_sorted_overlay_with_sources(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "learned.yaml"
    run = cli("learn", "--cases", CASES, "-o", str(out))
    assert run.exit_code == 0, run.stderr
    examples = _examples(out)
    assert list(examples) == sorted(examples)
    assert "deploy the billing service to production" in examples["deploy_service"]
    # every expected tool of a case gets its query
    assert "the site is down, check what is wrong" in examples["check_health"]
    assert "the site is down, check what is wrong" in examples["get_service_logs"]
    text = out.read_text(encoding="utf-8")
    assert "registries.eval.jsonl:1" in text  # provenance comment
    assert "learned" in run.stderr and "examples for" in run.stderr
    # the overlay loads as a registry file and ranks with its examples
    again = cli(
        "rank", "-r", REG, "-r", str(out), "deploy the billing service to production", "-f", "json"
    )
    assert json.loads(again.stdout)["results"][0]["name"] == "deploy_service"


def test_learn_is_deterministic(cli: Cli, tmp_path: Path) -> None:
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    cli("learn", "--cases", CASES, "--cases", GOLDEN, "-o", str(a))
    cli("learn", "--cases", GOLDEN, "--cases", CASES, "-o", str(b))
    assert _examples(a) == _examples(b)


def test_learn_with_registry_drops_and_reports_unknown_tools(cli: Cli, write) -> None:
    cases = write(
        "c.jsonl",
        '{"id": "a", "query": "ship it", "expected": ["deploy_service"]}\n'
        '{"id": "b", "query": "frobnicate", "expected": ["ghost_tool"]}\n',
    )
    out = cases.parent / "o.yaml"
    run = cli("learn", "--cases", str(cases), "-r", REG, "-o", str(out))
    assert run.exit_code == 0
    assert list(_examples(out)) == ["deploy_service"]
    assert "1 tool not in the registry dropped (ghost_tool)" in run.stderr


def test_learn_replaces_secrets_by_placeholders_and_drops_redact_patterns(cli: Cli, write) -> None:
    lines = [
        ("email bob@example.com the report", "send_email"),
        ("use key sk-ant-abcdefghijklmnopqrstuvwxyz", "http_request"),
        ("email the report to finance", "send_email"),
        ("deploy project-x to prod", "deploy_service"),
        ("deploy the api", "deploy_service"),
        ("page me on (415) 555-0132 if it fails", "page_oncall"),
        ("jane@example.com", "send_email"),  # nothing but an address: dropped
    ]
    cases = write(
        "c.jsonl",
        "".join(json.dumps({"query": q, "expected": [t]}) + "\n" for q, t in lines),
    )
    out = cases.parent / "o.yaml"
    run = cli("learn", "--cases", str(cases), "--redact", "project-x", "-o", str(out))
    assert run.exit_code == 0, run.stderr
    text = out.read_text(encoding="utf-8")
    for leak in ("bob@example.com", "sk-ant", "project-x", "555-0132", "jane@"):
        assert leak not in text
    assert _examples(out) == {
        "deploy_service": ["deploy the api"],
        "http_request": ["use key <api-key>"],
        "page_oncall": ["page me on <phone> if it fails"],
        "send_email": ["email <email> the report", "email the report to finance"],
    }
    assert (
        "3 prompts kept with secrets or personal data replaced (<api-key> x1, <email> x1, "
        "<phone> x1)" in run.stderr
    )
    assert "1 prompt that was only a secret or personal data dropped" in run.stderr
    assert "1 prompt matching --redact dropped" in run.stderr
    # lint reads the overlay and does not take the placeholders for secrets (TS704)
    lint = cli("lint", REG, str(out), "--select", "TS704")
    assert lint.exit_code == 0, lint.stdout


def test_placeholders_do_not_pull_other_prompts_to_the_tool(cli: Cli, write) -> None:
    """Support prompts full of addresses teach `search_issues` the word "email" (which is
    what they were about), not to answer for e-mail in general."""
    people = ["bob", "ann", "li", "omar", "zoe", "sam"]
    lines = [
        {"query": f"find the tickets {name}@example.com opened", "expected": ["search_issues"]}
        for name in people
    ] + [{"query": "email the report to finance", "expected": ["send_email"]}]
    cases = write("c.jsonl", "".join(json.dumps(line) + "\n" for line in lines))
    out = cases.parent / "o.yaml"
    assert cli("learn", "--cases", str(cases), "-r", REG, "-o", str(out)).exit_code == 0
    assert _examples(out)["search_issues"] == ["find the tickets <email> opened"]

    def first(query: str) -> str:
        run = cli("rank", "-r", REG, "-r", str(out), query, "-f", "json")
        return str(json.loads(run.stdout)["results"][0]["name"])

    assert first("send an email to the team") == "send_email"
    assert first("find the tickets jane@example.org opened") == "search_issues"


def test_learn_leaves_out_pasted_prompts_over_max_chars(cli: Cli, write) -> None:
    from toolsel.learn import MAX_CHARS

    pasted = "fix this: " + "def f(x): return x + 1; " * 120  # a pasted file
    assert len(pasted) > MAX_CHARS
    lines = [
        {"id": "a", "query": pasted, "expected": ["read_file"]},
        {"id": "b", "query": "read the config file", "expected": ["read_file"]},
        {"id": "c", "query": "x" * 40, "expected": ["read_file"]},
    ]
    cases = write("c.jsonl", "".join(json.dumps(line) + "\n" for line in lines))
    out = cases.parent / "o.yaml"
    run = cli("learn", "--cases", str(cases), "-o", str(out))
    assert _examples(out) == {"read_file": ["read the config file", "x" * 40]}
    assert "1 prompt over --max-chars left out" in run.stderr
    run = cli("learn", "--cases", str(cases), "--max-chars", "30", "-o", str(out))
    assert _examples(out) == {"read_file": ["read the config file"]}
    assert "2 prompts over --max-chars left out" in run.stderr
    cli("learn", "--cases", str(cases), "--max-chars", "0", "-o", str(out))
    assert len(_examples(out)["read_file"]) == 3
    for bad in ("-1", "many", ""):
        run = cli("learn", "--cases", str(cases), "--max-chars", bad, "-o", str(out))
        assert run.exit_code == 2 and "--max-chars" in run.stderr
        assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1
    # the CLI's default is the library's
    default = cli("learn", "--help").stdout
    assert f"default: {MAX_CHARS}" in " ".join(default.split()).replace("[", " ")


def test_learn_max_per_tool_and_min_count(cli: Cli, write) -> None:
    lines = [
        {"id": f"q{i}", "query": q, "expected": ["read_file"]}
        for i, q in enumerate(
            ["read the config", "read the config file", "show me the readme", "open main.py"]
        )
    ] + [{"id": "x", "query": "deploy", "expected": ["deploy_service"]}]
    cases = write("c.jsonl", "".join(json.dumps(line) + "\n" for line in lines))
    out = cases.parent / "o.yaml"
    cli("learn", "--cases", str(cases), "--max-per-tool", "2", "--min-count", "2", "-o", str(out))
    examples = _examples(out)
    assert list(examples) == ["read_file"]  # deploy_service was seen once
    assert len(examples["read_file"]) == 2
    # diverse, not two rephrasings of one request
    assert not {"read the config", "read the config file"} <= set(examples["read_file"])


def test_learn_merge_adds_without_duplicates_and_keeps_sources(cli: Cli, write) -> None:
    first = write("a.jsonl", '{"id": "a", "query": "ship it", "expected": ["deploy_service"]}\n')
    second = write(
        "b.jsonl",
        '{"id": "a", "query": "ship it", "expected": ["deploy_service"]}\n'
        '{"id": "b", "query": "release now", "expected": ["deploy_service"]}\n',
    )
    out = first.parent / "o.yaml"
    cli("learn", "--cases", str(first), "-o", str(out))
    run = cli("learn", "--cases", str(second), "-o", str(out), "--merge")
    assert run.exit_code == 0
    assert _examples(out) == {"deploy_service": ["release now", "ship it"]}
    assert "a.jsonl:1" in out.read_text(encoding="utf-8")  # the kept example's source
    again = cli("learn", "--cases", str(second), "-o", str(out), "--merge")
    assert again.exit_code == 0 and "already has every example" in again.stderr


def test_learn_never_overwrites_a_file_that_is_not_an_overlay(cli: Cli, write) -> None:
    registry = write("tools.yaml", "tools:\n  - name: a\n    description: d\n")
    before = registry.read_bytes()
    run = cli("learn", "--cases", CASES, "-o", str(registry))
    assert run.exit_code == 2 and "not an examples overlay" in run.stderr
    assert registry.read_bytes() == before
    assert cli("learn", "-o", str(registry)).exit_code == 2  # nothing to learn from
    assert cli("learn", "--cases", CASES, "--merge").exit_code == 2  # --merge needs -o


def test_learn_from_transcripts(cli: Cli, write) -> None:
    session = write(
        "s.jsonl",
        "\n".join(
            json.dumps(line)
            for line in [
                {"type": "user", "message": {"role": "user", "content": "list the src folder"}},
                {
                    "type": "assistant",
                    "message": {
                        "role": "assistant",
                        "content": [
                            {"type": "tool_use", "id": "t1", "name": "list_directory", "input": {}},
                            {"type": "tool_use", "id": "t2", "name": "read_file", "input": {}},
                        ],
                    },
                },
                {
                    "type": "user",
                    "message": {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": "t1", "content": "a.py"},
                            {
                                "type": "tool_result",
                                "tool_use_id": "t2",
                                "content": "no",
                                "is_error": True,
                            },
                        ],
                    },
                },
            ]
        )
        + "\n",
    )
    out = session.parent / "o.yaml"
    run = cli("learn", "--transcripts", str(session), "-o", str(out))
    assert run.exit_code == 0, run.stderr
    # the failed call teaches nothing; the tool result is never an example
    assert _examples(out) == {"list_directory": ["list the src folder"]}
    assert "s.jsonl:1" in out.read_text(encoding="utf-8")


def test_learn_on_transcripts_without_human_prompts_writes_nothing(cli: Cli, write) -> None:
    transcript = write(
        "t.jsonl",
        json.dumps(
            {
                "type": "assistant",
                "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
            }
        )
        + "\n",
    )
    out = transcript.parent / "o.yaml"
    run = cli("learn", "--transcripts", str(transcript), "-o", str(out))
    assert run.exit_code == 1 and "no human prompts" in run.stderr
    assert not out.exists()


def test_learn_says_why_when_every_example_found_is_left_out(cli: Cli, write) -> None:
    cases = write(
        "c.jsonl",
        '{"id": "a", "query": "run the shell command", "expected": ["Bash"]}\n'
        '{"id": "b", "query": "bob@example.com", "expected": ["send_email"]}\n',
    )
    out = cases.parent / "o.yaml"
    run = cli("learn", "--cases", str(cases), "-r", REG, "-o", str(out))
    assert run.exit_code == 1 and not out.exists()
    assert "all 2 found were left out" in run.stderr and "no usable cases" not in run.stderr
    assert "1 prompt that was only a secret or personal data dropped" in run.stderr
    assert "1 tool not in the registry dropped (Bash)" in run.stderr


def test_learn_reports_unreadable_case_lines_and_goes_on(cli: Cli, write) -> None:
    cases = write(
        "c.jsonl", '{"id": "a", "query": "ship it", "expected": ["deploy_service"]}\nnot json\n'
    )
    out = cases.parent / "o.yaml"
    run = cli("learn", "--cases", str(cases), "-o", str(out))
    assert run.exit_code == 1 and "c.jsonl:2" in run.stderr
    assert _examples(out) == {"deploy_service": ["ship it"]}


def test_learn_bad_inputs_are_one_line_errors(cli: Cli, write) -> None:
    empty = write("empty.jsonl", "")
    run = cli("learn", "--cases", str(empty), "-o", str(empty.parent / "o.yaml"))
    assert run.exit_code == 2 and "not a case file: it is empty" in run.stderr
    binary = write("bin.jsonl", b"\x00\x01\x02" * 100)
    run = cli("learn", "--cases", str(binary))
    assert run.exit_code == 2 and "not a case file: binary data" in run.stderr
    missing = cli("learn", "--cases", str(empty.parent / "nope.jsonl"))
    assert missing.exit_code == 2 and "nope.jsonl" in missing.stderr
    bad_regex = cli("learn", "--cases", CASES, "--redact", "(")
    assert bad_regex.exit_code == 2 and "--redact" in bad_regex.stderr
    huge = write("huge.jsonl", '{"query": "' + "x" * 2_000_000 + '", "expected": ["a"]}\n')
    run = cli("learn", "--cases", str(huge))
    assert run.exit_code == 2 and "huge.jsonl:1: line is 2,000,032 bytes" in run.stderr
    assert "no case could be read" in run.stderr and len(run.stderr.splitlines()) == 1


def test_learn_keeps_hostile_prompts_as_data(cli: Cli, write) -> None:
    cases = write(
        "c.jsonl",
        json.dumps(
            {
                "query": "clear \u001b[2J screen \u202e and [bold]x[/bold]",
                "expected": ["a\u001b]0;t\u0007b"],
            }
        )
        + "\n",
    )
    out = cases.parent / "o.yaml"
    run = cli("learn", "--cases", str(cases), "-o", str(out))
    assert run.exit_code == 0
    assert "\u001b" not in out.read_text(encoding="utf-8") and "\u001b" not in run.stderr
    assert _examples(out) == {
        "a\u001b]0;t\u0007b": ["clear \u001b[2J screen \u202e and [bold]x[/bold]"]
    }


def _session(write, name: str, turns: list[tuple[str, str]]) -> Path:
    """A Claude Code transcript: each (prompt, tool) is a human turn and a successful call."""
    lines: list[dict[str, object]] = []
    for number, (prompt, tool) in enumerate(turns):
        call = {"type": "tool_use", "id": f"t{number}", "name": tool, "input": {}}
        result = {"type": "tool_result", "tool_use_id": f"t{number}", "content": "ok"}
        lines += [
            {"type": "user", "message": {"role": "user", "content": prompt}},
            {"type": "assistant", "message": {"role": "assistant", "content": [call]}},
            {"type": "user", "message": {"role": "user", "content": [result]}},
        ]
    return write(name, "".join(json.dumps(line) + "\n" for line in lines))


def test_one_transcript_call_does_not_put_a_dangerous_tool_first(cli: Cli, write) -> None:
    """`delete_file` is `dangerous`: one call after a vague request must not make rank
    offer it first for that request. Its transcript examples are left out unless asked."""
    prompt = "tidy up the build output folder"
    session = _session(
        write, "s.jsonl", [(prompt, "delete_file"), ("list the src folder", "list_directory")]
    )
    out = session.parent / "o.yaml"

    def first(*overlay: str) -> str:
        run = cli("rank", "-r", REG, *overlay, prompt, "-f", "json")
        return str(json.loads(run.stdout)["results"][0]["name"])

    assert first() != "delete_file"
    run = cli("learn", "--transcripts", str(session), "-r", REG, "-o", str(out))
    assert run.exit_code == 0, run.stderr
    assert _examples(out) == {"list_directory": ["list the src folder"]}
    assert (
        "1 transcript example for dangerous tools left out (delete_file; "
        "--include-dangerous learns them)" in run.stderr
    )
    assert first("-r", str(out)) != "delete_file"
    # asked for, it is learned (and then it does come first: what the default prevents)
    run = cli(
        "learn", "--transcripts", str(session), "-r", REG, "-o", str(out), "--include-dangerous"
    )
    assert run.exit_code == 0 and "dangerous" not in run.stderr
    assert _examples(out)["delete_file"] == [prompt]
    assert first("-r", str(out)) == "delete_file"


def test_dangerous_tools_keep_their_labelled_cases(cli: Cli, write) -> None:
    """A case says what should be chosen; only transcripts (what an agent did) are held back."""
    cases = write(
        "c.jsonl",
        json.dumps({"query": "remove the old config", "expected": ["delete_file"]}) + "\n",
    )
    out = cases.parent / "o.yaml"
    run = cli("learn", "--cases", str(cases), "-r", REG, "-o", str(out))
    assert run.exit_code == 0 and _examples(out) == {"delete_file": ["remove the old config"]}


def test_without_a_registry_learn_says_it_could_not_tell_dangerous_tools(cli: Cli, write) -> None:
    session = _session(write, "s.jsonl", [("tidy up the build output", "delete_file")])
    run = cli("learn", "--transcripts", str(session), "-o", str(session.parent / "o.yaml"))
    assert run.exit_code == 0
    assert "without -r, learn cannot tell which tools are dangerous" in run.stderr


def test_a_tool_named_with_an_emoji_round_trips(cli: Cli, write) -> None:
    """A tool name beyond the Basic Multilingual Plane is written so toolsel reads it back."""
    registry = write(
        "tools.yaml",
        'tools:\n  - name: "deploy_🚀"\n    description: Ship the service to production.\n'
        "  - name: read_file\n    description: Read a file from disk.\n",
    )
    session = _session(write, "s.jsonl", [("launch the rocket 🚀 to prod", "deploy_🚀")])
    out = registry.parent / "o.yaml"
    run = cli("learn", "--transcripts", str(session), "-r", str(registry), "-o", str(out))
    assert run.exit_code == 0, run.stderr
    assert _examples(out) == {"deploy_🚀": ["launch the rocket 🚀 to prod"]}
    rank = cli("rank", "-r", str(registry), "-r", str(out), "launch the rocket", "-f", "json")
    assert rank.exit_code == 0, rank.stderr
    assert json.loads(rank.stdout)["results"][0]["name"] == "deploy_🚀"
    lint = cli("lint", str(registry), str(out), "-f", "json")
    assert "TS001" not in lint.stdout
    again = cli(
        "learn", "--transcripts", str(session), "-r", str(registry), "-o", str(out), "--merge"
    )
    assert again.exit_code == 0 and "already has every example" in again.stderr


# -- learn and lint agree -------------------------------------------------------------------


def _readme_learn_commands() -> list[list[str]]:
    """The `toolsel learn --cases` commands of the documented learn section, as written."""
    import shlex

    text = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    section = text[text.index("## `toolsel learn`") :]
    section = section[: section.index("\n## ", 1)]
    return [
        shlex.split(line)[1:]
        for line in section.splitlines()
        if line.startswith("toolsel learn --cases")
    ]


def test_the_readme_learn_flow_ends_with_a_clean_strict_lint(
    cli: Cli, in_tmp: Path, monkeypatch
) -> None:
    monkeypatch.chdir(ROOT)  # the README's paths are relative to the repository
    commands = _readme_learn_commands()
    assert commands, "the README's learn section has no `toolsel learn --cases` command"
    for args in commands:
        out = in_tmp / "learned.yaml"
        args = [str(out) if a == "learned.yaml" else a for a in args]
        if "-o" not in args:
            args += ["-o", str(out)]
        run = cli(*args)
        assert run.exit_code == 0, run.stderr
        assert "learned " in run.stderr
        linted = cli("lint", "--strict", "registries/", str(out))
        assert linted.exit_code == 0, linted.stdout
        assert "TS702" not in linted.stdout and "TS703" not in linted.stdout
        out.unlink()


def _learn_json(cli: Cli, cases: Path, *extra: str) -> tuple[dict[str, list[str]], str]:
    out = cases.parent / "o.yaml"
    run = cli("learn", "--cases", str(cases), "-r", REG, "-o", str(out), *extra)
    assert run.exit_code == 0, run.stderr
    return _examples(out), run.stderr


def test_learn_gives_a_multi_tool_prompt_to_each_of_its_tools(cli: Cli, write) -> None:
    """A prompt that needs two tools ranks one of them first by design: it is an example of
    both, never of the first alone (issue 32)."""
    cases = write(
        "c.yaml",
        "cases:\n"
        "  - prompt: deploy the billing service to production\n"
        "    expect: [deploy_service]\n"
        "  - prompt: file a bug about the login page\n"
        "    expect: [create_issue, search_issues]\n",
    )
    examples, stderr = _learn_json(cli, cases)
    assert examples == {
        "deploy_service": ["deploy the billing service to production"],
        "create_issue": ["file a bug about the login page"],
        "search_issues": ["file a bug about the login page"],
    }
    assert "left out" not in stderr
    assert "learned 3 examples for 3 tools" in stderr


def test_learn_leaves_out_an_example_that_ranks_a_tool_the_case_does_not_expect(
    cli: Cli, write
) -> None:
    cases = write(
        "c.yaml",
        "cases:\n"
        "  - prompt: deploy the billing service to production\n"
        "    expect: [deploy_service]\n"
        "  - prompt: create_issue\n"
        "    expect: [deploy_service]\n",
    )
    examples, stderr = _learn_json(cli, cases)
    assert examples == {"deploy_service": ["deploy the billing service to production"]}
    assert "left out deploy_service: 'create_issue' ranks 'create_issue' first" in stderr
    assert "(TS702; " in stderr and "c.yaml:4)" in stderr
    assert "1 example lint would flag left out (TS702, ranks another tool first: 1)" in stderr


def test_learn_keeps_the_same_example_for_two_tools_that_do_not_conflict(cli: Cli, write) -> None:
    # nothing in "do it" to rank on (TS702 cannot tell): both tools keep it
    cases = write("c.jsonl", '{"prompt": "do it", "expect": ["deploy_service", "run_tests"]}\n')
    examples, stderr = _learn_json(cli, cases)
    assert examples == {"deploy_service": ["do it"], "run_tests": ["do it"]}
    assert "left out" not in stderr


def test_learn_leaves_out_an_example_a_conflicting_tool_of_the_registry_has(
    cli: Cli, write
) -> None:
    registry = write(
        "reg.yaml",
        "tools:\n"
        "  - {name: tidy_workspace, description: Remove build output., examples: [do it],\n"
        "     conflicts: [run_tests]}\n"
        "  - {name: run_tests, description: Run the unit tests.}\n",
    )
    cases = write("c.jsonl", '{"prompt": "Do  it", "expect": ["run_tests"]}\n')
    out = cases.parent / "o.yaml"
    run = cli("learn", "--cases", str(cases), "-r", str(registry), "-o", str(out))
    assert run.exit_code == 1 and not out.exists()
    assert "also an example of 'tidy_workspace', which conflicts with it (TS703" in run.stderr
    assert "all 1 found were left out" in run.stderr


def test_learn_keeps_an_example_a_tool_without_conflicts_has_too(cli: Cli, write) -> None:
    registry = write(
        "reg.yaml",
        "tools:\n"
        "  - {name: tidy_workspace, description: Remove build output., examples: [do it]}\n"
        "  - {name: run_tests, description: Run the unit tests.}\n",
    )
    cases = write("c.jsonl", '{"prompt": "Do  it", "expect": ["run_tests"]}\n')
    out = cases.parent / "o.yaml"
    run = cli("learn", "--cases", str(cases), "-r", str(registry), "-o", str(out))
    assert run.exit_code == 0, run.stderr
    assert _examples(out) == {"run_tests": ["Do it"]}


def test_learn_without_a_registry_cannot_check_and_keeps_every_example(
    cli: Cli, tmp_path: Path
) -> None:
    out = tmp_path / "o.yaml"
    run = cli("learn", "--cases", CASES, "-o", str(out))
    assert run.exit_code == 0
    assert "lint would flag" not in run.stderr
    assert "the site is down, check what is wrong" in _examples(out)["get_service_logs"]


def test_learn_merge_keeps_what_the_overlay_had_even_if_lint_flags_it(cli: Cli, write) -> None:
    out = write(
        "o.yaml",
        "# toolsel examples overlay (written by `toolsel learn`; edit freely)\n"
        "examples:\n  create_issue:\n    - file a bug about the login page\n",
    )
    cases = write("c.jsonl", '{"prompt": "ship the billing build", "expect": ["deploy_service"]}\n')
    run = cli("learn", "--cases", str(cases), "-r", REG, "-o", str(out), "--merge")
    assert run.exit_code == 0, run.stderr
    assert _examples(out)["create_issue"] == ["file a bug about the login page"]
    assert "lint would flag" not in run.stderr


def test_jobs_learn_the_same_overlay(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.replay.archive import write_archive
    from toolsel.replay import parallel

    monkeypatch.setattr(parallel, "MIN_FILES", 2)
    write_archive(tmp_path / "archive", 20, seed=4, resumed=0.4)
    one = cli("learn", "--transcripts", str(tmp_path / "archive"), "-j", "1")
    two = cli("learn", "--transcripts", str(tmp_path / "archive"), "--jobs", "2")
    assert one.exit_code == 0 and "please" in one.stdout
    assert (one.stdout, one.stderr) == (two.stdout, two.stderr)
    none = cli("learn", "--transcripts", str(tmp_path / "archive"), "--since", "2099-01-01")
    assert none.exit_code == 2 and none.stdout == ""
    assert "no transcript file was modified since 2099-01-01T00:00:00.000Z" in none.stderr


def test_jobs_learn_the_same_overlay_when_the_pool_is_pruned(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pruning happens as each file is joined, in path order, in one process or several:
    the same prompts are let go, and the overlay and summary are the same byte for byte."""
    from tests.replay.archive import write_archive
    from toolsel.learn import mine
    from toolsel.replay import parallel

    monkeypatch.setattr(parallel, "MIN_FILES", 2)
    monkeypatch.setattr(mine, "POOL_FLOOR", 2)
    monkeypatch.setattr(mine, "POOL_PER_EXAMPLE", 1)
    write_archive(tmp_path / "archive", 30, seed=6, resumed=0.5)
    archive = str(tmp_path / "archive")
    one = cli("learn", "--transcripts", archive, "--max-per-tool", "2", "-j", "1")
    two = cli("learn", "--transcripts", archive, "--max-per-tool", "2", "--jobs", "2")
    assert one.exit_code == 0 and "please" in one.stdout
    assert (one.stdout, one.stderr) == (two.stdout, two.stderr)
    assert "rarer prompts let go while mining, each tool keeping its 2 most frequent" in one.stderr
    every = cli("learn", "--transcripts", archive, "--max-per-tool", "0")
    assert "let go" not in every.stderr


def test_transcripts_learn_at_most_50_per_tool_by_default_and_cases_all(
    cli: Cli, tmp_path: Path, write
) -> None:
    from tests.replay.archive import write_archive

    write_archive(tmp_path / "archive", 60, seed=2)
    archive = str(tmp_path / "archive")
    capped = cli("learn", "--transcripts", archive, "-o", str(tmp_path / "capped.yaml"))
    every = cli("learn", "--transcripts", archive, "--max-per-tool", "0", "-o", str(tmp_path / "all.yaml"))  # fmt: skip
    assert capped.exit_code == every.exit_code == 0, capped.stderr
    many = {tool: len(found) for tool, found in _examples(tmp_path / "all.yaml").items()}
    assert max(many.values()) > 50
    kept = _examples(tmp_path / "capped.yaml")
    assert {tool: len(found) for tool, found in kept.items()} == {
        tool: min(50, n) for tool, n in many.items()
    }
    lines = "".join(
        json.dumps({"prompt": f"read file number {i}", "expect": ["Read"]}) + "\n"
        for i in range(60)
    )
    cases = cli("learn", "--cases", str(write("c.jsonl", lines)))
    assert len(yaml.safe_load(cases.stdout)["examples"]["Read"]) == 60
