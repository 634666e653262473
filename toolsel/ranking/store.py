"""Find or build the ranking index of a registry, caching it by the registry's content.

The cache key covers every file's path and bytes, the index format and the field weights,
so any edit rebuilds it. A cache hit needs neither YAML parsing nor scikit-learn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from toolsel.ranking.fields import EMBED_RECIPE, FIELD_WEIGHTS
from toolsel.ranking.index import EXAMPLES_FULL_WEIGHT_AT, INDEX_FORMAT, RankIndex, build_index
from toolsel.ranking.prepared import PreparedIndex
from toolsel.registry import cache
from toolsel.registry.paths import PathLike
from toolsel.sources import registry_files

if TYPE_CHECKING:
    from toolsel.registry.model import Registry

INDEX_SUFFIX = ".rank.bin"


def registry_key(
    files: Sequence[Path], contents: Mapping[Path, bytes], *, examples: bool = True
) -> str:
    """The index's cache key: the format, weights and embedding recipe, each file's path and
    bytes (overlays included, so editing one rebuilds the index), and whether examples
    are used."""
    recipe = (
        f"{INDEX_FORMAT}|{sorted(FIELD_WEIGHTS.items())}|{EXAMPLES_FULL_WEIGHT_AT}|{EMBED_RECIPE}"
        f"|examples={examples}"
    )
    digest = cache.blake2b(recipe.encode(), digest_size=32)
    namespaces = getattr(files, "namespaces", {})
    for path in files:
        digest.update(str(path).encode("utf-8", "surrogateescape") + b"\0")
        digest.update(namespaces.get(path, "").encode() + b"\0")
        digest.update(contents[path])
        digest.update(b"\0")
    return digest.hexdigest()


def read_contents(files: Sequence[Path]) -> dict[Path, bytes] | None:
    """Every file's bytes, read once: the key is their hash and the index is built from the
    same bytes, so an edit between the two cannot store new content under an old key. None
    when a file cannot be read (the loader then reports why)."""
    from toolsel.inputs import InputProblem
    from toolsel.registry.paths import read_registry_bytes

    try:
        return {path: read_registry_bytes(path) for path in files}
    except InputProblem:
        return None


def load_index(
    paths: PathLike | Iterable[PathLike] | None = None,
    *,
    use_cache: bool = True,
    bulk: bool = False,
    examples: bool = True,
) -> PreparedIndex:
    """The prepared index of the registry at `paths` (default: the project's registry);
    `bulk` when many queries will be ranked (see `PreparedIndex.bulk`); `examples=False`
    ranks without example prompts (`--no-examples`)."""
    files = registry_files(paths)
    contents = read_contents(files) if use_cache and cache.cache_enabled() else None
    key = registry_key(files, contents, examples=examples) if contents is not None else None

    def build() -> RankIndex:
        from toolsel.registry.loader import load_registry

        registry = load_registry(files, use_cache=use_cache, contents=contents)
        return build_index(registry, examples=examples)

    return PreparedIndex(_cached_or_built(key, build), bulk=bulk)


@dataclass(frozen=True, slots=True)
class RegistryRead:
    """A registry read once, and the key of its index: the index is found or built from the
    same bytes (`prepared_index`), so the two always describe the same files."""

    registry: Registry
    key: str | None  # None: caching is off, or a file could not be read whole

    def prepared_index(self, *, bulk: bool = True) -> PreparedIndex:
        """The index from the cache when its key matches, else built and cached."""
        return PreparedIndex(
            _cached_or_built(self.key, lambda: build_index(self.registry)), bulk=bulk
        )


def read_registry_for_index(paths: PathLike | Iterable[PathLike] | None = None) -> RegistryRead:
    """The registry at `paths` from one read of every file, and its index's key; the index
    itself (which may take seconds to build) is left for `RegistryRead.prepared_index`."""
    from toolsel.registry.loader import load_registry

    files = registry_files(paths)
    contents = read_contents(files)
    registry = load_registry(files, contents=contents)
    key = registry_key(files, contents) if contents is not None and cache.cache_enabled() else None
    return RegistryRead(registry, key)


def _cached_or_built(key: str | None, build: Callable[[], RankIndex]) -> RankIndex:
    """The index cached under `key`, else `build()`, then cached (no key: never cached)."""
    found = _load_cached(key) if key else None
    if found is None:
        found = build()
        if key:
            _store(key, found)
    return found


def _load_cached(key: str) -> RankIndex | None:
    """The cached index, or None when there is none or it cannot be trusted (rebuilt)."""
    from toolsel.ranking import persist

    data = cache.read_sealed(cache.entry_path(key, INDEX_SUFFIX), key)
    if data is None:
        return None
    try:
        return persist.loads(data)
    except (ValueError, KeyError, TypeError, IndexError, OverflowError, EOFError):
        cache.log.info("discarded a ranking index that does not add up; it will be rebuilt")
        return None


def _store(key: str, index: RankIndex) -> None:
    import contextlib

    from toolsel.ranking import persist

    with contextlib.suppress(OSError):
        cache.write_sealed(cache.entry_path(key, INDEX_SUFFIX), key, persist.dumps(index))
