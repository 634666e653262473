"""The application: version, help, no arguments."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Cli
from toolsel import __version__

Write = Callable[..., Path]


def test_version(cli: Cli) -> None:
    run = cli("--version")
    assert run.exit_code == 0 and run.stdout.startswith(f"toolsel {__version__}\nembeddings: ")


def test_help_lists_every_command_with_a_purpose(cli: Cli) -> None:
    run = cli("--help")
    for command in ("rank", "deps", "lint", "schema"):
        assert f"  {command} " in run.stdout
    assert "--install-completion" in run.stdout and "--show-completion" in run.stdout


def test_no_arguments_shows_help(cli: Cli) -> None:
    run = cli()
    assert "Usage" in run.stdout + run.stderr


def test_the_command_named_is_the_only_one_built() -> None:
    from toolsel.cli import COMMANDS, requested

    assert requested(["replay", "x.jsonl"]) == "replay"
    assert requested(["-v", "--verbose", "rank", "deploy"]) == "rank"
    for args in (["-h", "replay"], ["--version"], ["rnak", "x"], ["-V", "lint"], []):
        assert requested(args) is None  # help, version, a typo: every command is built
    assert {requested([name]) for name, _, _ in COMMANDS} == {name for name, _, _ in COMMANDS}


def test_the_entry_point_builds_one_command_and_helps_with_all(tmp_path: Path) -> None:
    """Through `main` (the console script), as a user runs it: a command works alone, and
    the help, `-h` before a command and a misspelt one still see every command."""
    import subprocess
    import sys

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        code = "import sys; from toolsel.cli import main; sys.argv[0] = 'toolsel'; main()"
        return subprocess.run(
            [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=tmp_path
        )

    schema = run("schema", "--output", "lint")
    assert schema.returncode == 0 and '"$schema"' in schema.stdout
    listed = run("-h", "schema").stdout
    assert "  rank " in listed and "  replay " in listed and "  schema " in listed
    typo = run("replya", "x")
    assert typo.returncode == 2 and "replya" in typo.stderr and "replay" in typo.stderr
    assert run("-v", "schema", "-h").stdout.startswith("Usage: toolsel schema")


def test_the_entry_point_freezes_the_collector_only_as_the_process_exits(tmp_path: Path) -> None:
    """`main` spares the exit's last collection (the heap frozen at exit), and a caller
    that catches its SystemExit and goes on finds its heap as it was."""
    import subprocess
    import sys

    code = (
        "import atexit, gc, sys\n"
        "from toolsel.cli import main\n"
        # registered before main's: run after it (atexit runs the last registered first)
        "atexit.register(lambda: print('at exit', gc.get_freeze_count() > 0))\n"
        "sys.argv[:] = ['toolsel', 'schema', '--output', 'lint']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('after main', gc.get_freeze_count())\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "after main 0\n" in run.stdout and run.stdout.endswith("at exit True\n")
