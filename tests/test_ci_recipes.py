"""The README's "In CI" recipes, run as written from a fresh clone (issue 20).

Each recipe is read from the README, not copied here, so a recipe that changes is the one
that runs. `<commit>` and the repository URL are replaced by a fresh clone of this checkout
and its HEAD; everything else is the README's text. These install toolsel the way a user's
CI does (pip and pre-commit reach the package index), so they are slow.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
URL = "https://github.com/toolsel/toolsel"
BROKEN = ROOT / "docs" / "examples" / "broken.yaml"

pytestmark = pytest.mark.skipif(
    not (ROOT / ".git").exists() or shutil.which("git") is None,
    reason="the recipes install from a git repository: this is not a git checkout",
)


def ci_section() -> str:
    start = README.index("## In CI\n")
    return README[start : README.index("\n## ", start + 1)]


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", ci_section(), re.S)


def run(
    command: str | list[str], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=cwd, env=env, shell=isinstance(command, str), capture_output=True,
        text=True, timeout=300, check=False,
    )  # fmt: skip


@pytest.fixture
def clone(tmp_path: Path) -> tuple[str, str]:
    """A fresh clone of this checkout's HEAD: (URL to install from, commit id). The URL
    names a host (file://localhost/...): the pip that Python 3.11's venv brings refuses a
    git+file:/// URL with an empty one."""
    target = tmp_path / "toolsel-clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(target)], check=True)
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=target, capture_output=True, text=True, check=True
    ).stdout.strip()
    return "file://localhost" + target.as_posix(), commit


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """A user's repository: a clean registry under registries/, committed."""
    root = tmp_path / "project"
    shutil.copytree(ROOT / "registries", root / "registries")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    for step in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "x"]):
        subprocess.run(step, cwd=root, env=env, check=True)
    yield root


def recipe(text: str, url: str, commit: str) -> str:
    return text.replace(URL, url).replace("<commit>", commit)


def test_the_recipes_are_there_and_pin_a_commit() -> None:
    section = ci_section()
    assert "pip install toolsel\n" not in section and "rev: v0" not in section
    (pip_line,) = blocks("sh")
    assert pip_line.strip() == f'pip install "toolsel @ git+{URL}@<commit>"'
    workflow, remote, local = (yaml.safe_load(text) for text in blocks("yaml"))
    assert remote["repos"][0]["rev"] == "<commit>"
    assert local["repos"][0]["repo"] == "local"
    steps = workflow["jobs"]["lint"]["steps"]
    assert any(
        step.get("uses", "").startswith("github/codeql-action/upload-sarif") for step in steps
    )


def test_pip_line_actions_steps_and_local_hook(
    clone: tuple[str, str], project: Path, tmp_path: Path
) -> None:
    url, commit = clone
    env_dir = tmp_path / "ci-venv"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / ("Scripts" if sys.platform == "win32" else "bin")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)

    # the README's pip line, pinned to the clone's commit, in a fresh environment
    install = run(recipe(blocks("sh")[0].strip(), url, commit), project, env)
    assert install.returncode == 0, install.stderr[-2000:]
    assert Path(shutil.which("toolsel", path=env["PATH"]) or "").parent == bin_dir

    # the workflow's run: steps after the install, in order, on a clean registry
    steps = yaml.safe_load(recipe(blocks("yaml")[0], url, commit))["jobs"]["lint"]["steps"]
    commands = [step["run"] for step in steps if "run" in step]
    assert commands[0].startswith("pip install")
    for command in commands[1:]:
        result = run(command, project, env)
        assert result.returncode == 0, (command, result.stdout, result.stderr)
    sarif = json.loads((project / "toolsel.sarif").read_text())
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["tool"]["driver"]["name"] == "toolsel"

    # a broken file: the SARIF step still passes (and records it), the last step fails
    shutil.copy(BROKEN, project / "registries" / "broken.yaml")
    sarif_step, strict_step = commands[1], commands[-1]
    assert run(sarif_step, project, env).returncode == 0
    results = json.loads((project / "toolsel.sarif").read_text())["runs"][0]["results"]
    assert any(r["ruleId"] == "TS504" for r in results)
    failed = run(strict_step, project, env)
    assert failed.returncode == 1
    assert "::error file=registries/broken.yaml,line=20,col=16,title=TS504::" in failed.stdout

    # the local pre-commit hook runs that same toolsel
    (project / "registries" / "broken.yaml").unlink()
    (project / ".pre-commit-config.yaml").write_text(blocks("yaml")[2])
    hook = run([sys.executable, "-m", "pre_commit", "run", "--all-files"], project, env)
    assert hook.returncode == 0 and "toolsel lint" in hook.stdout and "Passed" in hook.stdout, (
        hook.stdout + hook.stderr
    )
    shutil.copy(BROKEN, project / "registries" / "broken.yaml")
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    hook = run([sys.executable, "-m", "pre_commit", "run", "--all-files"], project, env)
    assert hook.returncode == 1 and "Failed" in hook.stdout and "TS504" in hook.stdout


def test_pre_commit_from_the_repository_at_a_commit(
    clone: tuple[str, str], project: Path, tmp_path: Path
) -> None:
    pytest.importorskip("pre_commit")
    url, commit = clone
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    env.pop("PYTHONPATH", None)
    config = project / ".pre-commit-config.yaml"
    config.write_text(recipe(blocks("yaml")[1], url, commit))
    hook = run([sys.executable, "-m", "pre_commit", "run", "--all-files"], project, env)
    assert hook.returncode == 0 and "Passed" in hook.stdout, hook.stdout + hook.stderr

    shutil.copy(BROKEN, project / "registries" / "broken.yaml")
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    hook = run([sys.executable, "-m", "pre_commit", "run", "--all-files"], project, env)
    assert hook.returncode == 1 and "registries/broken.yaml:20:16: TS504" in hook.stdout

    # `autoupdate --freeze` moves rev to the newest commit and keeps it a commit id
    # (quoted: a stale id of digits and zeros would read as a YAML integer)
    stale = commit[:7] + "0" * 33
    config.write_text(config.read_text().replace(f"rev: {commit}", f'rev: "{stale}"'))
    assert f'rev: "{stale}"' in config.read_text()
    update = run([sys.executable, "-m", "pre_commit", "autoupdate", "--freeze"], project, env)
    assert update.returncode == 0, update.stdout + update.stderr
    assert yaml.safe_load(config.read_text())["repos"][0]["rev"] == commit
