"""`toolsel.learn` as a library: choosing, cleaning and writing examples."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsel.learn import (
    Example,
    Learned,
    Miner,
    diverse,
    keep_most_frequent,
    learn,
    normalise,
    overlay_text,
    read_overlay,
)
from toolsel.secrets import PLACEHOLDERS, looks_secret, redact

texts = st.one_of(
    st.text(alphabet=st.sampled_from(list("abcdefgh xyz@.0123456789-_")), max_size=40),
    st.sampled_from(
        [
            "email bob@example.com the report",
            "email ann@example.com the report",
            "bob@example.com",
            "my password is hunter2",
            "call (415) 555-0132",
            "deploy the api",
        ]
    ),
)
examples = st.lists(
    st.builds(Example, st.sampled_from(["a_tool", "b_tool", "c_tool"]), texts, st.just("f:1")),
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(found=examples, cap=st.integers(0, 4), seed=st.integers(0, 1000))
def test_learning_is_order_free_capped_and_never_keeps_a_secret(
    found: list[Example], cap: int, seed: int
) -> None:
    shuffled = list(found)
    random.Random(seed).shuffle(shuffled)
    a = learn(found, max_per_tool=cap)
    b = learn(shuffled, max_per_tool=cap)
    assert overlay_text(a) == overlay_text(b)
    for chosen in a.examples.values():
        assert list(chosen) == sorted(chosen, key=lambda e: (e.text.casefold(), e.text))
        assert not cap or len(chosen) <= cap
        assert all(not looks_secret(e.text) and e.text.strip() for e in chosen)
        assert len({e.text.casefold() for e in chosen}) == len(chosen)
    # each prompt with a secret is kept with placeholders, or counted as nothing else
    leaky = [e for e in found if looks_secret(normalise(e.text))]
    assert a.redacted + a.only_secret == len(leaky)
    for example in leaky if not cap else []:
        result = redact(normalise(example.text))
        assert result is not None
        kept = {e.text for e in a.examples.get(example.tool, ())}
        assert (result.text in kept) != _nothing_else(result.text)
    # the overlay is valid YAML that reads back as the same examples
    data = yaml.safe_load(overlay_text(a))["examples"] or {}
    assert {t: [e.text for e in v] for t, v in a.examples.items()} == data


def test_overlay_text_escapes_what_yaml_would_misread() -> None:
    tricky = [
        "yes", "- a list?", "# not a comment", 'quote " inside', "key: value", "ünïcode",
        "line\u2028separator", "bidi \u202e reversed", "tab\tinside", "bell \x07", "emoji 🙂",
        "zero\u200bwidth",
    ]  # fmt: skip
    learned = learn([Example("t", text, "f:1") for text in tricky])
    text = overlay_text(learned)
    expected = sorted(" ".join(t.split()) for t in tricky)  # whitespace is normalised
    assert sorted(yaml.safe_load(text)["examples"]["t"]) == expected
    assert all(ch.isprintable() or ch in "\n " for ch in text)  # nothing raw that hides
    # a source with a line break cannot end the comment and inject YAML
    sneaky = learn([Example("t", "hello", "a\nexamples: {evil: [x]}:1")])
    assert yaml.safe_load(overlay_text(sneaky))["examples"] == {"t": ["hello"]}


def _nothing_else(text: str) -> bool:
    for placeholder in PLACEHOLDERS:
        text = text.replace(placeholder, " ")
    return not any(ch.isalnum() for ch in text)


def test_secrets_become_placeholders_and_merge_into_one_example() -> None:
    found = [
        Example("send_email", "email bob@example.com the report", "a:1"),
        Example("send_email", "email ann@example.com the report", "a:2"),
        Example("send_email", "ann@example.com", "a:3"),  # nothing else: dropped
        Example("deploy", "deploy with key AKIAIOSFODNN7EXAMPLE", "a:4"),
    ]
    learned = learn(found)
    assert {t: [e.text for e in v] for t, v in learned.examples.items()} == {
        "deploy": ["deploy with key <aws-key>"],
        "send_email": ["email <email> the report"],
    }
    assert learned.redacted == 3 and learned.only_secret == 1
    assert learned.placeholders == (("<email>", 2), ("<aws-key>", 1))


def test_redact_patterns_still_drop_the_whole_prompt() -> None:
    import re

    found = [Example("deploy", "deploy project-x to bob@example.com", "a:1")]
    learned = learn(found, redact=[re.compile("project-x")])
    assert learned.examples == {} and learned.dropped == 1 and learned.redacted == 0


def test_a_merged_overlay_is_redacted_too() -> None:
    """An overlay written before a detector existed is cleaned when merged into."""
    old = [Example("login", "my password is hunter2", "old.yaml")]
    learned = learn([*old, Example("login", "log me in", "a:1")], keep=1)
    assert [e.text for e in learned.examples["login"]] == ["log me in", "my password is <password>"]


@pytest.mark.parametrize(
    ("prompt", "words"),
    [
        ("email <email> the report", ["email", "email", "report"]),
        ("call <phone> tomorrow", ["call", "phone", "tomorrow"]),
        ("refund <card-number>", ["refund", "card", "number"]),
        ("use <aws-key> and <aws-secret>", ["use", "aws", "key", "aws", "secret"]),
        ("my password is <password>", ["password", "password"]),
        ("fetch https://<url-credentials>@10.0.0.5/x", None),
    ],
)
def test_a_placeholder_reads_as_the_words_for_what_it_replaced(
    prompt: str, words: list[str] | None
) -> None:
    """Ranking reads `<email>` as the word "email": what the prompt was about, and what a
    person asking about an address says. No placeholder adds a word beyond its name."""
    from toolsel.ranking.fields import tokens

    found = tokens(prompt)
    if words is not None:
        assert found == tokens(" ".join(words))
    for placeholder in PLACEHOLDERS:
        assert set(tokens(placeholder)) <= set(tokens(placeholder.strip("<>").replace("-", " ")))
        assert "<" not in "".join(tokens(placeholder)) and ">" not in "".join(tokens(placeholder))


# -- the overlay reads back as written ---------------------------------------------------------

#: Any text, with what YAML and the writer must get right made likely: characters beyond
#: the Basic Multilingual Plane (an emoji in a tool name), controls, line and paragraph
#: separators, quotes, backslashes, YAML indicators.
ANY_TEXT = st.text(
    st.one_of(
        st.characters(exclude_categories=("Cs",)),
        st.sampled_from(
            list(
                "🚀🙂\U0001d173\U000e0001\x00\x07\x1b\x7f\x85\u2028\u2029\ufeff\"\\'#:-&*!|>%@`{}[],? \t\n"
            )
        ),
    ),
    min_size=1,
    max_size=30,
)
#: A prompt is never blank: `learn` never writes one, and a registry refuses it.
PROMPT = ANY_TEXT.filter(str.strip)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.dictionaries(
        ANY_TEXT, st.lists(PROMPT, min_size=1, max_size=3, unique=True), min_size=1, max_size=3
    )
)
def test_any_tool_name_and_prompt_read_back_as_written(
    tmp_path: Path, found: dict[str, list[str]]
) -> None:
    """What `learn` writes, toolsel reads back equal: as an overlay to merge into, and as
    a registry file's examples."""
    from toolsel.registry import load_registry

    learned = Learned(
        {tool: tuple(Example(tool, text, "f:1") for text in texts) for tool, texts in found.items()}
    )
    path = tmp_path / "learned.yaml"
    path.write_text(overlay_text(learned), encoding="utf-8")
    assert sorted((e.tool, e.text) for e in read_overlay(path)) == sorted(
        (tool, text) for tool, texts in found.items() for text in texts
    )
    registry = load_registry([path], use_cache=False, strict=False)
    assert sorted((e.tool, e.text) for e in registry.overlay_examples) == sorted(
        (tool, text) for tool, texts in found.items() for text in texts
    )


