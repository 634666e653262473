"""`toolsel stats` through the CLI."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ROOT, Cli

T = ROOT / "transcripts"
TOP = sorted(str(p) for p in T.iterdir() if p.is_file())


def test_stats(cli: Cli) -> None:
    data = json.loads(cli("stats", *TOP, "-r", str(ROOT / "registries"), "-f", "json").stdout)
    assert data["schema"] == "toolsel.stats/v2" and data["transcripts"] == 9
    read = data["tools"]["read_file"]
    sizes = read.pop("result_bytes"), read.pop("input_bytes")  # tests/replay/test_sizes.py
    assert [size["count"] for size in sizes] == [4, 4]
    assert read == {
        "calls": 4,
        "answered": 4,
        "unanswered": 0,
        "errors": 1,
        "error_rate": 0.25,
        "success_rate": 0.75,
        "median_latency_s": 1.0,
        "p95_latency_s": 2.0,
        "transcripts": 3,
        "top_errors": [{"message": "ok", "count": 1}],  # what its one failing result said
    }
    assert "git_status" in data["never_called"] and len(data["co_used_pairs"]) == 20
    assert data["co_used_pairs"][0] == {"tools": ["Task", "list_directory"], "transcripts": 2}
    # broken.jsonl has five lines that cannot be read: counted, named, not lost
    assert data["unreadable_lines"]["count"] == 5
    assert data["unreadable_lines"]["files"] == [
        {"path": str(T / "broken.jsonl"), "lines": 5, "first_line": 2}
    ]


def _call(call_id: str, tool: str) -> str:
    call = {"id": call_id, "type": "function", "function": {"name": tool, "arguments": "{}"}}
    return json.dumps({"role": "assistant", "content": None, "tool_calls": [call]})


def _result(call_id: str, text: str = "ok") -> str:
    return json.dumps({"role": "tool", "tool_call_id": call_id, "content": text})


def test_a_call_without_a_result_is_not_a_success(cli: Cli, write) -> None:
    path = write(
        "t.jsonl",
        "\n".join([_call("a", "deploy"), _call("b", "deploy"), _result("a"), _call("c", "wait")])
        + "\n",
    )
    data = json.loads(cli("stats", str(path), "-f", "json").stdout)
    deploy, wait = data["tools"]["deploy"], data["tools"]["wait"]
    assert (deploy["calls"], deploy["answered"], deploy["unanswered"]) == (2, 1, 1)
    assert deploy["success_rate"] == 1.0  # one answered call, no error
    assert wait["success_rate"] is None and wait["error_rate"] is None and wait["unanswered"] == 1
    human = cli("stats", str(path)).stdout
    assert "open: calls that never got a result" in human
    wait_row = next(line for line in human.splitlines() if "wait" in line)
    assert wait_row.split("│")[5].strip() == "-"  # no success rate without an answer


def test_unreadable_lines_are_reported(cli: Cli, write) -> None:
    path = write("t.jsonl", _call("a", "f") + '\nnot json\n{"cut": \n' + _result("a") + "\n")
    data = json.loads(cli("stats", str(path), "-f", "json").stdout)
    assert data["unreadable_lines"] == {
        "count": 2,
        "files": [{"path": str(path), "lines": 2, "first_line": 2}],
    }
    human = cli("stats", str(path)).stdout
    assert "2 unreadable lines not counted" in human and "from line 2" in human


def _orphan(call_id: str, is_error: bool) -> str:
    block = {"type": "tool_result", "tool_use_id": call_id, "is_error": is_error, "content": "x"}
    return json.dumps({"role": "user", "content": [block]})


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_orphan_error_counts_in_stats_as_in_replay(
    cli: Cli, write, jobs: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 34: a result whose call is in no file has no tool, but `stats` still counts it
    (and its error) as `replay` does, in one process or several."""
    monkeypatch.setattr("toolsel.replay.parallel.MIN_FILES", 2)  # two files take the pool
    first = write(
        "a.jsonl", _call("a", "f") + "\n" + _result("a") + "\n" + _orphan("gone", True) + "\n"
    )
    second = write("b.jsonl", _orphan("lost", False) + "\n" + _orphan("gone2", True) + "\n")
    paths = [str(first), str(second)]
    replayed = json.loads(cli("replay", *paths, "-f", "json", "--fail-on", "none").stdout)
    orphans = [o for f in replayed["files"] for o in f["orphan_results"]]
    assert [(o["id"], o["is_error"]) for o in orphans] == [
        ("gone", True),
        ("lost", False),
        ("gone2", True),
    ]
    data = json.loads(cli("stats", *paths, "-f", "json", "--jobs", jobs).stdout)
    assert data["orphan_results"] == {"count": 3, "errors": 2}
    assert data["tools"]["f"]["errors"] == 0  # an orphan is under no tool
    human = cli("stats", *paths, "--jobs", jobs).stdout
    assert "3 results whose call is in no transcript (2 errors)" in human


