"""Each side of a diff as given: registry paths (loaded by the loader every command uses),
or `REF:PATH` read from git (read-only: `git rev-parse`, `git ls-tree`, `git show`).
`REF:PATH` is read from git only when PATH does not exist on disk as written."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from toolsel.errors import UsageError
from toolsel.registry.model import Registry
from toolsel.registry.paths import REGISTRY_SUFFIXES, FileList

#: A git revision, as `REF:PATH` starts (no scheme such as `https:` or `mcp:`).
_REVISION = re.compile(r"[A-Za-z0-9._/@^~{}-]+")
_NOT_REVISIONS = frozenset({"http", "https", "mcp", "builtin", "file", "stdio"})


@dataclass(frozen=True, slots=True)
class GitPath:
    ref: str
    path: str


def split_revision(spec: str) -> GitPath | None:
    """`REF:PATH` when `spec` is not a path on disk and REF is a revision of this clone."""
    if Path(spec).exists() or ":" not in spec:
        return None
    ref, _, path = spec.partition(":")
    if not ref or not _REVISION.fullmatch(ref) or ref.lower() in _NOT_REVISIONS:
        return None
    if _git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}") is None:
        if _git("rev-parse", "--is-inside-work-tree") is None:
            return None
        from toolsel.diff.gitbase import resolve

        try:
            ref = resolve(ref)  # fetched from the remote when the clone lacks it
        except UsageError as error:
            raise UsageError(
                f"{spec}: {error.message.removeprefix('--base ')}", hint=error.hint
            ) from None
    return GitPath(ref, path or ".")


def load_side(
    specs: list[str], *, no_cache: bool, namespace: bool = False, named_by: Path | None = None
) -> Registry:
    """One side's registry: git revisions read with `git show`, the rest through the
    sources every command reads (`toolsel.sources.registry_files`)."""
    from toolsel.registry import load_registry
    from toolsel.sources import ConfiguredPaths, registry_files

    files = FileList()
    contents: dict[Path, bytes] = {}
    local: list[Path] = []
    for spec in specs:
        revision = split_revision(spec)
        if revision is None:
            local.append(Path(spec))
            continue
        for name, data in read_revision(revision).items():
            files.append(name)
            contents[name] = data
    if local:
        given = ConfiguredPaths(local, named_by) if named_by is not None else local
        expanded = registry_files(given, namespace=namespace)
        files.extend(expanded)
        files.namespaces.update(expanded.namespaces)
        files.labels.update(expanded.labels)
    return load_registry(files, use_cache=not no_cache, contents=contents)


def read_revision(revision: GitPath) -> dict[Path, bytes]:
    """The registry files under PATH at REF, by the name `REF:FILE` they are shown as."""
    listed = _git("ls-tree", "-r", "--name-only", revision.ref, "--", revision.path)
    names = [n for n in (listed or b"").decode("utf-8", "surrogateescape").splitlines() if n]
    wanted = [n for n in names if n.lower().endswith(REGISTRY_SUFFIXES)]
    if len(names) == 1:
        wanted = names  # a file named directly is read whatever its suffix
    if not wanted:
        raise UsageError(
            f"{revision.ref}:{revision.path}: no registry files at that revision",
            hint=f"check with: git ls-tree -r {revision.ref} -- {revision.path}",
        )
    found: dict[Path, bytes] = {}
    for name in sorted(wanted):
        data = _git("show", f"{revision.ref}:./{name}")
        if data is None:
            raise UsageError(f"{revision.ref}:{name}: git cannot show it")
        found[Path(f"{revision.ref}:{name}")] = data
    return found


def _git(*args: str) -> bytes | None:
    from toolsel.diff.gitbase import Git

    return Git().run(*args)