def test_an_emoji_tool_name_is_written_as_yaml_reads_it() -> None:
    learned = Learned({"deploy_🚀": (Example("deploy_🚀", "ship it", "f:1"),)})
    text = overlay_text(learned)
    assert '"deploy_🚀":' in text and "\\ud83d" not in text
    assert yaml.safe_load(text)["examples"] == {"deploy_🚀": ["ship it"]}
    hidden = overlay_text(Learned({"a\U000e0001b": (Example("a\U000e0001b", "x", "f:1"),)}))
    assert '"a\\U000e0001b":' in hidden  # not printable: escaped, in YAML's 8-digit form


def test_a_lone_surrogate_is_written_as_the_replacement_character() -> None:
    """A JSON case file can hold "\\ud800", which no UTF-8 file can: U+FFFD stands in."""
    learned = Learned({"t\ud800": (Example("t\ud800", "a \udfff b", "f:1"),)})
    text = overlay_text(learned)
    text.encode("utf-8")
    assert yaml.safe_load(text)["examples"] == {"t\ufffd": ["a \ufffd b"]}


# -- a bounded pool of mined prompts ------------------------------------------------------------

#: One file's mining: tool -> prompt -> how many calls it led to.
FILE_FOUND = st.dictionaries(
    st.sampled_from(["a_tool", "b_tool"]),
    st.dictionaries(st.sampled_from([f"p{i}" for i in range(12)]), st.integers(1, 4), max_size=6),
    max_size=2,
)


