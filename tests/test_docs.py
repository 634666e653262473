"""The README cannot go stale: its console examples are re-run, its rule table regenerated."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest

from tests.conftest import ROOT, Cli

README = (ROOT / "README.md").read_text(encoding="utf-8")


def console_examples() -> list[tuple[str, str]]:
    examples = []
    for block in re.findall(r"```console\n(.*?)```", README, flags=re.DOTALL):
        command, _, output = block.partition("\n")
        assert command.startswith("$ toolsel "), command
        examples.append((command[2:], output))
    return examples


EXAMPLES = console_examples()


@pytest.mark.parametrize(("command", "expected"), EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_readme_example_output_is_real(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, command: str, expected: str
) -> None:
    from toolsel.embed.model import missing

    if missing() is not None and re.search(r"--compare|semantic|fusion", command):
        pytest.skip("this example shows the embedding methods; toolsel[embed] is not installed")
    monkeypatch.chdir(ROOT)
    run = cli(*shlex.split(command)[1:])
    assert run.stdout.rstrip() == expected.rstrip()


def test_readme_documents_every_command_and_lint_option(cli: Cli) -> None:
    for command in ("rank", "deps", "lint", "schema"):
        assert f"### `toolsel {command}`" in README or f"`toolsel {command}`" in README
    lint_help = cli("lint", "--help").stdout
    for option in re.findall(r"(--[a-z][a-z-]+)", lint_help):
        if option not in ("--help",):
            assert option in README, f"lint {option} is not documented in the README"


def test_generated_rule_docs_are_current() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "generate.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def test_quickstart_is_the_ci_test_command() -> None:
    commands = re.findall(r"```sh\n(.*?)\n```", README)
    assert len(commands) >= 2 and "toolsel rank" in commands[0]
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci.splitlines(), "the README's test command must be what .ci/run runs"


def test_readme_documents_every_flag_of_every_command(cli: Cli) -> None:
    from toolsel.cli import COMMANDS

    for command in (name for name, _, _ in COMMANDS):
        for option in set(re.findall(r"(--[a-z][a-z-]+)", cli(command, "--help").stdout)) - {
            "--help"
        }:
            assert option in README, f"toolsel {command} {option} is not documented in the README"


def test_every_test_marked_slow_still_exists() -> None:
    """The SLOW list in tests/conftest.py names tests by id: a renamed test would silently
    stop being marked."""
    from tests.conftest import SLOW

    missing = []
    for nodeid in SLOW:
        path, _, name = nodeid.partition("::")
        if f"def {name}(" not in (ROOT / path).read_text(encoding="utf-8"):
            missing.append(nodeid)
    assert missing == []
