"""`toolsel.learn` as a library: choosing, cleaning and writing examples."""

from __future__ import annotations

import random

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsel.learn import Example, learn, overlay_text
from toolsel.secrets import looks_secret

texts = st.text(
    alphabet=st.sampled_from(list("abcdefgh xyz@.0123456789-_")), min_size=0, max_size=40
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
    # every prompt is either kept, a duplicate, beyond the cap, or counted as redacted
    assert a.redacted == sum(
        1 for e in found if e.text.split() and looks_secret(" ".join(e.text.split()))
    )
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
