"""benchmarks/mtrb.py: MTRB-MetaTool read from a checkout (never stored here), and the
paper's metrics (issue 22)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.conftest import benchmark
from toolsel.evaluate import Case, read_cases, score_case

mtrb = benchmark("mtrb")


def test_a_checkout_becomes_a_registry_and_cases(tmp_path: Path) -> None:
    checkout = tmp_path / "MTRB-QTA" / "metatool"
    checkout.mkdir(parents=True)
    tools = {"PDF&URLTool": "Summarise PDFs and web pages.", "weather": "Forecasts."}
    (checkout / "ts_metatool_api_list_rewrite.json").write_text(json.dumps(tools))
    queries = [{"query": "summarise this page", "relevant Tools": ["PDF&URLTool"]}]
    (checkout / "mtr_metatool_test.json").write_text(json.dumps(queries))
    out = tmp_path / "out"
    out.mkdir()
    registry, cases_path = mtrb.convert(checkout.parent, out)
    from toolsel.registry import load_registry

    assert [t.name for t in load_registry(registry, use_cache=False).tools] == list(tools)
    cases, problems = read_cases(cases_path)
    assert problems == [] and cases[0].expected == ("PDF&URLTool",)
    with pytest.raises(SystemExit, match="not found"):
        mtrb.convert(tmp_path, out)


def test_sufficiency_and_ndcg_at_k() -> None:
    one = score_case(Case("a", "q", ("x",)), ["y", "x"])  # rank 2
    two = score_case(Case("b", "q", ("x", "z")), ["x", "a", "b", "c", "d", "z"])  # 1 and 6
    s5, s10, n5, n10 = mtrb.paper_metrics([one, two])
    assert (s5, s10) == (50.0, 100.0)
    ideal2 = 1 + 1 / math.log2(3)
    assert n5 == pytest.approx(100 * (1 / math.log2(3) + 1 / ideal2) / 2)
    assert n10 == pytest.approx(100 * (1 / math.log2(3) + (1 + 1 / math.log2(7)) / ideal2) / 2)
