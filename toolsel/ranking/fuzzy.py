"""The `fuzzy` method's index: rapidfuzz WRatio of the prompt against each tool's short
strings (name words, display name, aliases, tags, search hint), the best per tool.

The strings are normalised and de-duplicated once, when the index is prepared. A sentence
is compared only with the strings that share a word (or its first PREFIX letters) with it:
on the public benchmarks' dev queries the others scored under the cutoff or did not change
the top 10 (see docs/quality.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: Prompts of at most this many words are compared with every string.
EVERY_STRING_MAX_WORDS = 3
#: A sentence's word and a string's word that begin with this many letters in common
#: make the string a candidate ("deploy" finds "deployment").
PREFIX = 4
#: WRatio of two strings whose lengths differ more than 8-fold is at most 60: partial
#: matching scaled by 0.6 (token matching by 0.57, plain ratio at most 2/9), so with a
#: cutoff above FAR_CEILING only the shorter found whole in the longer reaches it.
FAR_RATIO = 8.0
FAR_CEILING = 57.0
#: WRatio of two strings that share a whole word, at a length ratio of 1.5 to 8: its token
#: part (partial token ratio, 100 for a shared word) scaled by 0.95 and 0.9, as rapidfuzz
#: computes it; only the partial ratio can take it higher.
SHARED_WORD_SCORE = 100 * 0.95 * 0.9


class FuzzyIndex:
    """Distinct normalised strings, the tools each belongs to, and word postings."""

    def __init__(self, strings: Sequence[str], owners: Sequence[int]) -> None:
        from rapidfuzz import utils

        by_text: dict[str, dict[int, None]] = {}  # each string's tools, in order
        for text, owner in zip(strings, owners, strict=True):
            processed = utils.default_process(text)
            if processed:  # an empty string scores 0 against anything
                by_text.setdefault(processed, {})[owner] = None
        self.choices = list(by_text)
        self.owners = [tuple(tools) for tools in by_text.values()]
        self.tokens = [frozenset(text.split()) for text in self.choices]
        self.words: dict[str, set[int]] = {}
        for position, text in enumerate(self.choices):
            for word in text.split():
                self.words.setdefault(word, set()).add(position)
                if len(word) >= PREFIX:
                    self.words.setdefault(_prefix_key(word), set()).add(position)

    def candidates(self, words: Sequence[str]) -> list[int]:
        """The strings that share a word, or a word's first PREFIX letters, with `words`."""
        index = self.words
        keys = {
            w for word in words for w in (word, _prefix_key(word) if len(word) >= PREFIX else word)
        }
        return sorted(set().union(*(index[k] for k in keys if k in index)))

    def scores(self, query: str, cutoff: float, *, every_string: bool = False) -> dict[int, float]:
        """Tool -> its best WRatio against `query`, for scores at or above `cutoff`."""
        from rapidfuzz import fuzz, utils

        processed = utils.default_process(query)
        words = processed.split()
        if not words:
            return {}
        positions: Sequence[int] = range(len(self.choices))
        shared: list[int] = []
        if not every_string and len(words) > EVERY_STRING_MAX_WORDS:
            positions = self.candidates(words)
            if cutoff > FAR_CEILING:  # exact: see FAR_RATIO
                positions = self._within_reach(processed, positions)
            if cutoff <= SHARED_WORD_SCORE:
                positions, shared = self._sharing_a_word(processed, positions)
        found: dict[int, float] = {}
        for position, score in [
            *self._extract(processed, positions, fuzz.WRatio, cutoff),
            *self._shared_word_scores(processed, shared),
        ]:
            for owner in self.owners[position]:
                if score > found.get(owner, 0.0):
                    found[owner] = score
        return found

    def _extract(
        self, processed: str, positions: Sequence[int], scorer: Any, cutoff: float
    ) -> list[tuple[int, float]]:
        """(position, score) of the strings at `positions` scoring at least `cutoff`."""
        from rapidfuzz import process

        choices = [self.choices[p] for p in positions]
        return [
            (positions[key], score)
            for _, score, key in process.extract(
                processed, choices, scorer=scorer, limit=None, score_cutoff=cutoff
            )
        ]

    def _sharing_a_word(
        self, processed: str, positions: Sequence[int]
    ) -> tuple[list[int], list[int]]:
        """`positions` split in two: the rest, and the strings that share a whole word with
        the prompt and are 1.5 to 8 times shorter or longer than it (see SHARED_WORD_SCORE)."""
        asked = set(processed.split())
        size = len(processed)
        rest: list[int] = []
        shared: list[int] = []
        for p in positions:
            text = self.choices[p]
            short, long = sorted((len(text), size))
            near = 2 * long >= 3 * short and long <= FAR_RATIO * short
            (shared if near and not self.tokens[p].isdisjoint(asked) else rest).append(p)
        return rest, shared

    def _shared_word_scores(self, processed: str, positions: list[int]) -> list[tuple[int, float]]:
        """WRatio of strings sharing a word with the prompt at a length ratio of 1.5 to 8:
        its token part is SHARED_WORD_SCORE, plain ratio is at most 2/2.5 = 80, so only a
        partial ratio of 95 or more (x 0.9) can raise it."""
        from rapidfuzz import fuzz

        partial = dict(self._extract(processed, positions, fuzz.partial_ratio, 95.0))
        return [(p, max(SHARED_WORD_SCORE, partial.get(p, 0.0) * 0.9)) for p in positions]

    def _within_reach(self, processed: str, positions: list[int]) -> list[int]:
        """The strings at `positions` that can score above FAR_CEILING against the prompt:
        their length is within FAR_RATIO of the prompt's, or the shorter is in the other."""
        size, texts = len(processed), self.choices
        return [
            p
            for p in positions
            if ((length := len(texts[p])) * FAR_RATIO >= size and size * FAR_RATIO >= length)
            or (texts[p] in processed if length < size else processed in texts[p])
        ]


def _prefix_key(word: str) -> str:
    # a space cannot be in a word, so a prefix key never equals a word
    return " " + word[:PREFIX]