def _file_miner(number: int, found: dict[str, dict[str, int]]) -> Miner:
    miner = Miner()
    miner.found = {
        tool: {text: [f"f{number}", 1, count] for text, count in prompts.items()}
        for tool, prompts in found.items()
    }
    miner.calls = sum(sum(prompts.values()) for prompts in found.values())
    return miner


@settings(max_examples=200, deadline=None)
@given(counts=st.lists(st.integers(1, 5), max_size=20), n=st.integers(1, 8))
def test_pruning_keeps_the_most_frequent_first_seen_first(counts: list[int], n: int) -> None:
    prompts = {f"p{i}": ["f", i, count] for i, count in enumerate(counts)}
    kept, let_go = keep_most_frequent(dict(prompts), n)
    assert len(kept) == min(n, len(prompts))
    assert list(kept) == [text for text in prompts if text in kept]  # first-seen order
    dropped = [value for text, value in prompts.items() if text not in kept]
    assert let_go == sum(value[2] for value in dropped)
    for value in kept.values():  # no prompt let go had more calls, or as many and came first
        assert all(
            value[2] > gone[2] or (value[2] == gone[2] and value[1] < gone[1]) for gone in dropped
        )


@settings(max_examples=200, deadline=None)
@given(files=st.lists(FILE_FOUND, max_size=12), pool=st.integers(1, 4))
def test_a_bounded_pool_keeps_exact_totals(
    files: list[dict[str, dict[str, int]]], pool: int
) -> None:
    """Whatever is pruned, the calls each tool led to are all counted (in the pool or as
    let go), and no tool ever holds 2 x pool prompts; without pruning, nothing changes."""
    bounded, unbounded = Miner(pool), Miner()
    for number, found in enumerate(files):
        bounded.join(_file_miner(number, found))
        unbounded.join(_file_miner(number, found))
        assert all(len(prompts) < 2 * pool for prompts in bounded.found.values())
    bounded.finish()
    assert all(len(prompts) <= pool for prompts in bounded.found.values())
    assert bounded.calls == unbounded.calls
    for tool, prompts in unbounded.found.items():
        total = sum(value[2] for value in prompts.values())
        kept = bounded.found[tool]
        assert sum(value[2] for value in kept.values()) + bounded.pruned_calls[tool] == total
        if not bounded.pruned[tool]:
            assert kept == prompts
        for text, value in kept.items():  # a kept prompt's calls are all counted
            assert value[2] <= prompts[text][2]


