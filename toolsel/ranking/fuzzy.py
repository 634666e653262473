"""The `fuzzy` method's index: rapidfuzz WRatio of the prompt against each tool's short
strings (name words, display name, aliases, tags, search hint), the best per tool.

The strings are normalised (`rapidfuzz.utils.default_process`) and de-duplicated once,
when the index is prepared, instead of once per query. A prompt of a few words (a name
typed by hand, possibly misspelt: "raed fle") is compared with every string. A longer
prompt, a sentence, is compared only with the strings that share a word, or a word's
first PREFIX letters, with it: WRatio scores a sentence against a short string by its
best-matching part, and on the public benchmarks' dev queries the strings that share no
word scored under the cutoff or did not change the top 10 (see docs/quality.md).
"""

from __future__ import annotations

from collections.abc import Sequence

#: Prompts of at most this many words are compared with every string.
EVERY_STRING_MAX_WORDS = 3
#: A sentence's word and a string's word that begin with this many letters in common
#: make the string a candidate ("deploy" finds "deployment").
PREFIX = 4


class FuzzyIndex:
    """Distinct normalised strings, the tools each belongs to, and word postings."""

    def __init__(self, strings: Sequence[str], owners: Sequence[int]) -> None:
        from rapidfuzz import utils

        by_text: dict[str, list[int]] = {}
        for text, owner in zip(strings, owners, strict=True):
            processed = utils.default_process(text)
            if processed:  # an empty string scores 0 against anything
                tools = by_text.setdefault(processed, [])
                if owner not in tools:
                    tools.append(owner)
        self.choices = list(by_text)
        self.owners = [tuple(tools) for tools in by_text.values()]
        self.words: dict[str, set[int]] = {}
        for position, text in enumerate(self.choices):
            for word in text.split():
                self.words.setdefault(word, set()).add(position)
                if len(word) >= PREFIX:
                    self.words.setdefault(_prefix_key(word), set()).add(position)

    def candidates(self, words: Sequence[str]) -> list[int]:
        """The strings that share a word, or a word's first PREFIX letters, with `words`."""
        found: set[int] = set()
        for word in set(words):
            found |= self.words.get(word, set())
            if len(word) >= PREFIX:
                found |= self.words.get(_prefix_key(word), set())
        return sorted(found)

    def scores(self, query: str, cutoff: float, *, every_string: bool = False) -> dict[int, float]:
        """Tool -> its best WRatio against `query`, for scores at or above `cutoff`."""
        from rapidfuzz import fuzz, process, utils

        processed = utils.default_process(query)
        words = processed.split()
        if not words:
            return {}
        choices: Sequence[str] = self.choices
        positions: Sequence[int] = range(len(choices))
        if not every_string and len(words) > EVERY_STRING_MAX_WORDS:
            positions = self.candidates(words)
            choices = [self.choices[p] for p in positions]
        found: dict[int, float] = {}
        for _, score, key in process.extract(
            processed, choices, scorer=fuzz.WRatio, limit=None, score_cutoff=cutoff
        ):
            for owner in self.owners[positions[key]]:
                if score > found.get(owner, 0.0):
                    found[owner] = score
        return found


def _prefix_key(word: str) -> str:
    # a space cannot be in a word, so a prefix key never equals a word
    return " " + word[:PREFIX]
