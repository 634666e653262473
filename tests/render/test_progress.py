"""Progress bars: drawn on a terminal's stderr, silent everywhere else."""

from __future__ import annotations

import io

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
        for _ in range(3):
            advance(50)
    assert "embedding 150 tools" in err.getvalue()
