"""`diff --base REF` in the clones CI makes: depth 1 or 20, one branch, a detached HEAD.

The base ref is looked for as written, then as the remote's branch (`origin/REF`). A ref
the clone lacks is fetched from the remote (`git fetch --no-tags --depth=...`), and a
shallow history is deepened step by step until the merge base with HEAD is in it, or is
unshallowed. Each git command runs without a terminal prompt, under a time limit. When the
base still cannot be found, the error names one command that, run as written, makes it."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass

from toolsel.errors import UsageError

GIT_TIMEOUT = 30
FETCH_TIMEOUT = 300
#: How far a shallow history is deepened, in turn, before it is unshallowed.
DEEPEN_STEPS = (1, 50, 500)


@dataclass(frozen=True, slots=True)
class Git:
    """git in the current directory."""

    def run(self, *args: str, timeout: float = GIT_TIMEOUT) -> bytes | None:
        """git's standard output, or None when git fails or is not installed."""
        env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": ""}
        try:
            done = subprocess.run(
                ["git", *args], capture_output=True, timeout=timeout, check=False, env=env
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout if done.returncode == 0 else None

    def text(self, *args: str) -> str | None:
        out = self.run(*args)
        return None if out is None else out.decode("utf-8", "replace").strip()

    def commit(self, ref: str) -> str | None:
        return self.text("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")

    def shallow(self) -> bool:
        return self.text("rev-parse", "--is-shallow-repository") == "true"

    def remote(self) -> str | None:
        """`origin`, else the clone's only remote."""
        names = (self.text("remote") or "").split()
        if "origin" in names:
            return "origin"
        return names[0] if len(names) == 1 else None

    def fetch(self, *args: str) -> bool:
        return self.run("fetch", "--no-tags", "--quiet", *args, timeout=FETCH_TIMEOUT) is not None


def _branch(ref: str, remote: str) -> str:
    """The remote's branch name `ref` means: `origin/main` and `main` are both `main`."""
    for prefix in (f"refs/remotes/{remote}/", f"{remote}/", "refs/heads/"):
        if ref.startswith(prefix):
            return ref[len(prefix) :]
    return ref


def resolve(ref: str, git: Git | None = None) -> str:
    """The commit `ref` names in this clone, fetched from the remote when the clone lacks
    it; a UsageError naming the command that makes it available, else."""
    git = git or Git()
    if git.text("rev-parse", "--is-inside-work-tree") != "true":
        raise UsageError(f"--base {ref}: not inside a git work tree")
    remote = git.remote()
    candidates = [ref] + ([f"{remote}/{_branch(ref, remote)}"] if remote else [])
    for candidate in candidates:
        found = git.commit(candidate)
        if found:
            return found
    if remote is None:
        raise UsageError(f"--base {ref}: no such revision in this clone, and no remote to fetch it")
    branch = _branch(ref, remote)
    refspec = f"+refs/heads/{branch}:refs/remotes/{remote}/{branch}"
    depth = ["--depth=50"] if git.shallow() else []
    if git.fetch(*depth, remote, refspec):
        found = git.commit(f"{remote}/{branch}")
        if found:
            return found
    raise UsageError(
        f"--base {ref}: revision not in this clone, and fetching it from {remote} failed",
        hint=f"run: git fetch --no-tags {remote} {refspec}",
    )


def merge_base(ref: str, git: Git | None = None) -> str:
    """The merge base of `ref` and HEAD, deepening a shallow clone until it is found
    (a deepened fetch moves every shallow boundary, HEAD's included)."""
    git = git or Git()
    base_commit = resolve(ref, git)
    found = git.text("merge-base", base_commit, "HEAD")
    remote = git.remote()
    branch = _branch(ref, remote) if remote else ref
    refspec = f"+refs/heads/{branch}:refs/remotes/{remote}/{branch}"
    steps = [*(f"--deepen={n}" for n in DEEPEN_STEPS), "--unshallow"]
    while not found and git.shallow() and remote is not None and steps:
        step = steps.pop(0)
        if not git.fetch(step, remote, refspec):  # REF is no branch (a tag, a commit)
            git.fetch(step, remote)
        found = git.text("merge-base", base_commit, "HEAD")
    if found:
        return found
    unshallow = "--unshallow " if git.shallow() and remote else ""
    remote = remote or "origin"
    fix = f"git fetch --no-tags {unshallow}{remote} +refs/heads/{branch}:refs/remotes/{remote}/{branch}"
    raise UsageError(f"--base {ref}: no merge base with HEAD in this clone", hint=f"run: {fix}")
