"""Shared fixtures: an isolated environment, a CLI runner that shows output on failure,
and helpers that write registries."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolsel.cli import app

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


@pytest.fixture(autouse=True)
def _isolated(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the user's cache or config, or depends on the terminal."""
    monkeypatch.setenv("TOOLSEL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("TOOLSEL_MAX_FILE_BYTES", raising=False)
    monkeypatch.delenv("TOOLSEL_NO_CACHE", raising=False)


@dataclass
class Run:
    exit_code: int
    stdout: str
    stderr: str


class Cli:
    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | None = None) -> Run:
        result = self.runner.invoke(app, list(args), input=input, catch_exceptions=False)
        run = Run(result.exit_code, result.stdout, result.stderr)
        # shown by pytest only when the test fails
        print(
            f"$ toolsel {' '.join(args)}\n[exit {run.exit_code}]\n--- stdout\n{run.stdout}--- stderr\n{run.stderr}"
        )
        return run


@pytest.fixture
def cli() -> Cli:
    return Cli()


@pytest.fixture
def write(tmp_path: Path) -> Callable[..., Path]:
    """write("name.yaml", text) -> path, with the text dedented."""

    def _write(name: str, text: str | bytes) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return _write


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    yield tmp_path


def tools_document(snippet: str) -> str:
    """A rule example (a list of tool entries, or a whole document) as a registry file."""
    text = textwrap.dedent(snippet)
    if text.lstrip().startswith(("tools:", "version:", "categories:")):
        return text
    return "tools:\n" + textwrap.indent(text, "  ")


def requires_shared(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"needs {path}, which is not beside this checkout (../shared: CI has it; "
            "a clone alone does not)"
        )
    return path


# the stand-in embedder and the "extra not installed" switch, for any test that needs them
from tests.embed.fakes import fake_embedder, no_extra  # noqa: E402, F401
