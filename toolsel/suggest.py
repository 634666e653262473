"""'Did you mean' suggestions, shared by every message that names something unknown."""

from __future__ import annotations

from collections.abc import Iterable


def closest(word: str, choices: Iterable[str], *, cutoff: float = 70.0) -> str | None:
    """The most similar choice, or None when nothing is close enough."""
    from rapidfuzz import fuzz, process, utils

    options = [c for c in choices if c != word]
    if not options:
        return None
    match = process.extractOne(
        str(word), options, scorer=fuzz.WRatio, processor=utils.default_process, score_cutoff=cutoff
    )
    return match[0] if match else None


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """` (did you mean 'x'?)` or the empty string."""
    match = closest(word, choices)
    return f" (did you mean {match!r}?)" if match else ""
