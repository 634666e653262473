"""Progress bars: drawn on a terminal's stderr, silent everywhere else."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from toolsel.render import progress


def test_no_bar_when_stderr_is_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    with progress.progress_bar("embedding 5 tools", 5) as advance:
        advance(5)
    assert capsys.readouterr().err == ""


def test_a_bar_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Terminal()
    monkeypatch.setattr("sys.stderr", err)
    with progress.embedding_progress(150) as advance:
        for done in (50, 100, 150):
            advance(50)
            assert f"{done}/150" in err.getvalue()  # the bar is drawn as it advances
    assert "embedding 150 tools" in err.getvalue()


def test_replay_draws_a_byte_bar_for_large_input(monkeypatch: pytest.MonkeyPatch, write) -> None:  # type: ignore[no-untyped-def]
    from toolsel.cli.replay import progress_bar_for
    from toolsel.replay.driver import replay_paths

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("toolsel.cli.replay.PROGRESS_MIN_BYTES", 1000)
    line = '{"role": "tool", "tool_call_id": "x", "content": "ok"}\n'
    path = write("t.jsonl", line * 5000)
    err = Terminal()
    monkeypatch.setattr("sys.stderr", err)
    with progress_bar_for([str(path)]) as advance:
        assert advance is not None
        replay_paths([str(path)], progress=advance)
    assert "replaying" in err.getvalue()
    drawn = err.getvalue()
    assert "0.0/275.0 kB" in drawn and "225.3/275.0 kB" in drawn  # drawn as it advances
    assert "275.0/275.0 kB" in drawn  # and the last lines count too


def test_workers_advance_the_bar_a_file_at_a_time(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from toolsel.cli.replay import progress_bar_for
    from toolsel.replay import parallel
    from toolsel.replay.driver import replay_paths

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("toolsel.cli.replay.PROGRESS_MIN_BYTES", 1000)
    monkeypatch.setattr(parallel, "MIN_FILES", 2)
    line = '{"role": "tool", "tool_call_id": "x", "content": "ok"}\n'
    paths = []
    for n in range(4):
        (tmp_path / f"{n}.jsonl").write_text(line * 1000)
        paths.append(str(tmp_path / f"{n}.jsonl"))
    (tmp_path / "old.jsonl").write_text(line * 1000)
    os.utime(tmp_path / "old.jsonl", (0, 0))  # 1970: --since leaves it out of the total
    err = Terminal()
    monkeypatch.setattr("sys.stderr", err)
    with progress_bar_for([str(tmp_path)], since=1.0) as advance:
        assert advance is not None
        replay_paths([str(tmp_path)], progress=advance, jobs=2, since=1.0)
    drawn = err.getvalue()
    assert "replaying" in drawn and "/220.0 kB" in drawn
    assert "110.0/220.0 kB" in drawn and "220.0/220.0 kB" in drawn


def test_export_draws_its_own_bar(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    from toolsel.cli.replay import progress_bar_for
    from toolsel.events.export import export_events

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("toolsel.cli.replay.PROGRESS_MIN_BYTES", 1000)
    line = '{"role": "tool", "tool_call_id": "x", "content": "ok"}\n'
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "t.jsonl").write_text(line * 2000)
    err = Terminal()
    monkeypatch.setattr("sys.stderr", err)
    with progress_bar_for([str(tmp_path / "in")], label="exporting") as advance:
        assert advance is not None
        export_events([str(tmp_path / "in")], str(tmp_path / "ev"), progress=advance)
    drawn = err.getvalue()
    assert "exporting" in drawn and "replaying" not in drawn
    assert "110.0/110.0 kB" in drawn


def test_urls_are_not_listed_for_the_bar(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A bucket is listed once, by the command: the bar counts local files only."""
    from toolsel.cli.replay import progress_bar_for
    from toolsel.replay import remote

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    def listed(url: str) -> list[str]:
        raise AssertionError(f"{url} listed for the bar")

    monkeypatch.setattr(remote, "expand_remote", listed)
    monkeypatch.setattr("toolsel.cli.replay.PROGRESS_MIN_BYTES", 1000)
    monkeypatch.setattr("sys.stderr", Terminal())
    with progress_bar_for(["s3://fleet/t/"]) as advance:
        assert advance is None  # nothing local to count
    (tmp_path / "t.jsonl").write_text("{}\n" * 1000)
    with progress_bar_for(["s3://fleet/t/", str(tmp_path)]) as advance:
        assert advance is not None
