"""Where the agent picked the wrong tool (issue 35): found on a generated week with
planted misroutes and decoys, through the library and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from tests.conftest import Cli
from tests.misroute_week import Planted, write_misroute_week
from toolsel.misroutes import MisrouteReport, find_misroutes
from toolsel.schemas import Output, schema_name, schema_text

EVERY = 10**6  # occurrences listed per pair: all of them, to compare with what was planted


def _found(report: MisrouteReport) -> set[Planted]:
    return {
        (Path(o.file).name, o.line, pair.loser, pair.winner)
        for pair in report.pairs
        for o in pair.occurrences
    }


@pytest.fixture(scope="module")
def week(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Planted]]:
    folder = tmp_path_factory.mktemp("week")
    return folder, write_misroute_week(folder)


def test_the_planted_misroutes_are_found_and_the_decoys_are_not(
    week: tuple[Path, list[Planted]],
) -> None:
    folder, planted = week
    report = find_misroutes([str(folder)], shown=EVERY)
    found, expected = _found(report), set(planted)
    assert len(expected) == len(planted) > 40  # the week plants enough to measure
    true = len(found & expected)
    precision, recall = true / len(found), true / len(expected)
    assert precision >= 0.9 and recall >= 0.9, (found - expected, expected - found)
    assert found == expected  # exact on the generated week
    assert report.misroutes == len(planted) and report.files == 21


WEEK_TOOLS = """\
tools:
  - name: read_file
    description: Read a file from the local disk by its path.
  - name: search_docs
    description: Search the product documentation for a topic, a setting or a policy.
  - name: run_query
    description: Run a SQL query against the analytics database.
  - name: list_dir
    description: List the files in a folder.
  - name: fetch_url
    description: Fetch a web page by its URL.
  - name: grep_code
    description: Search the code for a pattern.
"""


def test_rank_is_asked_with_the_request_of_each_misroute(
    week: tuple[Path, list[Planted]], tmp_path: Path
) -> None:
    from toolsel.registry.loader import load_registry

    folder, planted = week
    (tmp_path / "tools.yaml").write_text(WEEK_TOOLS, encoding="utf-8")
    report = find_misroutes([str(folder)], load_registry(tmp_path / "tools.yaml"))
    checks = [pair.rank for pair in report.pairs]
    assert all(check is not None for check in checks)
    # each step's request names the job of the tool that worked: rank puts it first
    prompted = sum(c.prompted for c in checks if c)
    assert prompted == len(planted)
    assert sum(c.winner_first for c in checks if c) >= 0.9 * prompted
    assert sum(c.winner_above_loser for c in checks if c) >= 0.9 * prompted


def test_the_answer_is_the_same_for_any_number_of_jobs(tmp_path: Path) -> None:
    from toolsel.registry.loader import load_registry
    from toolsel.replay.parallel import MIN_FILES

    folder = tmp_path / "week"
    planted = write_misroute_week(folder, seed=3, sessions_a_day=10, steps=3)
    assert len(list(folder.iterdir())) >= MIN_FILES  # enough files for worker processes
    one = find_misroutes([str(folder)], shown=EVERY)
    two = find_misroutes([str(folder)], shown=EVERY, jobs=2)
    assert one == two and one.misroutes == len(planted)
    # the registry's acting tools reach the worker processes too
    (tmp_path / "tools.yaml").write_text(
        "tools:\n  - name: list_dir\n    description: List a folder.\n    permission: write\n",
        encoding="utf-8",
    )
    registry = load_registry(tmp_path / "tools.yaml")
    acted = find_misroutes([str(folder)], registry, shown=EVERY, jobs=2)
    assert acted == find_misroutes([str(folder)], registry, shown=EVERY)
    assert acted.misroutes < one.misroutes


def test_a_wider_window_reaches_the_failure_far_back(tmp_path: Path) -> None:
    planted = write_misroute_week(tmp_path, seed=7, sessions_a_day=1, steps=6)
    narrow = find_misroutes([str(tmp_path)], shown=EVERY)
    wide = find_misroutes([str(tmp_path)], window=10, shown=EVERY)
    assert narrow.misroutes == len(planted)
    assert wide.misroutes > narrow.misroutes  # the "far later" losers are now answered


REGISTRY = """\
tools:
  - name: read_file
    description: Read a file from the local disk by its path.
  - name: search_docs
    description: Search the product documentation for a topic, a setting or a policy.
  - name: run_query
    description: Run a SQL query against the analytics database.
