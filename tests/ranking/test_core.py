"""The ranking pipeline (ranking/core.py and the methods.py and strength.py it calls) on a small registry:
how ties are ordered, what each filter drops and names, the limits' boundaries, strength and
the example paths (learned weights and nearest-example votes)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli
from toolsel.errors import UsageError
from toolsel.ranking import Method, RankOptions, lexical, load_index, methods, rank_index
from toolsel.ranking.prepared import PreparedIndex
from toolsel.registry.model import Permission

#: Two tools alike but for their names (registry order: beta, then alpha), a tool that
#: conflicts with both, a deprecated one, a dangerous one and two always-include tools.
SMALL = """\
tools:
  - {name: beta_copy, description: Copy a file to another place on disk., category: files, permission: write, tags: [disk]}
  - {name: alpha_copy, description: Copy a file to another place on disk., category: files, permission: write, tags: [disk]}
  - {name: move_file, description: Move a file to another folder on disk., category: files, permission: write, conflicts: [alpha_copy, beta_copy]}
  - {name: old_move, description: Move a file the old way on disk., category: files, permission: write, deprecated: true, deprecated_by: move_file}
  - {name: wipe_disk, description: Erase every file on a disk., category: admin, permission: dangerous}
  - {name: clock, description: Tell the current time., category: misc, permission: read, always_include: true}
  - {name: helper, description: Ask the user a question., category: misc, permission: read, always_include: true}
