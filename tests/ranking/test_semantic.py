"""`semantic` and `fusion`: the logic with a stand-in embedder, the real model where the
extra is installed, and the message where it is not."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT, Cli
from tests.embed.fakes import FakeEmbedder, needs_model
from toolsel.ranking import Method, RankOptions, load_index, rank_index
from toolsel.ranking import semantic as semantic_module
from toolsel.registry.model import Permission

REG = str(ROOT / "registries")


def _index(examples: bool = False):  # type: ignore[no-untyped-def]
    """The bundled registry; without its example prompts unless asked (tests of the
    formulas), since examples add to the scores."""
    return load_index(ROOT / "registries", use_cache=False, examples=examples)


def _ranked(index, query: str, method: Method, **options: object) -> list[str]:  # type: ignore[no-untyped-def]
    opts = RankOptions(method=method, pin_always_include=False, **options)  # type: ignore[arg-type]
    return [r.name for r in rank_index(index, query, opts).results]


def test_semantic_ranks_by_cosine(fake_embedder: FakeEmbedder) -> None:
    index = _index()
    query = "rollback a deployment"
    names = _ranked(index, query, Method.SEMANTIC, top=50)
    cosines = semantic_module.cosines(index, semantic_module.query_vector(query))
    by_cosine = [index.tools[i].name for i in np.argsort(-cosines, kind="stable")]
    kept = [n for n in by_cosine if n in names]
    assert names == kept  # same order as the raw cosines (deprecated tools dropped)
    assert names[0] == "rollback_deployment"


def test_fusion_is_the_weighted_sum_of_scaled_parts(fake_embedder: FakeEmbedder) -> None:
    index = _index()
    query = "restart the web service"
    terms = __import__("toolsel.ranking.fields", fromlist=["tokens"]).tokens(query)
    vector = semantic_module.query_vector(query)
    (cosine, lexical), _evidence = semantic_module.fusion_parts(index, vector, terms)
    assert cosine.min() >= 0.0 and cosine.max() == 1.0 and lexical.max() == 1.0
    fused = semantic_module.FUSION_WEIGHT * cosine + (1 - semantic_module.FUSION_WEIGHT) * lexical
    result = rank_index(index, query, RankOptions(method=Method.FUSION, pin_always_include=False))
    for tool in result.results:
        assert abs(tool.raw - fused[index.positions[tool.name]]) < 1e-6


def test_fusion_explain_parts_sum_to_the_raw_score(fake_embedder: FakeEmbedder) -> None:
    index = _index()
    result = rank_index(
        index, "run the unit tests", RankOptions(method=Method.FUSION, explain=True, top=5)
    )
    for tool in result.results:
        if tool.match != "match":
            continue
        fields = {c.field for c in tool.contributions}
        assert "semantic" in fields
        assert abs(sum(c.value for c in tool.contributions) - tool.raw) < 1e-4


def test_fusion_puts_an_exact_name_first(fake_embedder: FakeEmbedder) -> None:
    index = _index()
    assert _ranked(index, "patch_file", Method.FUSION)[0] == "patch_file"
    assert _ranked(index, "cat_file", Method.FUSION)[0] == "read_file"  # an alias


def test_the_pipeline_applies_to_semantic_results(fake_embedder: FakeEmbedder) -> None:
    index = _index()
    result = rank_index(
        index,
        "delete the database table",
        RankOptions(method=Method.SEMANTIC, permission=Permission.READ),
    )
    assert all(r.permission == "read" for r in result.results)
    assert result.blocked  # write/admin/dangerous tools are listed, not silently dropped


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=40).filter(str.strip),
    st.sampled_from([Method.SEMANTIC, Method.FUSION]),
)
def test_embedding_ranking_is_deterministic_and_in_range(
    fake_embedder: FakeEmbedder, query: str, method: Method
) -> None:
    index = _index()
    first = rank_index(index, query, RankOptions(method=method))
    again = rank_index(index, query, RankOptions(method=method))
    assert first == again
    assert all(0.0 <= r.score <= 1.0 for r in first.results)


def test_cli_semantic_and_fusion(cli: Cli, fake_embedder: FakeEmbedder) -> None:
    for method in ("semantic", "fusion"):
        run = cli(
            "rank",
            "-r",
            REG,
            "--method",
            method,
            "rollback the deployment",
            "-f",
            "json",
            "--explain",
        )
        data = json.loads(run.stdout)
        assert run.exit_code == 0 and data["method"] == method
        assert "rollback_deployment" in [r["name"] for r in data["results"]]
        fields = {e["field"] for r in data["results"] for e in r.get("explain", [])}
        assert ("cosine" if method == "semantic" else "semantic") in fields
    human = cli("rank", "-r", REG, "--method", "fusion", "rollback the deployment").stdout
    assert "semantic 0." in human


def test_cli_batch_eval_and_test_with_fusion(cli: Cli, fake_embedder: FakeEmbedder, write) -> None:  # type: ignore[no-untyped-def]
    batch = write(
        "q.jsonl",
        '{"id": "a", "query": "rollback the deployment"}\n{"id": "b", "query": "read a file"}\n',
    )
    lines = cli(
        "rank", "-r", REG, "--method", "fusion", "--batch", str(batch), "-f", "jsonl"
    ).stdout.splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["a", "b"]
    cases = write(
        "c.jsonl",
        '{"id": "1", "query": "rollback the deployment", "expected": ["rollback_deployment"]}\n',
    )
    data = json.loads(
        cli("eval", "-r", REG, "--cases", str(cases), "--compare", "-f", "json").stdout
    )
    # the bundled registry has examples: each method that uses them, without and with
    assert [(m["method"], m["examples"]) for m in data["methods"]][-4:] == [
        ("semantic", False),
        ("semantic", True),
        ("fusion", False),
        ("fusion", True),
    ]
    golden = write(
        "g.yaml",
        """
        cases:
          - prompt: rollback the deployment
            expect: [rollback_deployment]
            method: fusion
        """,
    )
    assert cli("test", "-r", REG, str(golden)).exit_code == 0


def test_without_the_extra_a_clear_message_and_exit_2(cli: Cli, no_extra: object, write) -> None:  # type: ignore[no-untyped-def]
    for args in (
        ("rank", "-r", REG, "--method", "fusion", "read a file"),
        ("rank", "-r", REG, "--method", "semantic", "read a file", "-f", "json"),
    ):
        run = cli(*args)
        assert run.exit_code == 2 and run.stdout == ""
        assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
        assert "pip install 'toolsel[embed]'" in run.stderr
    cases = write("c.jsonl", '{"id": "1", "query": "read a file", "expected": ["read_file"]}\n')
    compare = cli("eval", "-r", REG, "--cases", str(cases), "--compare", "-f", "json")
    assert compare.exit_code == 0 and "semantic and fusion skipped" in compare.stderr
    assert "fusion" not in [m["method"] for m in json.loads(compare.stdout)["methods"]]
    assert "embeddings: not installed" in cli("--version").stdout


def test_version_says_embeddings_are_available(cli: Cli, fake_embedder: FakeEmbedder) -> None:
    assert "embeddings: available (all-MiniLM-L6-v2-onnx-int8)" in cli("--version").stdout


@needs_model
def test_real_model_fusion_on_the_bundled_registry(cli: Cli) -> None:
    run = cli("rank", "-r", REG, "--method", "fusion", "read the contents of a file", "-f", "json")
    names = [r["name"] for r in json.loads(run.stdout)["results"]]
    assert "read_file" in names[:4]
    semantic = cli("rank", "-r", REG, "--method", "semantic", "undo the last deploy", "-f", "json")
    assert "rollback_deployment" in [r["name"] for r in json.loads(semantic.stdout)["results"]][:4]


@needs_model
def test_real_model_cached_vectors_are_not_re_embedded(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from toolsel.embed import model

    first = load_index(ROOT / "registries").tool_vectors()
    calls: list[int] = []
    real = model.Embedder.embed

    def counting(self, texts, **kw):  # type: ignore[no-untyped-def]
        calls.append(len(texts))
        return real(self, texts, **kw)

    monkeypatch.setattr(model.Embedder, "embed", counting)
    again = load_index(ROOT / "registries").tool_vectors()
    assert calls == [] and np.array_equal(first, again)


def test_bad_input_with_the_embedding_methods(cli: Cli, fake_embedder: FakeEmbedder, write) -> None:  # type: ignore[no-untyped-def]
    empty = cli("rank", "-r", REG, "--method", "fusion", "   ")
    assert empty.exit_code == 2 and "the prompt is empty" in empty.stderr
    no_tools = write("none.yaml", "tools: []\n")
    run = cli("rank", "-r", str(no_tools), "--method", "semantic", "read a file")
    assert run.exit_code == 2 and "no tools" in run.stderr and "Traceback" not in run.stderr
    assert fake_embedder.embedded == []  # nothing was embedded for input that was refused
    batch = write(
        "q.jsonl",
        '{"id": "a", "query": "read a file"}\nnot json\n{"id": "c"}\n{"id": "d", "query": "deploy"}\n',
    )
    run = cli("rank", "-r", REG, "--method", "fusion", "--batch", str(batch), "-f", "jsonl")
    assert run.exit_code == 1
    assert [json.loads(line)["id"] for line in run.stdout.splitlines()] == ["a", "d"]
    assert (
        ":2: skipped: not JSON" in run.stderr
        and ':3: skipped: missing or empty "query"' in run.stderr
    )
    huge = cli("rank", "-r", REG, "--method", "fusion", "read " * 50_000, "-f", "json")
    assert huge.exit_code == 0 and json.loads(huge.stdout)["results"]
