"""`toolsel diff` on real version histories (tests/corpus/diffs): on breaking changes,
precision and recall of at least 95% against labels written by reading each pair; and on
every pair, one fingerprint per change."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.conftest import benchmark

corpus = benchmark("diff_corpus")


@pytest.fixture(scope="module")
def card() -> object:
    return corpus.score()


def test_the_corpus_is_of_real_projects(card: object) -> None:
    assert card.projects >= 10 and card.pairs >= 40  # type: ignore[attr-defined]


def test_breaking_precision_and_recall_clear_the_gate(card: object) -> None:
    text = corpus.render(card)
    assert card.precision >= corpus.GATE, text  # type: ignore[attr-defined]
    assert card.recall >= corpus.GATE, text  # type: ignore[attr-defined]


def test_every_change_of_a_pair_has_a_fingerprint_of_its_own() -> None:
    from toolsel.diff.engine import diff_registries
    from toolsel.sources import load_registry

    for pair, old, new, _ in corpus.labelled_pairs():
        changes = diff_registries(
            load_registry([old], use_cache=False), load_registry([new], use_cache=False)
        )
        shared = [fp for fp, n in Counter(c.fingerprint for c in changes).items() if n > 1]
        assert shared == [], pair


def test_every_pair_labels_exactly_the_tools_that_differ() -> None:
    """A label for an unchanged tool, or a changed tool without a label, is a defect of the
    corpus: every tool that differs in any way is labelled."""
    import json

    from toolsel.sources import load_registry

    for pair, old, new, labels in corpus.labelled_pairs():
        before = {t.name: t for t in load_registry([old], use_cache=False).tools}
        after = {t.name: t for t in load_registry([new], use_cache=False).tools}
        differ = {
            name
            for name in before.keys() | after.keys()
            if name not in before
            or name not in after
            or json.dumps(before[name].raw, sort_keys=True)
            != json.dumps(after[name].raw, sort_keys=True)
        }
        assert differ == set(labels), pair
