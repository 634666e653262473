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
    subprocess.run(
        [sys.executable, "-m", "toolsel", "lock", "-r", "registries/"], cwd=root, check=True
    )
    for step in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "add", "-A"],
        ["git", "commit", "-qm", "x"],
    ):
        subprocess.run(step, cwd=root, env=GIT_ENV, check=True)
    yield root


GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}  # fmt: skip


def recipe(text: str, url: str, commit: str) -> str:
    return text.replace(URL, url).replace("<commit>", commit)


def test_the_recipes_are_there_and_pin_a_commit() -> None:
    section = ci_section()
    assert "pip install toolsel\n" not in section and "rev: v0" not in section
    (pip_line,) = blocks("sh")
    assert pip_line.strip() == f'pip install "toolsel @ git+{URL}@<commit>"'
    workflow, gitlab, remote, local = (yaml.safe_load(text) for text in blocks("yaml"))
    assert remote["repos"][0]["rev"] == "<commit>"
    assert local["repos"][0]["repo"] == "local"
    assert gitlab["toolsel"]["script"][0] == f'pip install "toolsel @ git+{URL}@<commit>"'
    steps = workflow["jobs"]["gate"]["steps"]
    commands = " ".join(step.get("run", "") for step in steps)
    for check in ("toolsel lint", "toolsel diff --base", "toolsel lock --check"):
        assert check in commands and check in " ".join(gitlab["toolsel"]["script"])
        assert any(check in hook["entry"] for hook in local["repos"][0]["hooks"])
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
    steps = yaml.safe_load(recipe(blocks("yaml")[0], url, commit))["jobs"]["gate"]["steps"]
    commands = [step["run"] for step in steps if "run" in step]
    assert commands[0].startswith("pip install")
    for command in commands[1:]:
        result = run(command, project, env)
        assert result.returncode == 0, (command, result.stdout, result.stderr)
    sarif = json.loads((project / "toolsel.sarif").read_text())
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["tool"]["driver"]["name"] == "toolsel"

    # a broken file: the SARIF step still passes (and records it), the last step fails
    shutil.copy(BROKEN, project / "registries" / "broken.yaml")
    sarif_step, strict_step = commands[1], commands[2]
    assert run(sarif_step, project, env).returncode == 0
    results = json.loads((project / "toolsel.sarif").read_text())["runs"][0]["results"]
    assert any(r["ruleId"] == "TS504" for r in results)
    failed = run(strict_step, project, env)
    assert failed.returncode == 1
    assert "::error file=registries/broken.yaml,line=20,col=16,title=TS504::" in failed.stdout

    # the local pre-commit hook runs that same toolsel
    (project / "registries" / "broken.yaml").unlink()
    (project / ".pre-commit-config.yaml").write_text(blocks("yaml")[3])
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
    config.write_text(recipe(blocks("yaml")[2], url, commit))
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


# -- a breaking pull request, in the clones CI makes ------------------------------------------

MAIN_REGISTRY = """\
tools:
  - name: search_docs
    description: Search the product documentation and return the best matching pages.
    category: docs
    parameters:
      type: object
      properties:
        query: {type: string, description: Words to look for.}
      required: [query]
  - name: send_email
    description: Send an email to one recipient, with a subject and a plain-text body.
    category: mail
    permission: write
    parameters:
      type: object
      properties:
        to: {type: string, description: The recipient's address.}
      required: [to]
"""
#: The pull request removes send_email and gives search_docs two required parameters.
PR_REGISTRY = """\
tools:
  - name: search_docs
    description: Search the product documentation and return the best matching pages.
    category: docs
    parameters:
      type: object
      properties:
        query: {type: string, description: Words to look for.}
        product: {type: string, description: Which product's documentation.}
        version: {type: string, description: The product version, such as 2.4.}
      required: [query, product, version]
"""


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=GIT_ENV, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    """A repository whose main has a locked registry, a pull-request branch that breaks it
    (one more commit on main since it branched), and GitHub's merge ref for it."""
    root = tmp_path / "origin"
    (root / "registries").mkdir(parents=True)
    (root / "registries" / "tools.yaml").write_text(MAIN_REGISTRY)
    (root / "README").write_text("v1\n")
    subprocess.run(
        [sys.executable, "-m", "toolsel", "lock", "-r", "registries/"], cwd=root, check=True
    )
    git("init", "-q", "-b", "main", cwd=root)
    git("add", "-A", cwd=root)
    git("commit", "-qm", "main: locked registry", cwd=root)
    git("checkout", "-qb", "pr", cwd=root)
    (root / "registries" / "tools.yaml").write_text(PR_REGISTRY)
    git("commit", "-qam", "pr: a breaking change", cwd=root)
    git("checkout", "-q", "main", cwd=root)
    (root / "README").write_text("v2\n")
    git("commit", "-qam", "main moves on", cwd=root)
    git("checkout", "-q", "--detach", "pr", cwd=root)
    git("merge", "-q", "--no-edit", "-m", "merge pr into main", "main", cwd=root)
    git("update-ref", "refs/pull/1/merge", "HEAD", cwd=root)
    git("checkout", "-q", "main", cwd=root)
    return root


