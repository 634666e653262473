"""`fusion` returns every tool with evidence, up to `--top` (issue 32).

On every registry of the corpus that loads, and any `--top` up to its size, `fusion`
returns at least as many tools as `hybrid`: it once dropped the lowest-scoring tool of any
registry (`init`'s own example showed 1 of its 2 tools).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT
from tests.embed.fakes import FakeEmbedder
from toolsel.ranking import Method, RankOptions, load_index, rank_index
from toolsel.ranking.prepared import PreparedIndex

CORPUS = ROOT / "tests" / "corpus" / "registries"


def _loading() -> list[Path]:
    labels = yaml.safe_load((CORPUS / "labels.yaml").read_text(encoding="utf-8"))["files"]
    return sorted(
        CORPUS / name for name, label in labels.items() if label.get("loads") and label.get("tools")
    )


REGISTRIES = _loading()
_INDEXES: dict[Path, PreparedIndex] = {}


def _index(path: Path) -> PreparedIndex:
    if path not in _INDEXES:
        _INDEXES[path] = load_index(path, use_cache=False)
    return _INDEXES[path]


def _count(index: PreparedIndex, query: str, method: Method, top: int) -> int:
    options = RankOptions(method=method, top=top, pin_always_include=False)
    return len(rank_index(index, query, options).results)


def test_the_corpus_has_registries_to_check() -> None:
    assert len(REGISTRIES) >= 20


@pytest.mark.parametrize(
    "path", REGISTRIES, ids=[p.relative_to(CORPUS).as_posix() for p in REGISTRIES]
)
def test_fusion_returns_as_many_tools_as_hybrid_at_every_top(
    path: Path, fake_embedder: FakeEmbedder
) -> None:
    index = _index(path)
    size = len(index)
    # prompts from the registry's own words, and one no tool's words hold
    prompts = [index.tools[i].name.replace("_", " ") for i in range(min(size, 3))]
    prompts += [" ".join(index.tools[0].description.split()[:6]) or "x", "zzqv wibble"]
    for query in prompts:
        for top in sorted({1, 2, size // 2 or 1, size}):
            fusion = _count(index, query, Method.FUSION, top)
            hybrid = _count(index, query, Method.HYBRID, top)
            assert fusion >= hybrid, (query, top, fusion, hybrid)
            assert fusion <= top


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    which=st.integers(0, 10_000),
    words=st.lists(
        st.sampled_from("read file list user issue create search send page".split()),
        min_size=1,
        max_size=4,
    ),
    top=st.integers(1, 60),
)
def test_fusion_never_returns_fewer_tools_than_hybrid(
    fake_embedder: FakeEmbedder, which: int, words: list[str], top: int
) -> None:
    index = _index(REGISTRIES[which % len(REGISTRIES)])
    top = min(top, len(index))
    query = " ".join(words)
    assert _count(index, query, Method.FUSION, top) >= _count(index, query, Method.HYBRID, top)
