"""`diff --base REF` in the clones CI makes, with real throwaway repositories: a ref as
written or as the remote's branch, fetched when the clone lacks it (`--depth=50` when
shallow), a shallow history deepened until the merge base is in it, and errors that name
the one command that makes the base available."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from toolsel.diff.gitbase import Git, merge_base, resolve
from toolsel.errors import UsageError


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main",
         "-c", "advice.detachedHead=false", *args],
        cwd=cwd, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout.strip()


def commits(repo: Path, *messages: str) -> str:
    for message in messages:
        git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture(autouse=True)
def _no_enclosing_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))


def fast_import(repo: Path, stream: str) -> None:
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=stream, text=True, check=True)


def history(branch: str, start: int, messages: list[str], parent: str | None) -> str:
    """A fast-import stream: `messages` as commits on `branch`, marks from `start`."""
    blocks = []
    for i, message in enumerate(messages):
        mark = start + i
        after = parent if i == 0 else f":{mark - 1}"
        blocks.append(
            f"commit refs/heads/{branch}\nmark :{mark}\ncommitter t <t@t> {1700000000 + mark} +0000\n"
            f"data {len(message)}\n{message}\n" + (f"from {after}\n" if after else "")
        )
    return "".join(blocks)


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """main: p0-p199, then m1-m3; `work` from m1 (w1-w3); `long` from m1, 60 commits; tag
    v1 (annotated) on m2, long-tip on long's tip. Returns the repository's file:// URL and
    each tip."""
    repo = tmp_path_factory.mktemp("origin")
    git(repo, "init", "-q")
    main = [f"p{i}" for i in range(200)] + ["m1", "m2", "m3"]
    fork = f":{len(main) - 2}"
    stream = history("main", 1, main, None)
    stream += history("work", 1000, ["w1", "w2", "w3"], fork)
    stream += history("long", 2000, [f"l{i}" for i in range(60)], fork)
    for tag, mark in (("v1", f":{len(main) - 1}"), ("long-tip", ":2059")):
        stream += f"tag {tag}\nfrom {mark}\ntagger t <t@t> 1700000000 +0000\ndata 3\ntag\n"
    fast_import(repo, stream)
    git(repo, "checkout", "-q", "main")
    tips = {name: git(repo, "rev-parse", rev) for name, rev in
            [("fork", "main~2"), ("m2", "main~1"), ("main", "main"), ("work", "work"),
             ("long", "long")]}  # fmt: skip
    return {"url": f"file://{repo}", **tips}


def clone(origin: dict[str, str], target: Path, *args: str) -> Path:
    git(target.parent, "clone", "-q", *args, origin["url"], target.name)
    return target


def test_outside_a_work_tree_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError) as raised:
        resolve("main")
    assert (raised.value.message, raised.value.hint) == (
        "--base main: not inside a git work tree",
        None,
    )


def test_a_ref_in_the_clone_is_its_commit(
    origin: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = clone(origin, tmp_path / "c")
    monkeypatch.chdir(repo)
    assert resolve("main") == origin["main"]
    assert resolve("v1") == origin["m2"]  # an annotated tag names its commit, not itself
    assert resolve(origin["m2"][:10]) == origin["m2"]
    assert resolve("origin/work") == origin["work"]


def test_a_branch_only_the_remote_has_is_read_from_its_tracking_ref(
    origin: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CI's clone has a detached HEAD and no local `main`: `main` is `origin/main`, with no
    fetch (the remote is gone here, so a fetch would fail)."""
    repo = clone(origin, tmp_path / "c")
    git(repo, "checkout", "-q", "--detach", "origin/work")
    git(repo, "branch", "-q", "-D", "main")
    git(repo, "remote", "set-url", "origin", str(tmp_path / "gone"))
    monkeypatch.chdir(repo)
    assert resolve("main") == origin["main"]
    assert resolve("refs/heads/main") == origin["main"]


@pytest.mark.parametrize(
    "ref", ["long", "origin/long", "refs/remotes/origin/long", "refs/heads/long"]
)
def test_a_branch_the_clone_lacks_is_fetched(
    origin: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ref: str
) -> None:
    repo = clone(origin, tmp_path / "c", "--single-branch", "-b", "main")
    git(repo, "tag", "-d", "v1")
    monkeypatch.chdir(repo)
    assert git(repo, "branch", "-r") == "origin/HEAD -> origin/main\n  origin/main"
    assert resolve(ref) == origin["long"]
    assert git(repo, "rev-parse", "refs/remotes/origin/long") == origin["long"]
    assert git(repo, "rev-list", "--count", "origin/long") == str(
        200 + 1 + 60
    )  # p0-p199, m1, l0-l59: not shallow
    assert git(repo, "tag") == ""  # --no-tags: long-tip is not followed