def actions_checkout(origin: Path, target: Path) -> Path:
    """What actions/checkout@v4 does on a pull_request event: the merge ref, depth 1."""
    target.mkdir()
    git("init", "-q", cwd=target)
    git("remote", "add", "origin", origin.as_uri(), cwd=target)
    git(
        "fetch",
        "-q",
        "--no-tags",
        "--depth=1",
        "origin",
        "+refs/pull/1/merge:refs/remotes/pull/1/merge",
        cwd=target,
    )
    git("checkout", "-q", "--detach", "refs/remotes/pull/1/merge", cwd=target)
    return target


def gitlab_checkout(origin: Path, target: Path) -> Path:
    """What a GitLab merge request pipeline does: the source branch, depth 20, detached."""
    git(
        "clone",
        "-q",
        "--depth",
        "20",
        "--single-branch",
        "--branch",
        "pr",
        origin.as_uri(),
        str(target),
        cwd=origin.parent,
    )
    git("checkout", "-q", "--detach", cwd=target)
    return target


def toolsel_env(**extra: str) -> dict[str, str]:
    """This test run's toolsel first on PATH (the recipes' pip line is tested above)."""
    bin_dir = Path(sys.executable).parent
    env = {**GIT_ENV, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", **extra}
    env.pop("GITHUB_ACTIONS", None)
    return env


def run_all(
    commands: list[str], cwd: Path, env: dict[str, str]
) -> list[subprocess.CompletedProcess[str]]:
    return [run(command, cwd, env) for command in commands if not command.startswith("pip ")]


def test_actions_steps_block_a_breaking_pull_request_in_a_depth_1_clone(
    origin: Path, tmp_path: Path
) -> None:
    clone = actions_checkout(origin, tmp_path / "github")
    assert git("rev-parse", "--is-shallow-repository", cwd=clone) == "true"
    steps = yaml.safe_load(blocks("yaml")[0])["jobs"]["gate"]["steps"]
    env = toolsel_env(GITHUB_BASE_REF="main", GITHUB_EVENT_NAME="pull_request")
    results = run_all([step["run"] for step in steps if "run" in step], clone, env)
    codes = [r.returncode for r in results]
    assert codes == [0, 0, 1, 1], [(r.args, r.stdout, r.stderr) for r in results]
    # the README shows this very output
    shown = README.split("<!-- blocked-pr:start -->\n")[1].split("<!-- blocked-pr:end -->")[0]
    assert shown == (
        f"```text\n$ {results[2].args}\n{results[2].stdout}"
        f"$ {results[3].args}\n{results[3].stdout}```\n"
    )
    assert results[2].stdout.splitlines()[:3] == [
        "::error file=registries/tools.yaml,line=9,title=TD102 breaking::required parameter product added",
        "::error file=registries/tools.yaml,line=10,title=TD102 breaking::required parameter version added",
        "::error file=registries/tools.yaml,line=2,title=TD001 breaking::tool 'send_email' removed; "
        "calls to it now fail as unknown [tool: send_email]",
    ]
    assert "send_email: in toolsel.lock but no longer in the registry" in results[3].stdout


def test_gitlab_script_blocks_a_breaking_merge_request_in_a_depth_20_clone(
    origin: Path, tmp_path: Path
) -> None:
    clone = gitlab_checkout(origin, tmp_path / "gitlab")
    script = yaml.safe_load(blocks("yaml")[1])["toolsel"]["script"]
    env = toolsel_env(CI_MERGE_REQUEST_TARGET_BRANCH_NAME="main", CI_DEFAULT_BRANCH="main")
    results = run_all(script, clone, env)
    assert [r.returncode for r in results] == [0, 1, 1], [
        (r.args, r.stdout, r.stderr) for r in results
    ]
    lines = results[1].stdout.splitlines()
    assert lines[:2] == [
        "registries/tools.yaml:9:18: TD102 breaking [params] required parameter product added",
        "registries/tools.yaml:10:18: TD102 breaking [params] required parameter version added",
    ]
    assert lines[2].endswith(
        ":registries/tools.yaml:10:11: TD001 breaking [identity] tool 'send_email' removed; "
        "calls to it now fail as unknown"
    )


def test_local_pre_commit_hooks_block_a_breaking_change_before_the_push(
    origin: Path, tmp_path: Path
) -> None:
    pytest.importorskip("pre_commit")
    clone = actions_checkout(origin, tmp_path / "hooks")
    (clone / ".pre-commit-config.yaml").write_text(blocks("yaml")[3])
    git("add", ".pre-commit-config.yaml", cwd=clone)
    env = toolsel_env(PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"))
    commit = run([sys.executable, "-m", "pre_commit", "run", "--all-files"], clone, env)
    assert commit.returncode == 1 and "send_email: in toolsel.lock but no longer" in commit.stdout
    push = run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--hook-stage", "pre-push"],
        clone,
        env,
    )
    assert push.returncode == 1, push.stdout + push.stderr
    assert "TD001 breaking [identity] tool 'send_email' removed" in push.stdout
