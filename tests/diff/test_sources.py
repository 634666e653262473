"""Each side of a diff: `REF:PATH` read from git when PATH is not on disk and REF is a
revision (never a scheme such as `mcp:` or `https:`), the rest loaded as every command
loads registries."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from toolsel.diff.sources import GitPath, load_side, read_revision, split_revision
from toolsel.errors import ConfigError, UsageError

TOOLS = "tools:\n  - name: {name}\n    description: Reads {name}.\n"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main",
         *args],
        cwd=cwd, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository (the working directory) whose `main` holds reg/ with a.yaml, b.json,
    c.YML, d.jsonl, notes.md and tools.txt; the work tree then changes a.yaml."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    root = tmp_path / "repo"
    (root / "reg").mkdir(parents=True)
    git(root, "init", "-q")
    (root / "reg" / "a.yaml").write_text(TOOLS.format(name="a"))
    (root / "reg" / "b.json").write_text('{"tools": [{"name": "b", "description": "Reads b."}]}')
    (root / "reg" / "c.YML").write_text(TOOLS.format(name="c"))
    (root / "reg" / "d.jsonl").write_text('{"tools": [{"name": "d", "description": "Reads d."}]}')
    (root / "reg" / "notes.md").write_text("# not a registry\n")
    (root / "reg" / "tools.txt").write_text(TOOLS.format(name="t"))
    git(root, "add", ".")
    git(root, "commit", "-qm", "old")
    (root / "reg" / "a.yaml").write_text(TOOLS.format(name="a2"))
    monkeypatch.chdir(root)
    return root


def test_a_path_on_disk_or_without_a_colon_is_not_a_revision(repo: Path) -> None:
    (repo / "main:docs").mkdir()
    assert split_revision("main:docs") is None
    assert split_revision("reg/") is None
    assert split_revision("main:reg/") == GitPath("main", "reg/")
    assert split_revision("main:") == GitPath("main", ".")


@pytest.mark.parametrize(
    "spec",
    ["mcp:reg/", "MCP:reg/", "https:reg/", "http:reg/", "builtin:reg/", "file:reg/",
     "stdio:reg/", "a b:reg/", ":reg/", "main;x:reg/"],
)  # fmt: skip
def test_schemes_and_what_no_revision_is_spelt_like_are_paths(repo: Path, spec: str) -> None:
    """Even with a branch of that name: `mcp:` starts a live server, `https:` a URL."""
    for branch in ("mcp", "MCP", "https", "http", "builtin", "file", "stdio"):
        git(repo, "branch", branch)
    assert split_revision(spec) is None


def test_outside_a_repository_nothing_is_a_revision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert split_revision("main:reg/") is None


def test_a_revision_the_clone_lacks_says_so_in_the_spec_s_words(repo: Path) -> None:
    with pytest.raises(UsageError) as raised:
        split_revision("nope:reg/")
    assert (raised.value.message, raised.value.hint) == (
        "nope:reg/: nope: no such revision in this clone, and no remote to fetch it",
        None,
    )
    git(repo, "remote", "add", "origin", str(repo.parent / "gone"))
    with pytest.raises(UsageError) as raised:
        split_revision("nope:reg/")
    assert (raised.value.message, raised.value.hint) == (
        "nope:reg/: nope: revision not in this clone, and fetching it from origin failed",
        "run: git fetch --no-tags origin +refs/heads/nope:refs/remotes/origin/nope",
    )


def test_a_revision_only_the_remote_has_is_fetched(repo: Path, tmp_path: Path) -> None:
    git(repo, "branch", "old")
    old = git(repo, "rev-parse", "old")
    git(tmp_path, "clone", "-q", "--single-branch", "-b", "main", f"file://{repo}", "c")
    clone = tmp_path / "c"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(clone)
        assert split_revision("old:reg/") == GitPath(old, "reg/")


def test_a_folder_at_a_revision_is_its_registry_files_as_they_were(repo: Path) -> None:
    found = read_revision(GitPath("main", "reg"))
    assert list(found) == [
        Path("main:reg/a.yaml"),
        Path("main:reg/b.json"),
        Path("main:reg/c.YML"),
        Path("main:reg/d.jsonl"),
    ]
    assert found[Path("main:reg/a.yaml")] == TOOLS.format(name="a").encode()
    assert (
        found[Path("main:reg/d.jsonl")] == b'{"tools": [{"name": "d", "description": "Reads d."}]}'
    )


def test_a_file_named_directly_is_read_whatever_its_suffix(repo: Path) -> None:
    assert read_revision(GitPath("main", "reg/tools.txt")) == {
        Path("main:reg/tools.txt"): TOOLS.format(name="t").encode()
    }


def test_no_registry_file_at_the_revision_is_an_error(repo: Path) -> None:
    (repo / "docs").mkdir()
    (repo / "docs" / "a.md").write_text("a\n")
    (repo / "docs" / "b.md").write_text("b\n")
    git(repo, "add", "docs")
    git(repo, "commit", "-qm", "docs")
    for path in ("docs", "missing/"):
        with pytest.raises(UsageError) as raised:
            read_revision(GitPath("main", path))
        assert (raised.value.message, raised.value.hint) == (
            f"main:{path}: no registry files at that revision",
            f"check with: git ls-tree -r main -- {path}",
        )


def test_an_entry_git_cannot_show_is_named(repo: Path) -> None:
    """A submodule (a commit this repository does not hold) listed as reg/sub.yaml."""
    commit = git(repo, "rev-parse", "HEAD")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},reg/sub.yaml")
    git(repo, "commit", "-qm", "submodule")
    assert commit != git(repo, "rev-parse", "HEAD")
    with pytest.raises(UsageError) as raised:
        read_revision(GitPath("main", "reg"))
    assert (raised.value.message, raised.value.hint) == (
        "main:reg/sub.yaml: git cannot show it",
        None,
    )


def test_a_side_mixes_revisions_and_files_on_disk(repo: Path) -> None:
    side = load_side(["main:reg/a.yaml", "reg/a.yaml", "main:reg/b.json"], no_cache=True)
    assert side.names == ["a", "b", "a2"]
    assert [t.source.file for t in side.tools] == [
        "main:reg/a.yaml",
        "main:reg/b.json",
        "reg/a.yaml",
    ]


def test_a_side_from_disk_only_or_git_only(repo: Path) -> None:
    assert load_side(["reg/"], no_cache=True).names == ["a2", "b", "c", "d"]
    assert load_side(["main:reg/"], no_cache=True).names == ["a", "b", "c", "d"]


def test_namespace_names_the_tools_on_disk_after_their_file(repo: Path) -> None:
    assert load_side(["reg/a.yaml", "srv=reg/b.json"], no_cache=True, namespace=True).names == [
        "mcp__a__a2",
        "mcp__srv__b",
    ]
    assert load_side(["srv=reg/b.json"], no_cache=True).names == ["mcp__srv__b"]


def test_no_cache_writes_no_cache(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = "tools:\n" + "".join(
        f"  - name: t{i}\n    description: {'Reads a large page of text. ' * 6}\n"
        for i in range(500)
    )
    (repo / "big.yaml").write_text(big)
    cache = tmp_path / "cache"
    monkeypatch.setenv("TOOLSEL_CACHE_DIR", str(cache))
    assert len(load_side(["big.yaml"], no_cache=True).names) == 500
    assert not cache.exists() or list(cache.rglob("*.*")) == []
    assert len(load_side(["big.yaml"], no_cache=False).names) == 500
    assert list(cache.rglob("*")) != []


def test_sources_a_config_names_follow_its_trust(repo: Path) -> None:
    """A live server named by a repository's config is not started; typed, it would be."""
    config = repo / "toolsel.toml"
    config.write_text('registry = ["mcp:false"]\n')
    with pytest.raises(ConfigError) as raised:
        load_side(["mcp:false"], no_cache=True, named_by=config)
    assert raised.value.message == (
        f"{config}: `registry` names a live MCP server, not started: mcp:false"
    )


def test_a_path_at_a_revision_may_hold_a_colon_or_start_with_a_dash(repo: Path) -> None:
    (repo / "a:b.yaml").write_text(TOOLS.format(name="colon"))
    (repo / "-reg").mkdir()
    (repo / "-reg" / "d.yaml").write_text(TOOLS.format(name="dash"))
    git(repo, "add", "--", "a:b.yaml", "-reg")
    git(repo, "commit", "-qm", "odd names")
    (repo / "a:b.yaml").unlink()
    assert split_revision("main:a:b.yaml") == GitPath("main", "a:b.yaml")
    assert load_side(["main:a:b.yaml"], no_cache=True).names == ["colon"]
    assert read_revision(GitPath("main", "-reg")) == {
        Path("main:-reg/d.yaml"): TOOLS.format(name="dash").encode()
    }


def test_a_range_is_no_revision(repo: Path) -> None:
    with pytest.raises(UsageError) as raised:
        split_revision("main..main:reg/")
    assert raised.value.message == (
        "main..main:reg/: main..main: no such revision in this clone, and no remote to fetch it"
    )
