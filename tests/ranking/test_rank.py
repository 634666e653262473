"""Ranking and the selection pipeline, through the library and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT, Cli
from toolsel.ranking import Method, RankOptions, load_index, rank_index
from toolsel.ranking.options import EMBEDDING_METHODS
from toolsel.registry.model import Permission

INDEX = load_index(ROOT / "registries", use_cache=False)
#: Methods that need no optional extra (semantic and fusion: tests/ranking/test_semantic.py).
LEXICAL = [m for m in Method if m not in EMBEDDING_METHODS]


def names(query: str, **options: object) -> list[str]:
    return [r.name for r in rank_index(INDEX, query, RankOptions(**options)).results]  # type: ignore[arg-type]


def ranked(query: str, **options: object) -> list[str]:
    """The ranked names (always-include tools are listed apart: `RankResult.always`)."""
    return names(query, **options)


@pytest.mark.parametrize("method", LEXICAL)
def test_every_method_finds_the_obvious_tool(method: Method) -> None:
    assert "deploy_service" in names("deploy service production", method=method)


ALWAYS = {"ask_user", "get_current_time", "search_documents"}


def test_always_include_tools_are_offered_apart_and_not_counted_in_top() -> None:
    result = rank_index(INDEX, "deploy the billing service", RankOptions(top=3))
    assert {t.name for t in result.always} == ALWAYS
    assert len(result.results) == 3 and not ALWAYS & {t.name for t in result.results}
    assert result.results[0].name == "deploy_service"  # ranked tools are numbered from 1
    assert result.offered[:3] == tuple(t.name for t in result.always)
    # one that the prompt selects is shown at its rank, and not again apart
    timed = rank_index(INDEX, "what time is it in Tokyo right now", RankOptions(top=5))
    assert timed.results[0].name == "get_current_time" and timed.results[0].always_include
    assert "get_current_time" not in {t.name for t in timed.always}
    assert len(timed.offered) == len(set(timed.offered))
    # a typed name is found first, not fourth behind the always-include tools
    assert names("raed fle")[0] == "read_file"
    # Claude Code's search returns matches only: no always-include tools are added
    result = rank_index(INDEX, "rollback", RankOptions(method=Method.CC))
    assert [t.name for t in result.results] == ["rollback_deployment"] and not result.always


def test_strength_is_absolute_and_flags_weak_best_matches() -> None:
    """Scores are relative (the best is always 1.0); strength says how well it matches."""
    strong = rank_index(INDEX, "open a pull request with my committed changes")
    assert strong.results[0].name == "create_pull_request" and strong.strong
    nonsense = rank_index(INDEX, "purple elephant dances")
    assert nonsense.results[0].score == 1.0 and not nonsense.strong
    assert rank_index(INDEX, "patch_file").results[0].strength == 1.0  # an exact name
    typed = rank_index(INDEX, "raed fle").results[0]
    assert typed.name == "read_file" and typed.strength > 0.8  # a name typed with typos
    cut = rank_index(INDEX, "purple elephant dances", RankOptions(min_strength=0.5))
    assert cut.results == ()


def test_a_right_answer_to_a_wordy_prompt_is_a_strong_match() -> None:
    """The flag is calibrated (benchmarks/strong_match.py): a right best tool that matches a
    quarter of a wordy prompt is not "No strong match"; nonsense still is."""
    wordy = rank_index(INDEX, "read the user's config file")
    assert wordy.results[0].name == "read_file"
    assert 0.22 <= wordy.results[0].strength < 0.5 and wordy.strong
    assert not rank_index(INDEX, "purple elephant dances").strong
    # the threshold moved, the strengths did not: a short prompt still gets its name likeness
    assert rank_index(INDEX, "raed fle").results[0].strength == pytest.approx(0.823529, abs=1e-6)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz _-", min_size=1, max_size=40))
def test_strength_stays_in_range(query: str) -> None:
    if not query.strip():
        return
    result = rank_index(INDEX, query)
    for tool in (*result.results, *result.always):
        assert 0.0 <= tool.strength <= 1.0


def test_exact_name_or_alias_ranks_first() -> None:
    assert ranked("patch_file")[0] == "patch_file"
    assert ranked("Patch-File")[0] == "patch_file"
    assert ranked("cat_file")[0] == "read_file"  # an alias


def test_typos_and_partial_names() -> None:
    assert ranked("raed fle")[0] == "read_file"
    assert "db_execute" in ranked("db exec", method=Method.FUZZY)[:3]


def test_deprecated_tools_are_dropped_with_their_replacement() -> None:
    result = rank_index(INDEX, "deploy legacy script", RankOptions())
    assert "deploy_legacy" not in [r.name for r in result.results]
    assert ("deploy_legacy", "deploy_service") in [
        (d.name, d.replaced_by) for d in result.deprecated
    ]
    assert "deploy_legacy" in names("deploy legacy script", include_deprecated=True)


def test_permission_gate_lists_what_it_blocks() -> None:
    result = rank_index(INDEX, "delete a database record", RankOptions(permission=Permission.WRITE))
    assert "delete_database_record" not in [r.name for r in result.results]
    assert ("delete_database_record", "dangerous") in [(d.name, d.needs) for d in result.blocked]


def test_higher_ranked_tool_excludes_its_conflicts() -> None:
    result = rank_index(INDEX, "deploy service or roll back the deployment", RankOptions(top=20))
    kept = [r.name for r in result.results]
    assert "deploy_service" in kept or "rollback_deployment" in kept
    assert not {"deploy_service", "rollback_deployment"} <= set(kept)
    assert result.excluded and result.excluded[0].name in ("deploy_service", "rollback_deployment")


def test_top_min_score_category_and_tag() -> None:
    assert len(names("file", top=4)) == 4
    always = {t.name for t in INDEX.tools if t.always_include}
    kept = rank_index(INDEX, "read file", RankOptions(min_score=0.5)).results
    assert kept and all(r.score >= 0.5 or r.name in always for r in kept)
    assert {
        INDEX.tools[INDEX.positions[n]].category for n in names("delete", categories=("database",))
    } == {"database"}
    tagged = names("show changes", tags=("git",))
    assert tagged, "the tag filter kept nothing, so the check below would be vacuous"
    assert all("git" in INDEX.tools[INDEX.positions[n]].tags for n in tagged)


@settings(max_examples=60, deadline=None)
@given(
    st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=40).filter(str.strip),
    st.sampled_from(LEXICAL),
)
def test_ranking_is_deterministic_and_scores_stay_in_range(query: str, method: Method) -> None:
    first = rank_index(INDEX, query, RankOptions(method=method))
    again = rank_index(INDEX, query, RankOptions(method=method))
    assert first == again
    assert all(0.0 <= r.score <= 1.0 for r in first.results)
    assert len(first.results) <= 8


def test_ranking_is_the_same_in_processes_with_different_hash_seeds(tmp_path: Path) -> None:
    """Set and dict iteration order depends on PYTHONHASHSEED: no result may."""
    import os
    import subprocess
    import sys

    script = (
        "import json; from toolsel.ranking import Method, RankOptions, load_index, rank_index; "
        f"index = load_index({str(ROOT / 'registries')!r}, use_cache=False); "
        "queries = ['deploy the billing service', 'raed fle', 'delete the customer record', "
        "'file', 'show me the logs of the api', 'send a message to the team']; "
        "print(json.dumps([[(r.name, r.score) for r in rank_index(index, q, "
        "RankOptions(method=Method(m), top=20, explain=True)).results] for q in queries "
        "for m in ('hybrid', 'bm25', 'tfidf', 'fuzzy', 'cc')]))"
    )
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "TOOLSEL_CACHE_DIR": str(tmp_path / seed)}
        run = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
        )
        outputs.add(run.stdout)
    assert len(outputs) == 1 and len(json.loads(outputs.pop())) == 30


def test_tfidf_matches_scikit_learn() -> None:
    """Our query-time cosine equals scikit-learn's transform + dot product on the same counts."""
    import numpy as np
    from scipy.sparse import csc_matrix
    from sklearn.feature_extraction.text import TfidfTransformer

    from toolsel.ranking import scorers
    from toolsel.ranking.fields import FIELD_NAMES, FIELD_WEIGHTS, tokens

    index = INDEX.index
    # a tool's examples are not part of its own TF-IDF weights (they add to its score apart,
    # `scorers.scored`): the base weights leave the examples field out
    base = [
        0.0 if f == "examples" else w for f, w in zip(FIELD_NAMES, index.field_weights, strict=True)
    ]
    weighted = [
        sum(
            w * c
            for w, c in zip(
                base,
                (index.field_tf[f][p] for f in range(len(FIELD_WEIGHTS))),
                strict=True,
            )
        )
        for p in range(len(index.doc_ids))
    ]
    counts = csc_matrix(
        (weighted, list(index.doc_ids), list(index.term_ptr)),
        shape=(len(INDEX), len(index.vocabulary)),
    ).tocsr()
    counts.eliminate_zeros()  # an examples-only posting holds nothing in the base weights
    transformer = TfidfTransformer(sublinear_tf=True).fit(counts)
    terms = tokens("restart the stuck billing service")
    query = np.zeros(len(index.vocabulary))
    for t in terms:
        query[index.vocabulary[t]] += 1
    expected = (
        (transformer.transform(counts) @ transformer.transform(query.reshape(1, -1)).T)
        .toarray()
        .ravel()
    )
    got = scorers.scored(INDEX, terms, "tfidf").scores
    taught = INDEX.taught_tools  # these add their examples' part, gated by the prompt
    assert len(taught) < len(INDEX)
    for doc, value in got.items():
        if doc not in taught:
            assert value == pytest.approx(expected[doc], rel=1e-9)
    assert set(got) - taught == set(np.nonzero(expected)[0].tolist()) - taught