"""


def _session(path: Path, request: str, calls: list[tuple[str, bool | None]]) -> None:
    """A Claude Code session: one request, then each (tool, worked) call (None: it came
    back empty)."""
    lines = [{"type": "user", "uuid": "h", "sessionId": "s",
              "message": {"role": "user", "content": request}}]  # fmt: skip
    for n, (tool, worked) in enumerate(calls):
        use = {"type": "tool_use", "id": f"t{n}", "name": tool, "input": {}}
        lines.append({"type": "assistant", "uuid": f"a{n}", "sessionId": "s",
                      "message": {"id": f"m{n}", "content": [use]}})  # fmt: skip
        said = {True: "found it", False: "Error: no such file", None: ""}[worked]
        result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": said,
                  "is_error": worked is False}  # fmt: skip
        lines.append({"type": "user", "uuid": f"r{n}", "sessionId": "s",
                      "message": {"content": [result]}})  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_the_cli_reports_pairs_with_lines_and_what_rank_would_have_chosen(
    cli: Cli, tmp_path: Path
) -> None:
    (tmp_path / "tools.yaml").write_text(REGISTRY, encoding="utf-8")
    request = "search the documentation for the retry policy setting"
    _session(tmp_path / "s.jsonl", request, [("read_file", False), ("search_docs", True)])
    run = cli("stats", str(tmp_path / "s.jsonl"), "--misroutes", "-r",
              str(tmp_path / "tools.yaml"), "--format", "json")  # fmt: skip
    assert run.exit_code == 0, run.stderr
    document = json.loads(run.stdout)
    Draft202012Validator(json.loads(schema_text("misroutes"))).validate(document)
    assert document["schema"] == schema_name(Output.MISROUTES)
    assert document["misroutes"] == 1 and document["failed_calls"] == 1
    [pair] = document["pairs"]
    assert (pair["loser"], pair["winner"], pair["count"], pair["empty"]) == (
        "read_file", "search_docs", 1, 0,
    )  # fmt: skip
    assert pair["occurrences"] == [{"file": str(tmp_path / "s.jsonl"), "line": 2,
                                    "winner_line": 4}]  # fmt: skip
    assert pair["rank"] == {"prompted": 1, "winner_first": 1, "winner_in_top": 1,
                            "winner_above_loser": 1}  # fmt: skip
    human = cli("stats", str(tmp_path / "s.jsonl"), "--misroutes", "-r",
                str(tmp_path / "tools.yaml"))  # fmt: skip
    assert "read_file" in human.stdout and "1 misroutes in 1 pairs" in human.stdout
    assert "1/1" in human.stdout


def test_without_a_registry_nothing_is_ranked(cli: Cli, tmp_path: Path, in_tmp: Path) -> None:
    _session(tmp_path / "s.jsonl", "read the config", [("read_file", False), ("run_query", True),
                                                       ("read_file", False)])  # fmt: skip
    run = cli("stats", str(tmp_path / "s.jsonl"), "--misroutes", "--no-registry", "-f", "json")
    document = json.loads(run.stdout)
    assert document["rank_top"] is None
    assert [(p["loser"], p["count"], p["rank"]) for p in document["pairs"]] == [
        ("read_file", 1, None)
    ]  # the failure after the success is answered by nothing


def test_an_empty_result_fails_a_lookup_not_an_action(cli: Cli, tmp_path: Path) -> None:
    registry = tmp_path / "tools.yaml"
    registry.write_text(REGISTRY + "  - name: make_dir\n    description: Make a directory.\n"
                        "    permission: write\n", encoding="utf-8")  # fmt: skip
    _session(tmp_path / "s.jsonl", "set up the docs folder",
             [("make_dir", None), ("read_file", True), ("search_docs", None), ("read_file", True)])  # fmt: skip
    ranked = cli(
        "stats", str(tmp_path / "s.jsonl"), "--misroutes", "-r", str(registry), "-f", "json"
    )
    # make_dir acts: its empty answer is a job done; search_docs looks up: it found nothing
    pairs = [(p["loser"], p["winner"], p["empty"]) for p in json.loads(ranked.stdout)["pairs"]]
    assert pairs == [("search_docs", "read_file", 1)]
    bare = cli("stats", str(tmp_path / "s.jsonl"), "--misroutes", "--no-registry", "-f", "json")
    assert json.loads(bare.stdout)["misroutes"] == 2  # without a registry, every empty counts


def test_unreadable_lines_are_named_not_dropped_silently(cli: Cli, tmp_path: Path) -> None:
    _session(tmp_path / "s.jsonl", "read the config", [("read_file", False), ("run_query", True)])
    with (tmp_path / "s.jsonl").open("a", encoding="utf-8") as out:
        out.write('{"type": "user", "message": \n')  # line 6: cut short
    run = cli("stats", str(tmp_path / "s.jsonl"), "--misroutes", "--no-registry", "-f", "json")
    document = json.loads(run.stdout)
    assert document["misroutes"] == 1  # the lines before it are still read
    assert document["unreadable_lines"] == {
        "count": 1,
        "files": [{"path": str(tmp_path / "s.jsonl"), "lines": 1, "first_line": 6}],
    }
    human = cli("stats", str(tmp_path / "s.jsonl"), "--misroutes", "--no-registry")
    assert "1 unreadable lines not counted" in human.stdout and "1 from line 6" in human.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--misroutes", "--ledger"],
        ["--misroutes", "--format", "html"],
        ["--misroutes", "--since", "7d"],
        ["--misroutes", "--db", "sqlite:///x.db"],
        ["--within", "5"],
        ["--misroutes", "--within", "0"],
    ],
)
def test_misroute_options_out_of_place_are_one_line_errors(
    cli: Cli, tmp_path: Path, in_tmp: Path, args: list[str]
) -> None:
    _session(tmp_path / "s.jsonl", "hi", [("read_file", True)])
    run = cli("stats", str(tmp_path / "s.jsonl"), "--no-registry", *args)
    assert run.exit_code == 2 and run.stderr.count("\n") == 1, run.stderr


def _claude(path: Path, calls: list[tuple[str, dict[str, str], str | None]]) -> None:
    """A Claude Code session: one request, then each (tool, input, error text or None)."""
    lines = [{"type": "user", "uuid": "h", "sessionId": "s",
              "message": {"role": "user", "content": "tidy up the components"}}]  # fmt: skip
    for n, (tool, arguments, error) in enumerate(calls):
        use = {"type": "tool_use", "id": f"t{n}", "name": tool, "input": arguments}
        lines.append({"type": "assistant", "uuid": f"a{n}", "sessionId": "s",
                      "message": {"id": f"m{n}", "content": [use]}})  # fmt: skip
        result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": error or "done",
                  "is_error": error is not None}  # fmt: skip
        lines.append({"type": "user", "uuid": f"r{n}", "sessionId": "s",
                      "message": {"content": [result]}})  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_the_false_positive_classes_of_real_sessions_are_not_misroutes(tmp_path: Path) -> None:
    """The classes labelled false on ../shared/transcripts-external, with Claude Code's
    built-in tools known by their catalog (no registry given), beside a real misroute."""
    src, page = "/p/app/src/components", "/p/app/src/page.tsx"
    not_read = "<tool_use_error>File has not been read yet. Read it first.</tool_use_error>"
    _claude(tmp_path / "s.jsonl", [
        # Edit asks for a Read first; the Read, then MultiEdit: a precondition
        ("Edit", {"file_path": page, "old_string": "a", "new_string": "b"}, not_read),
        ("Read", {"file_path": page}, None),
        ("MultiEdit", {"file_path": page, "edits": "[]"}, None),
        # the program a shell ran failed; the Edit that follows is the fix
        ("Bash", {"command": "python3 src/app.py"}, "SyntaxError: invalid syntax"),
        ("Edit", {"file_path": "/p/app/src/app.py", "old_string": "a", "new_string": "b"}, None),
        # Write refused; `ls -la` of nothing in particular is another step
        ("Write", {"file_path": page, "content": "x"}, not_read),
        ("Bash", {"command": "ls -la", "description": "List the folder"}, None),
        ("Bash", {"command": "ls -la", "description": "List the folder"}, None),
        ("Bash", {"command": "ls -la", "description": "List the folder"}, None),
        ("Bash", {"command": "ls -la", "description": "List the folder"}, None),
        # a real one: Read on a folder, then `ls` of that folder
        ("Read", {"file_path": src}, "EISDIR: illegal operation on a directory, read"),
        ("Bash", {"command": f"ls -la {src}/"}, None),
    ])  # fmt: skip
    report = find_misroutes([str(tmp_path / "s.jsonl")])
    assert [(p.loser, p.winner, p.occurrences[0].line) for p in report.pairs] == [
        ("Read", "Bash", 22)
    ]
    assert report.failed_calls == 4
