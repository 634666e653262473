"""The quality metrics (toolsel/evaluate.py), computed by hand."""

from __future__ import annotations

from tests.conftest import ROOT
from toolsel.evaluate import Case, score_case

REG = str(ROOT / "registries")
CASES = str(ROOT / "tests" / "selection" / "registries.eval.jsonl")
GOLDEN = str(ROOT / "tests" / "selection" / "registries.yaml")


def test_metrics_by_hand() -> None:
    outcome = score_case(Case("q", "x", ("a", "b")), ["c", "a", "d", "b"])
    assert outcome.ranks == {"a": 2, "b": 4}
    assert outcome.reciprocal_rank == 0.5
    ideal = 1 + 1 / 1.584962500721156
    assert abs(outcome.ndcg10 - (1 / 1.584962500721156 + 1 / 2.321928094887362) / ideal) < 1e-12
    assert score_case(Case("q", "x", ("z",)), ["a"]).ndcg10 == 0.0