def test_index_is_cached_and_reused(write, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write("r.yaml", "tools:\n- {name: read_file, description: Reads a file.}\n")
    first = load_index(path)
    monkeypatch.setattr(
        "toolsel.ranking.store.build_index", lambda registry, **_: pytest.fail("rebuilt")
    )
    assert load_index(path).tools == first.tools
    path.write_text("tools:\n- {name: write_file, description: Writes a file.}\n")
    with pytest.raises(pytest.fail.Exception):
        load_index(path)  # edited: the cache key changed


def test_the_index_round_trips_through_its_cache_format() -> None:
    from toolsel.ranking import persist

    again = persist.loads(persist.dumps(INDEX.index))
    assert again.tools == INDEX.tools and list(again.texts) == list(INDEX.index.texts)
    assert again.texts[-1] == INDEX.index.texts[-1] and len(again.texts) == len(INDEX)
    assert again.vocabulary == INDEX.index.vocabulary and again.bm25 == INDEX.index.bm25
    data = persist.dumps(INDEX.index)
    for broken in (data[:-1], data[:100], b"x" + data[1:], data + b"\0", b""):
        with pytest.raises(ValueError):
            persist.loads(broken)
    for query in ("deploy service", "read a file", "delete record"):
        assert rank_index(again, query) == rank_index(INDEX, query)


# --- CLI --------------------------------------------------------------------------------


def test_rank_json_envelope(cli: Cli) -> None:
    data = json.loads(
        cli("rank", "-r", str(ROOT / "registries"), "read a file", "-f", "json").stdout
    )
    assert (
        data["schema"] == "toolsel.rank/v3"
        and data["mode"] == "search"
        and data["method"] == "hybrid"
    )
    assert {"name", "score", "category", "permission", "rank", "why", "raw_score"} <= set(
        data["results"][0]
    )
    assert {"blocked", "excluded", "deprecated"} <= set(data)


def test_rank_explain(cli: Cli) -> None:
    data = json.loads(
        cli(
            "rank",
            "-r",
            str(ROOT / "registries"),
            "restart the stuck service",
            "--explain",
            "-f",
            "json",
            "--method",
            "bm25",
        ).stdout
    )
    first = next(r for r in data["results"] if r["why"]["how"] == "match")
    assert first["explain"] and {"term", "field", "contribution", "via"} == set(first["explain"][0])
    human = cli(
        "rank",
        "-r",
        str(ROOT / "registries"),
        "deploy and roll back",
        "--explain",
        "--permission",
        "read",
    ).stdout
    assert "blocked" in human and "needs permission" in human


@pytest.mark.parametrize(
    ("provider", "check"),
    [
        (
            "openai",
            lambda d: (
                d["tools"][0]["type"] == "function" and "parameters" in d["tools"][0]["function"]
            ),
        ),
        ("anthropic", lambda d: "input_schema" in d["tools"][0]),
        ("mcp", lambda d: "inputSchema" in d["tools"][0] and "annotations" in d["tools"][0]),
        ("gemini", lambda d: "parameters" in d["tools"][0]["functionDeclarations"][0]),
    ],
)
def test_emit_provider_shapes(cli: Cli, provider: str, check) -> None:
    data = json.loads(
        cli(
            "rank", "-r", str(ROOT / "registries"), "read a file", "--emit", provider, "--top", "4"
        ).stdout
    )
    assert check(data)


def test_batch_jsonl_and_bad_lines(cli: Cli, write) -> None:
    queries = write(
        "q.jsonl",
        '{"id": "a", "query": "read a file"}\nnot json\n{"id": "b"}\n\n[1]\n{"id": "c", "query": "deploy"}\n',
    )
    run = cli("rank", "-r", str(ROOT / "registries"), "--batch", str(queries), "-f", "jsonl")
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert [line["id"] for line in lines] == ["a", "c"]
    assert all(
        set(line) == {"schema", "id", "query", "results", "strong_match", "always_included"}
        for line in lines
    )
    assert {line["schema"] for line in lines} == {"toolsel.rank-line/v2"}
    assert run.exit_code == 1
    assert (
        "q.jsonl:2: skipped: not JSON" in run.stderr
        and "q.jsonl:3:" in run.stderr
        and "q.jsonl:5:" in run.stderr
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("   ",), "prompt is empty"),
        (("select:",), "names no tool"),
        (("select:  , ,",), "names no tool"),
        (("x", "--top", "0"), "--top"),
        (("x", "--min-score", "2"), "--min-score"),
        ((), "give a prompt"),
    ],
)
def test_bad_input(cli: Cli, args: tuple[str, ...], message: str) -> None:
    run = cli("rank", "-r", str(ROOT / "registries"), *args)
    assert run.exit_code == 2 and message in run.stderr and run.stderr.count("\n") == 1