def test_a_shallow_clone_fetches_fifty_commits_of_it(
    origin: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = clone(origin, tmp_path / "c", "--depth=1", "--single-branch", "-b", "main")
    monkeypatch.chdir(repo)
    assert resolve("long") == origin["long"]
    assert git(repo, "rev-list", "--count", "origin/long") == "50"


def test_the_remote_is_origin_else_the_only_one(
    origin: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream = clone(origin, tmp_path / "u", "-o", "upstream", "--single-branch", "-b", "main")
    monkeypatch.chdir(upstream)
    assert resolve("upstream/work") == origin["work"]
    assert git(upstream, "rev-parse", "refs/remotes/upstream/work") == origin["work"]
    # origin wins over another remote listed before it (`aaa`, which cannot be fetched)
    both = clone(origin, tmp_path / "o", "--single-branch", "-b", "main")
    git(both, "remote", "add", "aaa", str(tmp_path / "gone"))
    monkeypatch.chdir(both)
    assert resolve("work") == origin["work"]
    with pytest.raises(UsageError) as raised:
        resolve("aaa/nope")
    assert (
        raised.value.hint
        == "run: git fetch --no-tags origin +refs/heads/aaa/nope:refs/remotes/origin/aaa/nope"
    )


def test_two_remotes_and_no_origin_is_no_remote_to_fetch_from(
    origin: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = clone(origin, tmp_path / "c", "-o", "one", "--single-branch", "-b", "main")
    git(repo, "remote", "add", "two", origin["url"])
    monkeypatch.chdir(repo)
    assert resolve("main") == origin["main"]
    with pytest.raises(UsageError) as raised:
        resolve("work")
    assert (raised.value.message, raised.value.hint) == (
        "--base work: no such revision in this clone, and no remote to fetch it",
        None,
    )


@pytest.mark.parametrize(
    ("ref", "branch"),
    [("nope", "nope"), ("origin/nope", "nope"), ("refs/remotes/origin/nope", "nope"),
     ("refs/heads/nope", "nope"), ("feature/nope", "feature/nope")],
)  # fmt: skip
def test_a_ref_the_remote_lacks_names_the_fetch_to_run(
    origin: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ref: str, branch: str
) -> None:
    repo = clone(origin, tmp_path / "c", "--single-branch", "-b", "main")
    monkeypatch.chdir(repo)
    with pytest.raises(UsageError) as raised:
        resolve(ref)
    assert (raised.value.message, raised.value.hint) == (
        f"--base {ref}: revision not in this clone, and fetching it from origin failed",
        f"run: git fetch --no-tags origin +refs/heads/{branch}:refs/remotes/origin/{branch}",
    )


def test_merge_base_in_a_full_clone(
    origin: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = clone(origin, tmp_path / "c", "-b", "work")
    monkeypatch.chdir(repo)
    assert merge_base("main") == origin["fork"]
    assert merge_base("origin/long") == origin["fork"]


def test_a_shallow_clone_is_deepened_until_the_merge_base_is_in_it(
    origin: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = clone(origin, tmp_path / "c", "--depth=1", "--single-branch", "-b", "work")
    monkeypatch.chdir(repo)
    assert git(repo, "merge-base", origin["work"], "HEAD") == origin["work"]
    assert merge_base("main") == origin["fork"]
    assert git(repo, "rev-parse", "--is-shallow-repository") == "true"  # deepened, not whole
    # main came 50 deep (m3-p153), then every boundary moved by 1 and by 50, no further:
    # HEAD reaches w3-w1, m1 and p199-p102 (unshallowed, 207)
    assert git(repo, "rev-list", "--count", "HEAD") == str(3 + 1 + 98)


def test_a_base_that_is_no_branch_deepens_the_clone_s_own_branch(
    origin: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit id as REF: `+refs/heads/<id>` cannot be fetched, so each step deepens
    what the clone already tracks."""
    repo = clone(origin, tmp_path / "c", "--depth=1", "--single-branch", "-b", "work")
    git(repo, "fetch", "-q", "--depth=1", "origin", "main")
    monkeypatch.chdir(repo)
    assert merge_base(origin["main"]) == origin["fork"]


def test_unrelated_histories_name_the_fetch_of_the_branch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q")
    commits(repo, "a")
    git(repo, "checkout", "-q", "--orphan", "other")
    commits(repo, "b")
    monkeypatch.chdir(repo)
    with pytest.raises(UsageError) as raised:
        merge_base("main")
    assert (raised.value.message, raised.value.hint) == (
        "--base main: no merge base with HEAD in this clone",
        "run: git fetch --no-tags origin +refs/heads/main:refs/remotes/origin/main",
    )
    git(repo, "remote", "add", "up", str(tmp_path / "gone"))
    with pytest.raises(UsageError) as raised:
        merge_base("up/main")
    assert raised.value.hint == (
        "run: git fetch --no-tags up +refs/heads/main:refs/remotes/up/main"
    )


def test_a_shallow_clone_that_cannot_fetch_names_the_unshallow(
    origin: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = clone(origin, tmp_path / "c", "--depth=1", "--no-single-branch", "-b", "work")
    git(repo, "remote", "set-url", "origin", str(tmp_path / "gone"))
    monkeypatch.chdir(repo)
    with pytest.raises(UsageError) as raised:
        merge_base("main")
    assert (raised.value.message, raised.value.hint) == (
        "--base main: no merge base with HEAD in this clone",
        "run: git fetch --no-tags --unshallow origin +refs/heads/main:refs/remotes/origin/main",
    )


@pytest.fixture
def fake_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `git` first on PATH that runs the shell code in $FAKE_GIT."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "git"
    script.write_text('#!/bin/sh\neval "$FAKE_GIT"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return script


def test_git_runs_without_a_prompt_and_gives_its_output_or_none(
    fake_git: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_ASKPASS", "/usr/bin/askpass")
    monkeypatch.setenv("SSH_ASKPASS", "/usr/bin/askpass")
    monkeypatch.setenv(
        "FAKE_GIT",
        'printf "%s|%s|%s|%s|%s" "$*" "$GIT_TERMINAL_PROMPT" "$GIT_ASKPASS" "$SSH_ASKPASS" '
        '"${GIT_ASKPASS+set}"',
    )
    assert Git().run("rev-parse", "x y") == b"rev-parse x y|0|||set"
    monkeypatch.setenv("FAKE_GIT", "printf out; exit 1")
    assert Git().run("status") is None
    monkeypatch.setenv("FAKE_GIT", "printf '  caf\\351 \\n'")
    assert Git().text("log") == "caf\N{REPLACEMENT CHARACTER}"
    monkeypatch.setenv("FAKE_GIT", "exit 3")
    assert Git().text("log") is None


def test_git_that_hangs_or_is_missing_is_none(
    fake_git: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_GIT", "exec sleep 5")
    assert Git().run("fetch", timeout=0.2) is None
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    assert Git().run("--version") is None
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match=r"^--base main: not inside a git work tree$"):
        resolve("main")


def test_fetch_is_quiet_tagless_and_says_whether_it_worked(
    fake_git: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_GIT", 'printf "%s" "$*"')
    assert Git().fetch("--depth=1", "origin") is True
    monkeypatch.setenv("FAKE_GIT", 'test "$*" = "fetch --no-tags --quiet origin"')
    assert Git().fetch("origin") is True
    assert Git().fetch("other") is False


@pytest.mark.parametrize(
    ("listed", "expected"),
    [("origin\n", "origin"), ("a\norigin\n", "origin"), ("up\n", "up"), ("a\nb\n", None),
     ("", None)],
)  # fmt: skip
def test_the_remote_git_lists(
    fake_git: Path, monkeypatch: pytest.MonkeyPatch, listed: str, expected: str | None
) -> None:
    monkeypatch.setenv("FAKE_GIT", f'test "$*" = remote && printf "{listed}"')
    assert Git().remote() == expected


def test_shallow_and_commit_ask_git_exactly(
    fake_git: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "FAKE_GIT",
        'case "$*" in "rev-parse --is-shallow-repository") echo true;; '
        '"rev-parse --verify --quiet v1^{commit}") echo abc;; *) exit 1;; esac',
    )
    assert Git().shallow() is True
    assert Git().commit("v1") == "abc"
    assert Git().commit("v2") is None
    monkeypatch.setenv("FAKE_GIT", "echo false")
    assert Git().shallow() is False


def test_with_no_remote_a_ref_is_looked_for_as_written_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q")
    commits(repo, "a")
    git(repo, "branch", "None/x")  # what `{remote}/x` would spell with no remote
    monkeypatch.chdir(repo)
    with pytest.raises(UsageError) as raised:
        resolve("x")
    assert raised.value.message == (
        "--base x: no such revision in this clone, and no remote to fetch it"
    )


def test_a_failed_merge_base_names_the_remote_s_branch(
    origin: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = clone(origin, tmp_path / "c", "--depth=1", "--no-single-branch", "-b", "work")
    git(repo, "remote", "set-url", "origin", str(tmp_path / "gone"))
    monkeypatch.chdir(repo)
    with pytest.raises(UsageError) as raised:
        merge_base("origin/main")
    assert (raised.value.message, raised.value.hint) == (
        "--base origin/main: no merge base with HEAD in this clone",
        "run: git fetch --no-tags --unshallow origin +refs/heads/main:refs/remotes/origin/main",
    )


def test_unrelated_histories_with_a_remote_and_a_full_clone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q")
    main = commits(repo, "a")
    git(repo, "checkout", "-q", "--orphan", "other")
    commits(repo, "b")
    git(repo, "remote", "add", "up", str(tmp_path / "gone"))
    git(repo, "update-ref", "refs/remotes/up/main", main)
    monkeypatch.chdir(repo)
    with pytest.raises(UsageError) as raised:
        merge_base("up/main")
    assert (raised.value.message, raised.value.hint) == (
        "--base up/main: no merge base with HEAD in this clone",
        "run: git fetch --no-tags up +refs/heads/main:refs/remotes/up/main",
    )


@pytest.fixture(scope="module")
def deep(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """main: r0-r199, then 100 commits after the fork (r199); `short` from r199, one
    commit; `long` from r199, 600 commits (past every deepening step)."""
    repo = tmp_path_factory.mktemp("deep")
    git(repo, "init", "-q")
    root = [f"r{i}" for i in range(200)]
    stream = history("main", 1, root + [f"m{i}" for i in range(100)], None)
    stream += history("short", 1000, ["s0"], ":200")
    stream += history("long", 2000, [f"l{i}" for i in range(600)], ":200")
    fast_import(repo, stream)
    git(repo, "checkout", "-q", "main")
    fork = git(repo, "rev-parse", "main~100")
    return {"url": f"file://{repo}", "fork": fork}


def test_the_base_s_own_history_is_deepened_too(
    deep: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """main is 100 commits past the fork: only deepening main (its refspec) reaches it."""
    repo = clone(deep, tmp_path / "c", "--depth=1", "--single-branch", "-b", "short")
    monkeypatch.chdir(repo)
    assert merge_base("main") == deep["fork"]
    assert git(repo, "rev-parse", "--is-shallow-repository") == "true"


def test_a_fork_past_every_step_is_found_unshallowed(
    deep: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = clone(deep, tmp_path / "c", "--depth=1", "--single-branch", "-b", "long")
    monkeypatch.chdir(repo)
    assert merge_base("main") == deep["fork"]
    assert git(repo, "rev-parse", "--is-shallow-repository") == "false"


def test_a_fetch_may_take_longer_than_other_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolsel.diff.gitbase as gitbase

    seen: list[tuple[list[str], object, object]] = []

    def run(command: list[str], **options: object) -> subprocess.CompletedProcess[bytes]:
        seen.append((command, options["timeout"], options.get("check", False)))
        return subprocess.CompletedProcess(command, 0, b"", b"")

    monkeypatch.setattr(gitbase.subprocess, "run", run)
    assert Git().fetch("origin") is True
    assert Git().text("remote") == ""
    assert seen == [
        (["git", "fetch", "--no-tags", "--quiet", "origin"], gitbase.FETCH_TIMEOUT, False),
        (["git", "remote"], gitbase.GIT_TIMEOUT, False),
    ]
    assert gitbase.FETCH_TIMEOUT > gitbase.GIT_TIMEOUT


def test_a_detached_clone_deepens_through_its_remote_by_name(
    origin: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CI's detached HEAD has no upstream: a commit id as REF deepens through the remote
    the clone has (`up`), never a default `origin` it lacks."""
    repo = clone(origin, tmp_path / "c", "-o", "up", "--depth=1", "--single-branch", "-b", "work")
    git(repo, "checkout", "-q", "--detach")
    git(repo, "fetch", "-q", "--depth=1", "up", "main")
    monkeypatch.chdir(repo)
    assert merge_base(origin["main"]) == origin["fork"]
