"""Find or build the ranking index of a registry, caching it by the registry's content.

The cache key covers every file's path and bytes, the index format and the field weights,
so any edit rebuilds it. A cache hit needs neither YAML parsing nor scikit-learn.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path

from toolsel.ranking.fields import EMBED_RECIPE, FIELD_WEIGHTS
from toolsel.ranking.index import INDEX_FORMAT, RankIndex, build_index
from toolsel.ranking.prepared import PreparedIndex
from toolsel.registry import cache
from toolsel.registry.paths import PathLike, registry_files


def registry_key(files: Sequence[Path]) -> str:
    digest = hashlib.blake2b(
        f"{INDEX_FORMAT}|{sorted(FIELD_WEIGHTS.items())}|{EMBED_RECIPE}".encode(), digest_size=32
    )
    for path in files:
        digest.update(str(path).encode() + b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def load_index(
    paths: PathLike | Iterable[PathLike] | None = None, *, use_cache: bool = True
) -> PreparedIndex:
    """The prepared index of the registry at `paths` (default: the project's registry)."""
    files = registry_files(paths)
    key = registry_key(files) if use_cache and cache.cache_enabled() else None
    if key:
        found = _load_cached(key)
        if found is not None:
            return PreparedIndex(found)
    from toolsel.registry.loader import load_registry

    index = build_index(load_registry(files, use_cache=use_cache))
    if key:
        _store(key, index)
    return PreparedIndex(index)


def _load_cached(key: str) -> RankIndex | None:
    json_entry = cache.load_json(key, ".rank.json")
    if json_entry is not None:
        try:
            return RankIndex.from_json(json_entry)
        except (ValueError, KeyError, TypeError, OverflowError):
            return None
    try:
        data = cache.entry_path(key, ".rank.npz").read_bytes()
    except OSError:
        return None
    try:
        return RankIndex.from_npz(data)
    except (ValueError, KeyError, OSError, TypeError):
        return None


def _store(key: str, index: RankIndex) -> None:
    if index.is_large:
        import contextlib

        with contextlib.suppress(OSError):
            cache.write_atomic(cache.entry_path(key, ".rank.npz"), index.to_npz())
    else:
        cache.store_json(key, ".rank.json", index.to_json())