def test_unknown_method_is_a_usage_error(cli: Cli) -> None:
    run = cli("rank", "-r", str(ROOT / "registries"), "x", "--method", "magic")
    assert run.exit_code == 2 and "magic" in run.stderr


def test_missing_batch_file(cli: Cli, tmp_path: Path) -> None:
    run = cli("rank", "-r", str(ROOT / "registries"), "--batch", str(tmp_path / "nope.jsonl"))
    assert run.exit_code == 2 and "cannot read" in run.stderr


@pytest.mark.parametrize("method", [Method.HYBRID, Method.BM25, Method.TFIDF])
@pytest.mark.parametrize(
    "query",
    ["deploy the billing service", "read a file", "raed fle", "delete record", "page on call"],
)
def test_numpy_path_ranks_like_the_python_path(
    monkeypatch: pytest.MonkeyPatch, method: Method, query: str
) -> None:
    small = rank_index(INDEX, query, RankOptions(method=method, top=10))
    assert not INDEX.index.is_large
    monkeypatch.setattr("toolsel.ranking.index.LARGE_INDEX_POSTINGS", 0)
    monkeypatch.setattr("toolsel.ranking.prepared.NUMPY_MIN_POSTINGS", 0)
    monkeypatch.setattr("toolsel.ranking.lexical.LARGE_CANDIDATES", 50)  # all that match
    large = rank_index(INDEX.index, query, RankOptions(method=method, top=10))
    assert [r.name for r in large.results] == [r.name for r in small.results]
    assert [r.score for r in large.results] == pytest.approx([r.score for r in small.results])


def test_query_path_never_imports_scikit_learn(write, tmp_path) -> None:
    """Ranking never imports scikit-learn (1-1.5 s), even to build the index; once the index
    is cached, it needs no YAML parsing either."""
    import os
    import subprocess
    import sys

    path = write(
        "r.yaml",
        "tools:\n- {name: read_file, description: Reads a file.}\n- {name: write_file, description: Writes a file.}\n",
    )
    env = {**os.environ, "TOOLSEL_CACHE_DIR": str(tmp_path / "cache")}
    script = (
        "import sys; from toolsel.ranking import load_index, rank_index; "
        f"r = rank_index(load_index({str(path)!r}), 'read a file'); "
        "print(r.results[0].name, 'sklearn' in sys.modules, 'yaml' in sys.modules)"
    )
    first = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    # building parses the YAML and fits TF-IDF in numpy (`toolsel.tfidf`), not scikit-learn
    assert first.stdout.split() == ["read_file", "False", "True"]
    again = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    assert again.stdout.split() == ["read_file", "False", "False"]
