"""`toolsel export` and `toolsel stats --events`: the same numbers as `toolsel stats`,
byte for byte, and one line when something is missing."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli

pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")

BUNDLED = str(ROOT / "transcripts")
CORPUS = str(ROOT / "tests" / "corpus" / "transcripts")


@pytest.mark.parametrize("where", [BUNDLED, CORPUS, "archive"])
@pytest.mark.parametrize("fmt", ["human", "json", "html"])
def test_stats_of_the_export_prints_what_stats_prints(
    cli: Cli, tmp_path: Path, where: str, fmt: str, archive: Path
) -> None:
    source = str(archive) if where == "archive" else where
    exported = cli("export", source, "-o", str(tmp_path / "events"))
    assert exported.exit_code == 0 and exported.stdout.startswith("wrote ")
    expected = cli("stats", source, "-f", fmt, "--top", "0")
    got = cli("stats", "--events", str(tmp_path / "events"), "-f", fmt, "--top", "0")
    assert (got.exit_code, got.stdout) == (expected.exit_code, expected.stdout)


def test_jobs_write_the_same_tables(
    cli: Cli, tmp_path: Path, archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Worker processes map the files; this one marks the copies and writes, in path
    order: the tables are equal, row for row, for any --jobs."""
    import pyarrow.parquet as pq

    from toolsel.replay import parallel

    monkeypatch.setattr(parallel, "MIN_FILES", 2)
    monkeypatch.setattr(parallel, "CHUNK", 5)
    pools: list[int] = []
    real = parallel.parallel_rows
    monkeypatch.setattr(
        parallel, "parallel_rows", lambda *a, **k: pools.append(k["jobs"]) or real(*a, **k)
    )
    runs = [cli("export", str(archive), "-o", str(tmp_path / j), "-j", j) for j in ("1", "2")]
    assert pools == [2]
    assert runs[0].stdout.replace("/1", "/2") == runs[1].stdout and "copied" in runs[0].stdout
    for table in ("calls", "files"):
        one, two = (pq.read_table(tmp_path / j / table) for j in ("1", "2"))
        assert one.num_rows > 50 and one.equals(two)
    assert one.column("file_no").to_pylist() == list(range(one.num_rows))  # the files'
    assert two.num_rows == len(list(archive.rglob("*.jsonl")))


def test_since_exports_the_files_stats_since_counts(cli: Cli, tmp_path: Path) -> None:
    """Files last modified before --since are skipped, as `stats --since` skips them."""
    source = tmp_path / "t"
    source.mkdir()
    for name in ("old.jsonl", "new.jsonl"):
        (source / name).write_bytes(
            (ROOT / "transcripts" / "claude-code-session.jsonl").read_bytes()
        )
    old = datetime(2025, 6, 1, tzinfo=UTC).timestamp()
    os.utime(source / "old.jsonl", (old, old))
    run = cli("export", str(source), "--since", "2026-01-01", "-o", str(tmp_path / "ev"))
    assert run.exit_code == 0
    assert run.stdout.rstrip().endswith(f"from 1 transcript to {tmp_path / 'ev'}")
    expected = cli("stats", str(source), "--since", "2026-01-01", "-f", "json")
    unfiltered = cli("stats", str(source), "-f", "json")
    got = cli("stats", "--events", str(tmp_path / "ev"), "-f", "json")
    assert got.stdout == expected.stdout != unfiltered.stdout
    os.utime(source / "new.jsonl", (old, old))
    run = cli("export", str(source), "--since", "2026-01-01", "-o", str(tmp_path / "none"))
    assert (run.exit_code, run.stdout) == (2, "")
    assert run.stderr.startswith("toolsel: error: no transcript file was modified since 2026-01-01")
    assert not (tmp_path / "none").exists()


