from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.embed.fakes import FakeEmbedder
from toolsel.embed import vectors


def test_an_unchanged_registry_never_re_embeds(fake_embedder: FakeEmbedder) -> None:
    texts = [f"tool {i} does thing {i}" for i in range(5)]
    first = vectors.tool_vectors(texts, "r1")
    assert len(fake_embedder.embedded) == 5
    again = vectors.tool_vectors(texts, "r1")
    assert len(fake_embedder.embedded) == 5  # served from the npz cache
    assert np.array_equal(first, again)


def test_only_changed_tools_are_re_embedded(fake_embedder: FakeEmbedder) -> None:
    texts = [f"tool {i} does thing {i}" for i in range(6)]
    vectors.tool_vectors(texts, "r1")
    fake_embedder.embedded.clear()
    edited = [*texts[:5], "a brand new description", "one more tool"]
    result = vectors.tool_vectors(edited, "r1")
    assert fake_embedder.embedded == ["a brand new description", "one more tool"]
    assert np.allclose(result, FakeEmbedder().embed(edited))


def test_a_new_recipe_or_no_cache_embeds_again(
    fake_embedder: FakeEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = ["alpha", "beta"]
    vectors.tool_vectors(texts, "r1")
    vectors.tool_vectors(texts, "r1", use_cache=False)
    assert len(fake_embedder.embedded) == 4
    monkeypatch.setenv("TOOLSEL_NO_CACHE", "1")
    vectors.tool_vectors(texts, "r1")
    assert len(fake_embedder.embedded) == 6


def test_a_corrupt_vector_file_is_ignored(fake_embedder: FakeEmbedder) -> None:
    texts = ["alpha", "beta"]
    vectors.tool_vectors(texts, "r1")
    for path in vectors.vector_dir().iterdir():
        path.write_bytes(b"not an npz")
    result = vectors.tool_vectors(texts, "r1")
    assert len(fake_embedder.embedded) == 4
    assert np.allclose(np.linalg.norm(result, axis=1), 1.0)


def test_vectors_are_stored_as_npz_without_pickle(fake_embedder: FakeEmbedder) -> None:
    vectors.tool_vectors(["alpha"], "r1")
    (path,) = list(vectors.vector_dir().iterdir())
    from toolsel.registry.cache import read_sealed

    payload = read_sealed(path, path.stem)  # a sealed npz: the header, then the archive
    assert payload is not None
    with np.load(io.BytesIO(payload), allow_pickle=False) as arrays:
        assert set(arrays.files) == {"hashes", "vectors"}
        assert arrays["vectors"].dtype == np.float32


@pytest.mark.parametrize("damage", ["empty", "truncated", "flipped", "swapped"])
def test_a_damaged_vector_file_is_rebuilt(fake_embedder: FakeEmbedder, damage: str) -> None:
    first = vectors.tool_vectors(["alpha", "beta"], "r1")
    (path,) = list(vectors.vector_dir().iterdir())
    data = path.read_bytes()
    if damage == "empty":
        path.write_bytes(b"")
    elif damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flipped":
        path.write_bytes(data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:])
    else:  # a valid file of other texts, copied under this name
        vectors.tool_vectors(["gamma"], "r1")
        other = next(p for p in vectors.vector_dir().iterdir() if p != path)
        path.write_bytes(other.read_bytes())
    again = vectors.tool_vectors(["alpha", "beta"], "r1")
    assert np.array_equal(first, again)


def test_progress_is_reported_only_for_more_than_100_tools(fake_embedder: FakeEmbedder) -> None:
    calls: list[tuple[str, int]] = []

    @contextlib.contextmanager
    def progress(total: int) -> Iterator[Callable[[int], None]]:
        calls.append(("start", total))
        yield lambda n: calls.append(("advance", n))

    vectors.tool_vectors([f"t{i}" for i in range(100)], "r1", progress=progress)
    assert calls == []
    vectors.tool_vectors([f"u{i}" for i in range(150)], "r1", progress=progress)
    assert calls[0] == ("start", 150)
    assert sum(n for kind, n in calls if kind == "advance") == 150


def test_old_vector_files_are_pruned(
    fake_embedder: FakeEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "KEEP_FILES", 3)
    for i in range(6):
        vectors.tool_vectors([f"text {i}"], "r1")
    assert len(list(vectors.vector_dir().iterdir())) <= 3


def test_cache_lives_beside_the_registry_cache(
    fake_embedder: FakeEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLSEL_CACHE_DIR", str(tmp_path / "c"))
    vectors.tool_vectors(["alpha"], "r1")
    assert vectors.vector_dir().parent.parent == tmp_path / "c"


def test_a_prompt_set_is_embedded_once(fake_embedder: FakeEmbedder) -> None:
    prompts = [f"prompt number {i}" for i in range(300)]
    first = vectors.prompt_set_vectors(prompts)
    assert len(fake_embedder.embedded) == 300
    again = vectors.prompt_set_vectors(prompts)
    assert len(fake_embedder.embedded) == 300 and np.array_equal(first, again)
    vectors.prompt_set_vectors(prompts, use_cache=False)
    assert len(fake_embedder.embedded) == 600
    # prompt sets live apart from tool vectors, so tool reuse never scans them
    assert not list(vectors.vector_dir().glob("*.npz"))


def test_eval_reruns_embed_no_prompt_again(cli, fake_embedder: FakeEmbedder, write) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import ROOT

    cases = write(
        "c.jsonl",
        "".join(
            f'{{"id": "{i}", "query": "rollback deployment {i}", "expected": ["rollback_deployment"]}}\n'
            for i in range(5)
        ),
    )
    args = ("eval", "-r", str(ROOT / "registries"), "--cases", str(cases), "-m", "fusion")
    assert cli(*args).exit_code == 0
    embedded = len(fake_embedder.embedded)
    assert cli(*args).exit_code == 0
    assert len(fake_embedder.embedded) == embedded  # tools and prompts both cached


def test_an_unusable_cache_directory_only_costs_time(
    fake_embedder: FakeEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("x")
    monkeypatch.setenv("TOOLSEL_CACHE_DIR", str(blocker))
    first = vectors.tool_vectors(["alpha", "beta"], "r1")
    again = vectors.tool_vectors(["alpha", "beta"], "r1")
    assert np.array_equal(first, again) and len(fake_embedder.embedded) == 4
    assert vectors.prompt_set_vectors(["p1", "p2"]).shape == (2, 384)
