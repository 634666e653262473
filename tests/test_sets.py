"""The conversational eval sets (tests/selection/sets) against a naive BM25 (issue 22).

The gate: on every set in the repository, `hybrid` (without examples) is at least as good as
plain Okapi BM25 over name, description and tags (benchmarks/sets.py) on Recall@5 and
NDCG@10. `python benchmarks/sets.py` prints the full table, with `fusion` and `auto`.
"""

from __future__ import annotations

import importlib.util
import math

import pytest

from tests.conftest import ROOT, benchmark

sets_bench = benchmark("sets")
SETS = sets_bench.load_sets()


def test_every_eval_set_in_the_repository_is_listed() -> None:
    listed = {s.cases for s in SETS}
    found = set((ROOT / "tests" / "selection").rglob("*.eval.jsonl"))
    assert found == listed
    assert all(s.builtin or s.registry.exists() for s in SETS)


def test_each_new_set_has_three_prompts_for_every_tool() -> None:
    from toolsel.evaluate import read_cases

    for eval_set in SETS:
        if not eval_set.builtin and eval_set.registry.name == "registries":  # the project's own
            continue
        names, _texts = sets_bench.tool_texts(eval_set.registry)
        cases, problems = read_cases(eval_set.cases)
        assert problems == []
        for name in names:
            if name in eval_set.unaskable:
                continue
            assert sum(name in c.expected for c in cases) >= 3, (eval_set.name, name)


def test_the_naive_bm25_by_hand() -> None:
    """Lucene's idf and bm25s's term weight (k1 1.5, b 0.75), on three tiny tools."""
    docs = [["read", "file"], ["write", "file", "disk"], ["list", "directory"]]
    bm25 = sets_bench.NaiveBM25(docs)
    average = 7 / 3
    idf_file = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    idf_read = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    expected_0 = idf_read / (1 + 1.5 * (0.25 + 0.75 * 2 / average)) + idf_file / (
        1 + 1.5 * (0.25 + 0.75 * 2 / average)
    )
    scores = bm25.scores(["read", "file", "unknown"])
    assert scores[0] == pytest.approx(expected_0) and scores[2] == 0.0
    assert bm25.rank(["read", "file"]) == [0, 1]  # the unscored tool is left out
    assert bm25.rank(["nothing"]) == []


def test_the_naive_tokens_split_names_and_drop_stop_words() -> None:
    assert sets_bench.words("git_status: Show the Working-tree of a repo") == [
        "git",
        "status",
        "show",
        "working",
        "tree",
        "repo",
    ]


def test_the_naive_bm25_scores_as_bm25s_does() -> None:
    pytest.importorskip("bm25s")
    eval_set = SETS[0]
    from toolsel.evaluate import read_cases

    cases, _ = read_cases(eval_set.cases)
    _names, docs = sets_bench.tool_texts(eval_set.registry)
    assert sets_bench.check_against_bm25s(docs, [sets_bench.words(c.query) for c in cases])


@pytest.mark.parametrize("eval_set", SETS, ids=[s.name for s in SETS])
def test_hybrid_is_never_below_naive_bm25(eval_set) -> None:  # type: ignore[no-untyped-def]
    hybrid, naive = sets_bench.measure_set(eval_set, ["hybrid"])
    assert (hybrid.method, naive.method) == ("hybrid", sets_bench.NAIVE)
    assert hybrid.recall(5) >= naive.recall(5) - 1e-9, "Recall@5"
    assert hybrid.ndcg10 >= naive.ndcg10 - 1e-9, "NDCG@10"


needs_embed = pytest.mark.skipif(
    importlib.util.find_spec("onnxruntime") is None, reason="needs toolsel[embed]"
)


@needs_embed
def test_auto_with_embeddings_is_never_below_hybrid(monkeypatch: pytest.MonkeyPatch) -> None:
    """`auto` where toolsel[embed] is installed (fusion) against hybrid, on every set: at
    first place, in the top 5 and on NDCG@10 (issue 32)."""
    monkeypatch.delenv("TOOLSEL_EMBED", raising=False)
    for eval_set in SETS:
        auto, hybrid = sets_bench.measure_set(eval_set, ["auto", "hybrid"], naive=False)
        assert auto.first >= hybrid.first, (eval_set.name, "first place")
        assert auto.recall(5) >= hybrid.recall(5) - 1e-9, (eval_set.name, "Recall@5")
        assert auto.ndcg10 >= hybrid.ndcg10 - 1e-9, (eval_set.name, "NDCG@10")
