"""Tool vectors, cached by content, and query vectors.

Tool vectors live in the toolsel cache under ``vectors/<model>/<key>.npz``, where the key
hashes the model's identity, the tool-text recipe and every tool's text: an unchanged
registry never re-embeds. When the key misses (a registry was edited), the most recent
vector files for the same model are searched by per-text hash, so only tools whose text
changed are embedded again.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from toolsel.embed.model import MODEL_KEY, embedder

if TYPE_CHECKING:
    import numpy as np

#: (how many texts will be embedded) -> a context manager giving an `advance(n)` callback.
ProgressFactory = Callable[[int], contextlib.AbstractContextManager[Callable[[int], None]]]
#: A progress bar is shown only when more texts than this need embedding.
PROGRESS_MIN_TEXTS = 100
#: How many recent vector files a cache miss searches for reusable vectors.
REUSE_FILES = 4
#: Vector files kept per model; older ones are removed.
KEEP_FILES = 64
#: Texts of similar length embedded together. On 2 cores, 4 at a time is 25% faster than
#: one by one at the same peak memory; 8 or 16 are no faster and far heavier (2,000 MetaTool
#: prompts: 317 MB peak at 4, 401 MB at 8, 592 MB at 16, as onnxruntime keeps buffers for
#: every padded shape). Padding changes a vector by under 1e-4.
BATCH_SIZE = 4


def text_hash(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def vectors_key(texts: Sequence[str], recipe: str) -> str:
    digest = hashlib.blake2b(f"{MODEL_KEY}|{recipe}".encode(), digest_size=32)
    for text in texts:
        digest.update(text_hash(text))
    return digest.hexdigest()


def vector_dir() -> Path:
    from toolsel.registry.cache import cache_dir

    return cache_dir() / "vectors" / hashlib.blake2b(MODEL_KEY.encode(), digest_size=6).hexdigest()


def tool_vectors(
    texts: Sequence[str],
    recipe: str,
    *,
    use_cache: bool = True,
    progress: ProgressFactory | None = None,
) -> np.ndarray:
    """One unit-length float32 row per tool text, from the cache where possible; on a miss,
    rows whose text is in a recent vector file are reused and only the rest embedded."""
    path = vector_dir() / f"{vectors_key(texts, recipe)}.npz"
    return _cached_vectors(texts, path, use_cache=use_cache, reuse=True, progress=progress)


def prompt_set_vectors(
    queries: Sequence[str], *, use_cache: bool = True, progress: ProgressFactory | None = None
) -> np.ndarray:
    """Vectors for a whole set of prompts (an `eval` cases file, `--batch`, golden cases),
    cached under `vectors/<model>/prompts/` by the set's texts: rerunning an evaluation after
    editing tool descriptions re-embeds only the edited tools, never the prompts."""
    path = vector_dir() / "prompts" / f"{vectors_key(queries, 'prompts')}.npz"
    return _cached_vectors(queries, path, use_cache=use_cache, reuse=False, progress=progress)


def query_vectors(queries: Sequence[str]) -> np.ndarray:
    """Unit-length vectors for prompts, embedded now (not cached)."""
    return embedder().embed(list(queries), batch_size=BATCH_SIZE)


def _cached_vectors(
    texts: Sequence[str],
    path: Path,
    *,
    use_cache: bool,
    reuse: bool,
    progress: ProgressFactory | None,
) -> np.ndarray:
    import numpy as np

    from toolsel.registry.cache import cache_enabled

    caching = use_cache and cache_enabled()
    if caching:
        found = _read(path)
        if found is not None and len(found[1]) == len(texts):
            return found[1]
    hashes = [text_hash(t) for t in texts]
    vectors = np.zeros((len(texts), embedder().spec.dimension), dtype=np.float32)
    todo = _reuse(hashes, vectors, path) if caching and reuse else list(range(len(texts)))
    if todo:
        _embed_into(vectors, [texts[i] for i in todo], todo, progress)
    if caching:
        _write(path, hashes, vectors)
    return vectors


def _embed_into(
    vectors: np.ndarray, texts: list[str], rows: list[int], progress: ProgressFactory | None
) -> None:
    """Embed in chunks, so a progress bar can advance."""
    bar = progress(len(texts)) if progress and len(texts) > PROGRESS_MIN_TEXTS else None
    with bar if bar is not None else contextlib.nullcontext(lambda n: None) as advance:
        step = 32
        for start in range(0, len(texts), step):
            chunk = texts[start : start + step]
            vectors[rows[start : start + step]] = embedder().embed(chunk, batch_size=BATCH_SIZE)
            advance(len(chunk))


def _read(path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    import numpy as np

    from toolsel.registry.cache import log, read_sealed

    data = read_sealed(path, path.stem)
    if data is None:
        return None
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            hashes, vectors = arrays["hashes"], arrays["vectors"]
    except Exception:  # numpy and zipfile raise many kinds; any means "rebuild"
        log.info("discarded vectors that numpy cannot read (%s); they will be rebuilt", path.name)
        return None
    if vectors.ndim != 2 or len(hashes) != len(vectors):
        log.info("discarded vectors whose arrays do not agree (%s)", path.name)
        return None
    return hashes, vectors


def _recent(directory: Path) -> list[Path]:
    try:
        files = [p for p in directory.iterdir() if p.suffix == ".npz"]
    except OSError:
        return []
    with contextlib.suppress(OSError):
        files.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    return files


def _reuse(hashes: list[bytes], vectors: np.ndarray, path: Path) -> list[int]:
    """Fill rows whose text was embedded before; return the rows still to embed."""
    wanted: dict[bytes, list[int]] = {}
    for row, h in enumerate(hashes):
        wanted.setdefault(h, []).append(row)
    for recent in _recent(path.parent)[:REUSE_FILES]:
        found = _read(recent)
        if found is None:
            continue
        old_hashes, old_vectors = found
        for position, raw in enumerate(old_hashes):
            rows = wanted.pop(raw.tobytes(), None)
            if rows is not None:
                vectors[rows] = old_vectors[position]
        if not wanted:
            break
    return sorted(row for rows in wanted.values() for row in rows)


def _write(path: Path, hashes: list[bytes], vectors: np.ndarray) -> None:
    import numpy as np

    from toolsel.registry.cache import write_sealed

    buffer = io.BytesIO()
    np.savez(
        buffer,
        hashes=np.frombuffer(b"".join(hashes), dtype=np.uint8).reshape(len(hashes), 16),
        vectors=vectors,
    )
    with contextlib.suppress(OSError):
        write_sealed(path, path.stem, buffer.getvalue())
        for old in _recent(path.parent)[KEEP_FILES:]:
            old.unlink(missing_ok=True)