@pytest.mark.parametrize("since", ["yesterday", "", "9" * 400, "7d; rm -rf /", "\x1b[31m"])
def test_a_bad_since_is_one_line_and_writes_nothing(cli: Cli, tmp_path: Path, since: str) -> None:
    run = cli("export", BUNDLED, "--since", since, "-o", str(tmp_path / "ev"))
    assert (run.exit_code, run.stdout) == (2, "")
    assert run.stderr.startswith("toolsel: error: --since: ")
    assert len(run.stderr.strip().splitlines()) == 1 and "\x1b" not in run.stderr
    assert not (tmp_path / "ev").exists()


def test_the_summary_counts_calls_copies_and_transcripts(
    cli: Cli, tmp_path: Path, archive: Path
) -> None:
    run = cli("export", str(archive), "-o", str(tmp_path / "ev"))
    assert run.stdout.startswith("wrote ") and " copied from earlier files) from " in run.stdout
    assert run.stdout.rstrip().endswith(f"transcripts to {tmp_path / 'ev'}")


def test_a_missing_extra_is_one_line_and_exit_2(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli("export", BUNDLED, "-o", str(tmp_path / "ev"))
    monkeypatch.setitem(sys.modules, "duckdb", None)  # import duckdb raises ImportError
    run = cli("stats", "--events", str(tmp_path / "ev"))
    assert run.exit_code == 2 and run.stdout == ""
    assert run.stderr == (
        "toolsel: error: this needs duckdb, which is not installed "
        "(install it with: pip install 'toolsel[events]')\n"
    )
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    run = cli("export", BUNDLED, "-o", str(tmp_path / "other"))
    assert run.exit_code == 2 and "this needs pyarrow" in run.stderr
    assert not (tmp_path / "other").exists()


def test_an_output_directory_with_files_in_it_is_refused(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "ev").mkdir()
    (tmp_path / "ev" / "keep.txt").write_text("x")
    run = cli("export", BUNDLED, "-o", str(tmp_path / "ev"))
    assert run.exit_code == 2
    assert "already exists and is not an empty directory" in run.stderr
    assert [p.name for p in (tmp_path / "ev").iterdir()] == ["keep.txt"]


def test_an_empty_output_directory_is_filled(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "ev").mkdir()
    assert cli("export", BUNDLED, "-o", str(tmp_path / "ev")).exit_code == 0
    assert sorted(p.name for p in (tmp_path / "ev").iterdir()) == ["calls", "files"]
    assert [p.name for p in tmp_path.iterdir()] == ["ev"]  # no temporary left beside it


def test_options_that_do_not_go_together_are_refused(cli: Cli, tmp_path: Path) -> None:
    run = cli("export", BUNDLED, "-o", str(tmp_path / "ev"), "--scheduler", "tcp://x:1")
    assert (run.exit_code, run.stderr) == (2, "toolsel: error: --scheduler needs --engine dask\n")
    run = cli("export", BUNDLED, "-o", str(tmp_path / "ev"), "--engine", "dask", "-j", "2")
    assert run.exit_code == 2 and run.stderr.startswith(
        "toolsel: error: --jobs is for --engine local"
    )
    assert not (tmp_path / "ev").exists()
    run = cli("stats", BUNDLED, "--events", str(tmp_path))
    assert run.exit_code == 2 and "one of them" in run.stderr


def test_start_up_imports_no_extra() -> None:
    code = (
        "import sys, toolsel.cli\n"
        "print(sorted(m for m in ('pyarrow', 'duckdb', 'fsspec', 'distributed', 's3fs')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.events.archive import write_archive

    root = tmp_path_factory.mktemp("archive")
    write_archive(root, 60)
    return root


def test_options_that_read_transcripts_are_refused_with_events(cli: Cli, tmp_path: Path) -> None:
    """The tables hold every call exported: --since, --until and --jobs would be ignored."""
    assert cli("export", BUNDLED, "-o", str(tmp_path / "ev")).exit_code == 0
    for option in (("--since", "2024-01-01"), ("--until", "2025-01-01"), ("--jobs", "2")):
        run = cli("stats", "--events", str(tmp_path / "ev"), *option)
        assert run.exit_code == 2, option
        assert f"{option[0]} cannot be used with --events DIR" in run.stderr
        assert "Traceback" not in run.stderr