def test_min_count_counts_the_calls_of_prompts_let_go(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tests.replay.archive import write_archive
    from toolsel import learn
    from toolsel.learn import mine

    monkeypatch.setattr(mine, "POOL_FLOOR", 2)
    monkeypatch.setattr(mine, "POOL_PER_EXAMPLE", 1)
    write_archive(tmp_path, 30, seed=6)
    every = learn.learn_examples(transcripts=[str(tmp_path)], max_per_tool=0)
    calls = {tool: sum(e.count for e in found) for tool, found in _mined(str(tmp_path)).items()}
    read = max(calls, key=calls.__getitem__)
    for min_count, dropped in ((calls[read], False), (calls[read] + 1, True)):
        pruned = learn.learn_examples(
            transcripts=[str(tmp_path)], max_per_tool=1, min_count=min_count
        )
        assert pruned.pruned > 0
        assert (read in pruned.below_min_count) == dropped
        # every distinct prompt read is counted once at least: kept, left out or let go
        assert pruned.read >= every.read
    assert every.pruned == 0 and every.pool is None


def _jsonl(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def _call(call_id: str, tool: str, parent: str | None, **arguments: Any) -> dict[str, Any]:
    block = {"type": "tool_use", "id": call_id, "name": tool, "input": arguments}
    return {"type": "assistant", "message": {"id": f"m{call_id}", "content": [block]},
            "parent_tool_use_id": parent, "session_id": "s"}  # fmt: skip


def _result(call_id: str, parent: str | None) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": "ok"}
    return {"type": "user", "message": {"content": [block]}, "parent_tool_use_id": parent,
            "session_id": "s"}  # fmt: skip


@pytest.mark.parametrize("jobs", [1, 2])
def test_mining_counts_every_call_and_gives_a_sub_agent_call_its_task_prompt(
    tmp_path: Path, jobs: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counts add up over files (each file mined apart and joined), and a call made inside
    a sub-agent is taught by the prompt its Task gave, not by the person's request."""
    from toolsel.learn import learn_examples
    from toolsel.replay import parallel

    monkeypatch.setattr(parallel, "MIN_FILES", 2)
    human = {"type": "user", "message": {"content": "please fix the build"},
             "parent_tool_use_id": None, "session_id": "s"}  # fmt: skip
    _jsonl(tmp_path / "a.jsonl", [
        human,
        _call("T1", "Task", None, prompt="find the config file"),
        _call("g1", "grep", "T1"), _result("g1", "T1"),
        _result("T1", None),
    ])  # fmt: skip
    _jsonl(tmp_path / "b.jsonl", [_call("r1", "read_file", None), _result("r1", None)])
    learned = learn_examples(transcripts=[str(tmp_path)], jobs=jobs)
    texts = {tool: [e.text for e in found] for tool, found in learned.examples.items()}
    assert texts == {"Task": ["please fix the build"], "grep": ["find the config file"]}
    assert (learned.calls_seen, learned.calls_without_prompt, learned.read) == (3, 1, 2)


def _mined(path: str) -> dict[str, list[Any]]:
    from toolsel.learn import from_transcripts

    found: dict[str, list[Any]] = {}
    for example in from_transcripts([path]).examples:
        found.setdefault(example.tool, []).append(example)
    return found


def _diverse_by_scikit_learn(examples: list[Example], n: int) -> list[Example]:
    """`diverse` as it was written with scikit-learn's TfidfVectorizer: the reference."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    from toolsel.learn import RELEVANCE
    from toolsel.ranking.fields import tokens

    texts = [e.text for e in examples]
    try:
        vectors = TfidfVectorizer(
            tokenizer=tokens, lowercase=False, token_pattern=None, sublinear_tf=True
        ).fit_transform(texts)
    except ValueError:
        return sorted(examples, key=lambda e: e.text)[:n]
    typical = np.asarray(vectors @ vectors.mean(axis=0).T).ravel()
    rank = {i: r for r, i in enumerate(sorted(range(len(texts)), key=lambda i: texts[i]))}
    chosen: list[int] = []
    closest = np.zeros(len(texts))
    available = np.ones(len(texts), dtype=bool)
    for _ in range(n):
        value = RELEVANCE * typical - (1 - RELEVANCE) * closest
        value[~available] = -np.inf
        best = value.max() - 1e-9  # as `diverse` takes ties (the reference took ==)
        pick = min((int(i) for i in np.flatnonzero(value >= best)), key=rank.__getitem__)
        chosen.append(pick)
        available[pick] = False
        closest = np.maximum(closest, (vectors @ vectors[pick].T).toarray().ravel())
    return [examples[i] for i in chosen]


WORDS = st.sampled_from("deploy the api to prod staging check logs restart service a an of".split())


@settings(max_examples=150, deadline=None)
@given(
    prompts=st.lists(
        st.one_of(
            st.lists(WORDS, min_size=0, max_size=8).map(" ".join), st.sampled_from(["", "!!", "42"])
        ),
        min_size=1,
        max_size=25,
    ),
    n=st.integers(1, 6),
)
def test_diverse_chooses_as_scikit_learn_tfidf_did(prompts: list[str], n: int) -> None:
    """The TF-IDF is computed in numpy (scikit-learn's import cost a second of every
    `learn --max-per-tool`): the same choice as with scikit-learn's vectors."""
    examples = [Example("t", text, f"f:{i}") for i, text in enumerate(prompts)]
    n = min(n, len(examples))
    assert diverse(examples, n) == _diverse_by_scikit_learn(examples, n)
