"""Render `toolsel learn`'s summary: counts in English (one example, not "1 examples")."""

from __future__ import annotations

from dataclasses import replace

from toolsel.learn import Learned
from toolsel.render.learn import counted, summary


def test_counts_agree_with_their_nouns() -> None:
    assert counted(1, "example") == "1 example"
    assert counted(0, "tool") == "0 tools"
    assert counted(2, "successful call") == "2 successful calls"


def test_one_of_each_reads_in_the_singular() -> None:
    learned = Learned(examples={})
    one = replace(learned, redacted=1, placeholders=(("<email>", 1),), calls_seen=1)
    text = summary(one)
    assert "1 prompt kept" in text and "1 successful call read" in text
    assert "1 examples" not in text and "1 prompts" not in text


def test_prompts_let_go_by_the_pool_are_counted_and_the_way_to_keep_them_named() -> None:
    learned = replace(Learned(examples={}), pruned=1, pool=1000)
    text = summary(learned)
    assert "1 rarer prompt let go while mining, each tool keeping its 1000 most frequent" in text
    assert "--max-per-tool 0 keeps all" in text
    assert "let go" not in summary(Learned(examples={}))
