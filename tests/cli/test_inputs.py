"""Missing and unreadable input files, for every command that reads one."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli

REG = str(ROOT / "registries")
CASES = str(ROOT / "tests" / "selection" / "registries.eval.jsonl")
GOLDEN = str(ROOT / "tests" / "selection" / "registries.yaml")


def test_missing_input_files_are_one_line_exit_two(cli: Cli, tmp_path) -> None:
    missing = str(tmp_path / "nope")
    for args in (
        ("eval", "-r", REG, "--cases", missing),
        ("test", "-r", REG, missing),
        ("stats", missing),
    ):
        run = cli(*args)
        assert (
            run.exit_code == 2 and run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
        ), args


def test_binary_transcript_is_unreadable_not_a_crash(cli: Cli, write) -> None:
    path = write("bin.jsonl", b"\x00\x01\x02\xff\xfe binary\n\x89PNG\r\n\x1a\n")
    data = json.loads(cli("replay", str(path), "-f", "json").stdout)
    (f,) = data["files"]
    assert len(f["unreadable_lines"]) == 3 and f["lines"] == 3  # the PNG header holds a newline


# -- special files: each gets an accurate message, never "no such file" or a traceback ----

GOOD = json.dumps({"tools": [{"name": "read_file", "description": "Reads a file."}]})
UNREADABLE = "/proc/self/mem"  # a regular file whose read fails (EIO), even for root


def _one_line(run) -> str:
    assert run.exit_code == 2 and run.stderr.count("\n") == 1, run.stderr
    assert "Traceback" not in run.stderr
    return run.stderr


def test_symlink_loop_and_dangling_symlink_say_so(cli: Cli, tmp_path: Path) -> None:
    loop, dangling = tmp_path / "loop.yaml", tmp_path / "dangling.yaml"
    loop.symlink_to(loop)
    dangling.symlink_to(tmp_path / "gone.yaml")
    for args in (("rank", "x", "-r", str(loop)), ("replay", str(loop))):
        assert "symlink loop" in _one_line(cli(*args))
    assert "symlink to a file that does not exist" in _one_line(
        cli("rank", "x", "-r", str(dangling))
    )
    assert "no such file" in _one_line(cli("rank", "x", "-r", str(tmp_path / "typo.yaml")))


def test_bad_directory_entries_are_reported_not_skipped(cli: Cli, tmp_path: Path) -> None:
    folder = tmp_path / "regs"
    folder.mkdir()
    (folder / "good.json").write_text(GOOD)
    (folder / "broken.yaml").symlink_to(tmp_path / "gone.yaml")
    (folder / "sub.yaml").mkdir()
    (folder / "README.md").write_text("not a registry")  # other suffixes are not entries
    run = cli("lint", str(folder), "-f", "json")
    found = {(Path(f["file"]).name, f["rule"], f["message"]) for f in json.loads(run.stdout)["findings"] if f["rule"] == "TS001"}  # fmt: skip
    assert found == {
        ("broken.yaml", "TS001", "cannot read: a symlink to a file that does not exist"),
        ("sub.yaml", "TS001", "cannot read: is a directory"),
    }
    assert "broken.yaml" in _one_line(cli("rank", "x", "-r", str(folder)))


def test_a_fifo_is_read_like_a_file(cli: Cli, tmp_path: Path) -> None:
    fifo = tmp_path / "registry.json"
    os.mkfifo(fifo)

    def feed() -> None:
        with fifo.open("w") as handle:
            handle.write(GOOD)

    writer = threading.Thread(target=feed)
    writer.start()
    run = cli("rank", "read a file", "-r", str(fifo), "-f", "json", "--no-cache")
    writer.join(timeout=10)
    assert run.exit_code == 0 and json.loads(run.stdout)["results"][0]["name"] == "read_file"


@pytest.mark.parametrize(
    "args",
    [
        ("rank", "x", "-r", "{path}"),
        ("eval", "-r", REG, "--cases", "{path}"),
        ("test", "-r", REG, "{path}"),
        ("rank", "-r", REG, "--batch", "{path}"),
    ],
    ids=["rank", "eval", "test", "batch"],
)
def test_devices_and_unreadable_files(cli: Cli, args: tuple[str, ...]) -> None:
    for path, expected in (
        ("/dev/zero", "binary data (NUL bytes)"),
        ("/dev/null", "empty"),
        (UNREADABLE, "input/output error"),
    ):
        run = cli(*(a.format(path=path) for a in args))
        if args[-1] == "{path}" and args[-2] == "--batch" and path == "/dev/null":
            assert run.exit_code == 0 and run.stdout == ""  # an empty batch is empty
            continue
        message = run.stderr
        assert run.exit_code in (1, 2) and "Traceback" not in message, (path, message)
        assert expected in message or (expected == "empty" and "no readable cases" in message), (
            path,
            message,
        )
        assert message.count("\n") == 1 or args[-2] == "--batch"


def test_replay_of_devices_counts_what_it_could_not_read(cli: Cli) -> None:
    zero = json.loads(cli("replay", "/dev/zero", "-f", "json").stdout)["files"][0]
    assert zero["unreadable_lines"] == [
        {"line": 1, "error": "binary data (NUL bytes), not text; the rest of the file was not read"}
    ]
    empty = json.loads(cli("replay", "/dev/null", "-f", "json").stdout)["files"][0]
    assert (empty["lines"], empty["calls"], empty["unreadable_lines"]) == (0, 0, [])
    broken = json.loads(cli("replay", UNREADABLE, "-f", "json").stdout)["files"][0]
    assert broken["unreadable_lines"][0]["error"] == "read failed: input/output error"