def test_co_used_pairs_are_bounded_per_transcript() -> None:
    """3,000 distinct tools in one transcript: pairs are counted among its 50 most-called
    tools, not all 4.5 million pairs."""
    from toolsel.replay.report import FileReport, ReplayResult, ToolStats
    from toolsel.replay.stats import PAIR_TOOLS, add_pairs, pairs_of
    from toolsel.replay.totals import usage_stats

    tools = {f"t{i:04d}": ToolStats(calls=1 + (i < 3), answered=1) for i in range(3000)}
    result = ReplayResult((FileReport("a", tools=tools), FileReport("b", tools=tools)))
    stats = usage_stats(result)
    assert PAIR_TOOLS == 50 and len(stats.tools) == 3000
    # the three most-called tools pair first, each seen in both transcripts
    assert stats.co_used_pairs[0].tools == ("t0000", "t0001")
    assert all(p.transcripts == 2 for p in stats.co_used_pairs)
    pairs: dict[tuple[str, str], int] = {}
    add_pairs(pairs, pairs_of({name: s.calls for name, s in tools.items()}))
    assert len(pairs) == PAIR_TOOLS * (PAIR_TOOLS - 1) // 2


def test_stats_db_from_the_sums_or_exactly(cli: Cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from toolsel.serve.store import UsageRecord, open_store

    db = f"sqlite:///{tmp_path / 'u.db'}"
    store = open_store(db)
    store.record(
        [UsageRecord("f", True, "2026-01-01T00:00:00Z", latency_ms=v, session="s") for v in (1.0, 2.0, 4.0)]
    )  # fmt: skip
    store.close()
    summed = json.loads(cli("stats", "--db", db, "--no-registry", "-f", "json").stdout)
    exact = json.loads(cli("stats", "--db", db, "--no-registry", "-f", "json", "--exact").stdout)
    assert exact["tools"]["f"]["median_latency_s"] == 0.002
    assert abs(summed["tools"]["f"]["median_latency_s"] - 0.002) <= 0.002 * 0.01
    assert summed["tools"]["f"]["calls"] == exact["tools"]["f"]["calls"] == 3
    run = cli("stats", "--exact", str(ROOT / "transcripts" / "claude-code-session.jsonl"))
    assert run.exit_code == 2 and "--db" in run.stderr


# -- --jobs, --since and --until over transcripts ---------------------------------------------


@pytest.mark.parametrize("fmt", ["human", "json", "html"])
def test_jobs_give_byte_identical_output(
    cli: Cli, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolsel.replay import parallel

    monkeypatch.setattr(parallel, "MIN_FILES", 2)
    corpus = str(ROOT / "tests" / "corpus" / "transcripts")
    args = ["stats", str(ROOT / "transcripts"), corpus, "-r", str(ROOT / "registries"), "-f", fmt]
    one, two = cli(*args, "-j", "1"), cli(*args, "-j", "2")
    assert one.stdout and (one.stdout, one.stderr, one.exit_code) == (
        two.stdout,
        two.stderr,
        two.exit_code,
    )


@pytest.mark.parametrize("fmt", ["human", "json", "html"])
@pytest.mark.parametrize("window", [(), ("--since", "2026-02-02")])
def test_jobs_give_byte_identical_output_over_resumed_sessions_and_subagents(
    cli: Cli,
    fmt: str,
    window: tuple[str, ...],
    tmp_path,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    """Resumed sessions copy earlier files' calls, sub-agent files link to their Task:
    each worker's chunk totals less the copies are what one process counts."""
    from tests.replay.archive import write_archive
    from toolsel.replay import parallel

    monkeypatch.setattr(parallel, "MIN_FILES", 2)
    write_archive(tmp_path, 40, seed=21, resumed=0.5, subagents=0.2)
    args = ["stats", str(tmp_path), "--no-registry", "-f", fmt, *window]
    one, two = cli(*args, "-j", "1"), cli(*args, "-j", "2")
    assert one.exit_code == 0 and one.stdout
    assert (one.stdout, one.stderr) == (two.stdout, two.stderr)


def _timed_calls(write) -> str:  # type: ignore[no-untyped-def]
    """A session with a Read at 10:00, a Grep at 12:00 and a Bash at 14:00 (UTC)."""
    lines = []
    for n, (tool, hour) in enumerate((("Read", 10), ("Grep", 12), ("Bash", 14))):
        at = f"2026-01-31T{hour}:00:00.000Z"
        lines.append(
            json.dumps({"type": "assistant", "uuid": f"a{n}", "sessionId": "s", "timestamp": at,
                        "message": {"id": f"m{n}", "role": "assistant", "content": [
                            {"type": "tool_use", "id": f"t{n}", "name": tool, "input": {}}]}})
        )  # fmt: skip
        lines.append(
            json.dumps({"type": "user", "uuid": f"u{n}", "sessionId": "s", "timestamp": at,
                        "message": {"role": "user", "content": [
                            {"type": "tool_result", "tool_use_id": f"t{n}", "content": "ok"}]}})
        )  # fmt: skip
    return str(write("timed.jsonl", "\n".join(lines) + "\n"))


def test_since_and_until_count_calls_by_their_own_time(cli: Cli, write) -> None:  # type: ignore[no-untyped-def]
    path = _timed_calls(write)

    def tools(*args: str) -> list[str]:
        run = cli("stats", path, "--no-registry", "-f", "json", *args)
        assert run.exit_code == 0, run.stderr
        return sorted(json.loads(run.stdout)["tools"])

    assert tools() == ["Bash", "Grep", "Read"]
    assert tools("--since", "2026-01-31T12:00:00Z") == ["Bash", "Grep"]
    assert tools("--until", "2026-01-31T12:00:00Z") == ["Read"]
    assert tools("--since", "2026-01-31T11:00", "--until", "2026-01-31T13:00+00:00") == ["Grep"]
    # the file was written now, so it is read; its calls are older than a day
    assert tools("--since", "1d") == []


def test_session_and_exact_still_need_a_store(cli: Cli) -> None:
    run = cli("stats", str(ROOT / "transcripts"), "--session", "s")
    assert run.exit_code == 2 and "--session and --exact read a usage store" in run.stderr


@pytest.mark.parametrize("source", ["/dev/null", "no-calls.jsonl"])
def test_a_transcript_without_calls_is_an_empty_report(cli: Cli, write, source: str) -> None:  # type: ignore[no-untyped-def]
    path = (
        source
        if source.startswith("/")
        else str(write(source, '{"type": "user", "message": {"role": "user", "content": "hi"}}\n'))
    )
    human = cli("stats", path)
    assert human.exit_code == 0 and "Traceback" not in human.stderr
    assert human.stdout.startswith("Tool usage across 1 transcript")
    document = json.loads(cli("stats", path, "-f", "json").stdout)
    assert document["tools"] == {} and document["co_used_pairs"] == []


def test_a_fifo_in_a_folder_is_named_and_skipped_never_read(cli: Cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import os

    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "a.jsonl").write_text(
        '{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", '
        '"function": {"name": "read_file", "arguments": "{}"}}]}\n'
        '{"role": "tool", "tool_call_id": "c1", "content": "ok"}\n'
    )
    os.mkfifo(folder / "pipe.jsonl")  # nothing ever writes it: reading it would block
    for command in ("stats", "replay"):
        run = cli(command, str(folder), "-f", "json", "--no-registry")
        assert run.exit_code == 0, run.stderr
        assert f"{folder}/pipe.jsonl: a FIFO, not a regular file: skipped" in run.stderr
    stats = json.loads(cli("stats", str(folder), "-f", "json", "--no-registry").stdout)
    assert stats["tools"]["read_file"]["calls"] == 1