"""
COPY = "copy a file on disk"
LEXICAL = [Method.HYBRID, Method.TFIDF, Method.BM25, Method.FUZZY]


def index_of(tmp_path: Path, text: str) -> PreparedIndex:
    path = tmp_path / "registry.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return load_index(path, use_cache=False)


@pytest.fixture
def small(tmp_path: Path) -> PreparedIndex:
    return index_of(tmp_path, SMALL)


def ranked(index: PreparedIndex, query: str = COPY, **options: object) -> list[str]:
    return [t.name for t in rank_index(index, query, RankOptions(**options)).results]  # type: ignore[arg-type]


# -- order ---------------------------------------------------------------------------------


@pytest.mark.parametrize("method", LEXICAL)
def test_ties_are_broken_by_name(small: PreparedIndex, method: Method) -> None:
    result = rank_index(small, COPY, RankOptions(method=method))
    assert [t.name for t in result.results[:2]] == ["alpha_copy", "beta_copy"]
    assert result.results[0].score == result.results[1].score == 1.0


def test_cc_keeps_registry_order_on_ties_as_claude_code_does(small: PreparedIndex) -> None:
    assert ranked(small, method=Method.CC)[:2] == ["beta_copy", "alpha_copy"]


# -- what the pipeline drops, and names ----------------------------------------------------


@pytest.mark.parametrize("method", [*LEXICAL, Method.CC])
def test_a_conflict_names_the_first_of_the_better_tools_by_name(
    small: PreparedIndex, method: Method
) -> None:
    """move_file conflicts with both copies, which rank above it: alpha_copy is named."""
    result = rank_index(small, COPY, RankOptions(method=method, top=10))
    (excluded,) = result.excluded
    assert (excluded.name, excluded.conflicts_with) == ("move_file", "alpha_copy")
    assert 0.0 < excluded.score < 1.0
    assert "move_file" not in [t.name for t in result.results]


def test_the_better_tool_excludes_every_tool_it_conflicts_with(small: PreparedIndex) -> None:
    result = rank_index(small, "move file", RankOptions(top=10))
    assert [t.name for t in result.results][:1] == ["move_file"]
    assert [(e.name, e.conflicts_with) for e in result.excluded] == [
        ("alpha_copy", "move_file"),
        ("beta_copy", "move_file"),
    ]


def test_dropped_tools_keep_their_scores(small: PreparedIndex) -> None:
    result = rank_index(small, "move the file the old way", RankOptions(top=10))
    (deprecated,) = result.deprecated
    assert (deprecated.name, deprecated.replaced_by) == ("old_move", "move_file")
    assert deprecated.score == 1.0  # it would have ranked first
    blocked = rank_index(small, "erase disk", RankOptions(permission=Permission.WRITE)).blocked
    assert [(b.name, b.needs, b.score) for b in blocked] == [("wipe_disk", "dangerous", 1.0)]
    allowed = rank_index(small, "erase disk", RankOptions(permission=Permission.DANGEROUS))
    assert allowed.results[0].name == "wipe_disk" and not allowed.blocked


def test_filters_leave_nothing_listed_as_dropped(small: PreparedIndex) -> None:
    """A tool outside `--category`/`--tag` is left out silently (it was not asked for)."""
    result = rank_index(small, COPY, RankOptions(categories=("admin",)))
    assert [t.name for t in result.results] == ["wipe_disk"]
    assert not (result.excluded or result.deprecated or result.blocked)
    tagged = rank_index(small, COPY, RankOptions(tags=("disk",), top=10))
    assert [t.name for t in tagged.results] == ["alpha_copy", "beta_copy"]
    assert not tagged.always  # the always-include tools lack the tag


def test_always_include_tools_follow_the_options(small: PreparedIndex) -> None:
    assert [t.name for t in rank_index(small, COPY).always] == ["clock", "helper"]
    assert [t.match for t in rank_index(small, COPY).always] == ["always-include"] * 2
    assert rank_index(small, COPY, RankOptions(categories=("files",))).always == ()
    # asked for, an always-include tool ranks at its place, and is not offered twice
    result = rank_index(small, "tell the current time")
    assert result.results[0].name == "clock" and result.results[0].always_include
    assert result.results[0].match == "match"
    assert [t.name for t in result.always] == ["helper"]
    # eval: they compete on score like any other tool
    competing = rank_index(small, COPY, RankOptions(pin_always_include=False, top=10))
    assert competing.always == ()
    assert rank_index(small, COPY, RankOptions(method=Method.CC)).always == ()


# -- the limits ------------------------------------------------------------------------------


def test_top_counts_only_the_tools_that_pass_the_limits(small: PreparedIndex) -> None:
    assert ranked(small, top=1) == ["alpha_copy"]
    assert ranked(small, top=2) == ["alpha_copy", "beta_copy"]
    assert ranked(small, top=3, min_score=1.0) == ["alpha_copy", "beta_copy"]  # 1.0 is kept


def test_min_strength_drops_the_weak_tools_but_not_the_always_included(
    small: PreparedIndex,
) -> None:
    result = rank_index(small, "move file", RankOptions(top=10))
    weak = result.results[1]
    assert weak.name == "wipe_disk" and weak.strength < 0.3
    kept = rank_index(small, "move file", RankOptions(top=10, min_strength=weak.strength - 1e-6))
    assert [t.name for t in kept.results] == ["move_file", "wipe_disk"]
    cut = rank_index(small, "move file", RankOptions(top=10, min_strength=weak.strength + 1e-6))
    assert [t.name for t in cut.results] == ["move_file"]
    assert [t.name for t in cut.always] == ["clock", "helper"]  # exempt from the limits


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (RankOptions(top=0), "--top must be at least 1, got 0"),
        (RankOptions(min_score=-0.1), "--min-score must be between 0 and 1, got -0.1"),
        (RankOptions(min_score=1.1), "--min-score must be between 0 and 1, got 1.1"),
        (RankOptions(min_strength=-0.1), "--min-strength must be between 0 and 1, got -0.1"),
        (RankOptions(min_strength=1.5), "--min-strength must be between 0 and 1, got 1.5"),
    ],
)
def test_options_out_of_range_are_usage_errors(
    small: PreparedIndex, options: RankOptions, message: str
) -> None:
    with pytest.raises(UsageError) as caught:
        rank_index(small, COPY, options)
    assert str(caught.value) == message


def test_the_limits_include_their_bounds(small: PreparedIndex) -> None:
    for options in (
        RankOptions(min_score=0.0, min_strength=0.0),
        RankOptions(min_score=1.0, min_strength=1.0),
    ):
        assert rank_index(small, COPY, options).results[0].name == "alpha_copy"


def test_an_empty_prompt_is_an_error(small: PreparedIndex) -> None:
    with pytest.raises(UsageError) as caught:
        rank_index(small, " \t")
    assert caught.value.message == "the prompt is empty"
    assert caught.value.hint == 'give a prompt, e.g. toolsel rank "read a file"'


def test_an_index_of_no_tools_is_a_registry_error() -> None:
    """The loader refuses an empty registry (TS009); an index built in code is checked too."""
    from toolsel.errors import RegistryError
    from toolsel.ranking.index import build_index
    from toolsel.registry.model import Registry

    with pytest.raises(RegistryError) as caught:
        rank_index(build_index(Registry(files=(), tools=(), categories={})), COPY)
    assert (caught.value.message, caught.value.hint) == (
        "the registry has no tools",
        "add entries under `tools:`",
    )


def test_an_unknown_category_or_tag_names_the_known_ones(small: PreparedIndex) -> None:
    with pytest.raises(UsageError) as caught:
        rank_index(small, COPY, RankOptions(categories=("file",)))
    assert caught.value.message == "--category 'file': no tool has it (did you mean 'files'?)"
    assert caught.value.hint == "known: admin, files, misc"
    with pytest.raises(UsageError) as caught:
        rank_index(small, COPY, RankOptions(tags=("disk", "nope")))
    assert caught.value.message == "--tag 'nope': no tool has it"
    assert caught.value.hint == "known: disk"


def test_the_cli_reports_an_option_out_of_range_in_one_line(cli: Cli) -> None:
    run = cli("rank", "-r", str(ROOT / "registries"), "read a file", "--min-strength", "2")
    assert run.exit_code == 2
    assert "--min-strength" in run.stderr and "Traceback" not in run.stderr


# -- strength ------------------------------------------------------------------------------


def test_strength_of_exact_names_words_and_typed_names(small: PreparedIndex) -> None:
    def strength(query: str, name: str, method: Method = Method.HYBRID) -> float:
        result = rank_index(small, query, RankOptions(method=method, top=10))
        return next(t.strength for t in result.results if t.name == name)

    assert strength("alpha_copy", "alpha_copy") == 1.0  # an exact name
    exact = rank_index(small, "Alpha-Copy").results[0]  # case and separators aside
    assert (exact.name, exact.match, exact.strength) == ("alpha_copy", "exact-name", 1.0)
    # every word found (idf-weighted), whatever the other tools score
    assert strength(COPY, "beta_copy") == 1.0
    # a typed name with a typo is as strong as it is alike the name (no word found)
    assert strength("mve fle", "move_file") == 0.875  # "mve fle" and "move file"
    # up to 4 words a prompt may be a typed name; 5 are a sentence
    assert strength("mve fle and so", "move_file") == pytest.approx(0.608696, abs=1e-6)
    assert strength("mve fle and so on", "move_file") == 0.0
    # less alike than NAME_LIKENESS_FLOOR is not alike at all
    assert strength("mv", "move_file") == 0.0


def test_a_corrected_word_counts_half(small: PreparedIndex) -> None:
    """ "eras" is corrected to "erase" for hybrid: a guess, worth half a found word."""
    exact = rank_index(small, "erase", RankOptions(top=10)).results[0]
    typo = rank_index(small, "erasx", RankOptions(top=10)).results[0]
    assert exact.name == typo.name == "wipe_disk"
    assert exact.strength == 1.0
    assert typo.strength == pytest.approx(0.5, abs=1e-6)


def test_looks_typed_is_a_short_query_with_a_word_the_registry_lacks(
    small: PreparedIndex,
) -> None:
    assert methods.looks_typed(small, ["mvoe"])
    assert methods.looks_typed(small, ["mvoe", "a", "file"])
    assert not methods.looks_typed(small, ["mvoe", "a", "file", "disk"])  # a sentence
    assert not methods.looks_typed(small, ["move", "file"])  # every word known
    assert not methods.looks_typed(small, [])


# -- examples: learned weights and nearest-example votes -------------------------------------

EXAMPLES = """\
examples:
  clock:
{clock}
  helper:
{helper}
"""


def with_examples(tmp_path: Path, per_tool: int) -> PreparedIndex:
    clock = "\n".join(f'    - "what hour is it in city {i}"' for i in range(per_tool))
    helper = "\n".join(f'    - "check with me first about thing {i}"' for i in range(per_tool))
    (tmp_path / "examples.yaml").write_text(EXAMPLES.format(clock=clock, helper=helper))
    (tmp_path / "registry.yaml").write_text(SMALL)
    return load_index(tmp_path, use_cache=False)


@pytest.mark.parametrize("method", [Method.HYBRID, Method.BM25, Method.TFIDF])
def test_learned_examples_find_a_tool_by_words_it_never_uses(
    tmp_path: Path, method: Method
) -> None:
    index = with_examples(tmp_path, 3)
    assert index.index.learned
    result = rank_index(index, "what hour is it", RankOptions(method=method, explain=True))
    best = result.results[0]
    assert best.name == "clock"
    fields = {c.field for c in best.contributions}
    assert "example" in fields
    quoted = [c.term for c in best.contributions if c.field == "example"]
    assert quoted == ['"what hour is it in city 0"']  # the nearest example that shares a word


@pytest.mark.parametrize("method", [Method.HYBRID, Method.BM25])
def test_nearest_examples_vote_where_nothing_was_learned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: Method
) -> None:
    """Over the learning budget, the examples' votes (weighted by examples per tool: all
    from 10) stand in for learned weights."""
    from toolsel.ranking import learned

    monkeypatch.setattr(learned, "BUDGET", 0)
    index = with_examples(tmp_path, 10)
    assert not index.index.learned and index.vote_weight > 0
    result = rank_index(index, "what hour is it", RankOptions(method=method, explain=True))
    best = result.results[0]
    assert best.name == "clock" and best.score == 1.0
    quoted = [(c.term, c.field) for c in best.contributions if c.field == "example"]
    assert quoted == [('"what hour is it in city 0"', "example")]
    # with too few examples per tool, votes count for nothing: only the examples' words
    few = with_examples(tmp_path, 3)
    assert not few.index.learned and few.vote_weight == 0
    words = rank_index(few, "what hour is it", RankOptions(method=method, explain=True))
    # ("hour" is no word of the tools' own, so the prompt is also matched to names as typed)
    fields = [c.field for c in words.results[0].contributions]
    assert [f for f in fields if f != "fuzzy"] == ["examples", "examples"]


def test_explain_a_typed_name_shows_the_corrected_words_and_the_fuzzy_match(
    small: PreparedIndex,
) -> None:
    result = rank_index(small, "mvoe fiel", RankOptions(explain=True))
    best = result.results[0]
    assert best.name == "move_file"
    assert [(c.term, c.field, round(c.value, 3)) for c in best.contributions] == [
        ("move", "name", 1.198),
        ("move", "description", 0.599),
        ("file", "name", 0.345),
        ("file", "category", 0.086),
        ("file", "description", 0.173),
        ("move file", "fuzzy", 77.778),
    ]


def test_explain_names_the_learned_words_when_no_example_shares_one() -> None:
    index = load_index(ROOT / "registries", use_cache=False)
    result = rank_index(index, "event", RankOptions(explain=True, top=5))
    learned = {
        t.name: [c.term for c in t.contributions if c.field == "learned"] for t in result.results
    }
    # no example of create_calendar_event says "event"; its learned weights for it do
    assert learned["create_calendar_event"] == ["event"]
    assert not any(c.field == "example" for c in result.results[0].contributions)


def test_an_unknown_tag_where_no_tool_has_tags(tmp_path: Path) -> None:
    plain = index_of(tmp_path, "tools:\n  - {name: a, description: x.}\n  - {name: b, description: y.}\n")  # fmt: skip
    with pytest.raises(UsageError) as caught:
        rank_index(plain, "x", RankOptions(tags=("x",)))
    assert caught.value.hint == "known: none"


def test_fuzzy_matching_looks_at_the_best_lexical_candidates(tmp_path: Path) -> None:
    """Over HYBRID_FUZZY_CANDIDATES lexical matches, fuzzy scores only the best ones."""
    lines = [
        f"  - {{name: widget_{i}, description: Handles widget {'widget widget' if i < 10 else 'number'} {i}.}}"
        for i in range(methods.HYBRID_FUZZY_CANDIDATES + 10)
    ]  # fmt: skip
    index = index_of(tmp_path, "tools:\n" + "\n".join(lines) + "\n")
    terms = ["widgt", "handles"]
    assert methods.looks_typed(index, terms)
    found = lexical.lexical_fusion(index, ["widget", "handles"])
    best = max(found, key=lambda d: found[d])
    assert index.tools[best].name.startswith("widget_") and int(index.tools[best].name[7:]) < 10
    hybrid = methods.score(index, "widgt handles", terms, Method.HYBRID).raw
    # the fuzzy part (WRatio 77.14 of 100, weighted 0.15) was added to the best candidate
    assert hybrid[best] - found[best] == pytest.approx(0.15 * 0.7714285714, abs=1e-9)


def test_votes_that_find_nothing_leave_the_ranking_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolsel.ranking import learned

    monkeypatch.setattr(learned, "BUDGET", 0)
    index = with_examples(tmp_path, 10)
    assert index.vote_weight == 1.0
    assert ranked(index, "erase the disk")[:3] == ["wipe_disk", "alpha_copy", "beta_copy"]


def test_fusion_adds_what_the_examples_say(tmp_path: Path, fake_embedder: object) -> None:
    from toolsel.ranking import semantic, taught
    from toolsel.ranking.fields import tokens

    query = "what hour is it"
    index = with_examples(tmp_path, 3)
    result = rank_index(index, query, RankOptions(method=Method.FUSION, explain=True))
    best = result.results[0]
    clock = index.positions["clock"]
    learned = taught.learned(index, tokens(query))[clock]
    parts, evidence = semantic.fusion_parts(index, semantic.query_vector(query), tokens(query))
    fused = semantic.fused(parts, evidence)[clock]
    assert best.name == "clock" and learned > 0
    assert best.raw == pytest.approx(fused + index.learned_weight * learned, abs=2e-6)
    assert ('"what hour is it in city 0"', "example") in [(c.term, c.field) for c in best.contributions]  # fmt: skip


def test_a_result_keeps_the_prompts_terms_and_each_tools_category(small: PreparedIndex) -> None:
    result = rank_index(small, COPY)
    assert result.terms == ("copy", "file", "disk")
    assert [(t.name, t.category, t.contributions) for t in result.results] == [
        ("alpha_copy", "files", ()),  # nothing explained unless asked
        ("beta_copy", "files", ()),
        ("wipe_disk", "admin", ()),
    ]


def test_cc_finds_past_claude_codes_five_when_asked_and_names_exact_matches(
    small: PreparedIndex,
) -> None:
    index = load_index(ROOT / "registries", use_cache=False)
    assert len(rank_index(index, "file", RankOptions(method=Method.CC, top=30)).results) == 7
    exact = rank_index(small, "alpha_copy", RankOptions(method=Method.CC)).results
    assert [(t.name, t.match) for t in exact] == [("alpha_copy", "exact-name")]
    words = rank_index(small, "copy", RankOptions(method=Method.CC)).results
    assert [(t.name, t.match) for t in words] == [("beta_copy", "match"), ("alpha_copy", "match")]


def test_votes_are_scaled_by_the_best_vote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolsel.ranking import learned

    monkeypatch.setattr(learned, "BUDGET", 0)
    from toolsel.ranking import prepared, taught
    from toolsel.ranking.fields import tokens

    query = "what hour is it in city 3"
    index = with_examples(tmp_path, 10)
    result = {t.name: t.raw for t in rank_index(index, query, RankOptions(top=3)).results}
    monkeypatch.setattr(prepared, "VOTE_WEIGHT", 0.0)
    unvoted = {
        t.name: t.raw
        for t in rank_index(with_examples(tmp_path, 10), query, RankOptions(top=3)).results
    }
    votes = taught.example_votes(index, tokens(query))
    best = max(votes.values())
    assert best > 0 and index.vote_weight == 1.0
    for name, raw in result.items():
        share = votes.get(index.positions[name], 0.0) / best
        assert raw == pytest.approx(unvoted.get(name, 0.0) + share, abs=2e-6), name
    assert max(result, key=result.__getitem__) == "clock"
