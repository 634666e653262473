"""The README and docs/ cannot go stale: their console examples are re-run, the rule table
regenerated, every flag documented, every link and anchor resolved."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli

README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = {
    path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
}
#: Where the reference lives: every flag must be documented in one of these.
DOCUMENTED = README + PAGES["docs/commands.md"] + PAGES["docs/reference.md"]


def console_examples() -> list[tuple[str, str]]:
    examples = []
    for text in PAGES.values():
        for block in re.findall(r"```console\n(.*?)```", text, flags=re.DOTALL):
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
    # an example's MCP servers run as `python`: this interpreter's, as for a user whose
    # venv is active (CI's is)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    run = cli(*shlex.split(command)[1:])
    assert run.stdout.rstrip() == expected.rstrip()


def test_readme_documents_every_command_and_lint_option(cli: Cli) -> None:
    from toolsel.cli import COMMANDS

    for command in (name for name, _, _ in COMMANDS):
        assert f"`toolsel {command}" in README, f"the README's command table lacks {command}"
        assert f"## `toolsel {command}`" in PAGES["docs/commands.md"] or (
            command in ("serve", "mcp") and "## `toolsel serve` and `toolsel mcp`" in DOCUMENTED
        ), f"docs/commands.md has no section for {command}"


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
            assert option in DOCUMENTED, f"toolsel {command} {option} is not documented"


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


def _anchors(text: str) -> set[str]:
    """GitHub's heading anchors of a Markdown page (outside code fences)."""
    found = set()
    fence = False
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
        match = None if fence else re.match(r"#{1,6} (.*)", line)
        if match:
            title = re.sub(r"[^\w\- ]", "", match.group(1).strip().lower())
            found.add(title.replace(" ", "-"))
    return found


def test_every_link_and_anchor_in_the_docs_resolves() -> None:
    broken = []
    for name, text in PAGES.items():
        here = (ROOT / name).parent
        for link in re.findall(r"\]\(([^)\s]+)\)", text):
            if link.startswith(("http://", "https://", "mailto:")):
                continue
            path, _, anchor = link.partition("#")
            target = (here / path).resolve() if path else ROOT / name
            if not target.exists():
                broken.append(f"{name}: {link} (no such file)")
            elif (
                anchor
                and target.suffix == ".md"
                and anchor not in _anchors(target.read_text(encoding="utf-8"))
            ):
                broken.append(f"{name}: {link} (no such heading)")
    assert broken == []


def test_the_readme_is_a_guide_and_the_reference_has_contents() -> None:
    """The README starts with what toolsel is for and a real output, then the two quickstart
    commands; the reference pages open with a table of contents."""
    first_screen = README[: README.index("## Quickstart")]
    assert "```console\n$ toolsel rank" in first_screen
    assert len(README.splitlines()) < 500
    for name in ("docs/commands.md", "docs/reference.md", "docs/quality.md", "docs/speed.md"):
        assert (
            "## Contents" in PAGES[name].split("\n## ", 2)[1][:20]
            or PAGES[name].index("## Contents") < 400
        ), name
