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


SERVICES = "\n".join(
    f"  - name: service_{i:02d}\n    description: Manage service {i}." for i in range(11)
)


def _evaluate(write, registry: str, case: Case):  # type: ignore[no-untyped-def]
    from toolsel.evaluate import evaluate
    from toolsel.ranking import load_index
    from toolsel.ranking.options import Method

    index = load_index(write("r.yaml", registry), use_cache=False, bulk=True)
    return evaluate(index, [case], [Method.HYBRID, Method.BM25]).methods


def test_an_expected_tool_no_prompt_word_reaches_has_no_evidence(write) -> None:
    """Issue 22: a tool the ranker gave no score is a vocabulary gap, not a ranking error."""
    registry = """
        tools:
          - name: deploy_service
            description: Deploy a service to production.
          - name: read_file
            description: Read a file from disk.
        """
    case = Case("a", "ship the service", ("read_file", "deploy_service"))
    for method in _evaluate(write, registry, case):
        assert method.outcomes[0].no_evidence == ("read_file",)
        assert (method.no_evidence, method.no_evidence_queries, method.expected) == (1, 1, 2)
        assert method.missed["not_retrieved"] == 1


def test_a_tool_ranked_below_the_cut_off_has_evidence(write) -> None:
    """Eleven tools match better: the expected one is outside the top 10 but was scored."""
    registry = (
        f"tools:\n{SERVICES}\n  - name: zz_misc\n    description: Alpha beta gamma delta "
        "epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma, one service.\n"
    )
    case = Case("a", "service", ("zz_misc",))
    for method in _evaluate(write, registry, case):
        assert method.outcomes[0].ranks == {"zz_misc": None}
        assert method.outcomes[0].no_evidence == ()
        assert (method.no_evidence, method.missed["not_retrieved"]) == (0, 1)
