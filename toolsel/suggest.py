"""'Did you mean' suggestions, shared by every message that names something unknown."""

from __future__ import annotations

from collections.abc import Iterable


def closest(word: str, choices: Iterable[str], *, cutoff: float = 70.0) -> str | None:
    """The most similar choice, or None when nothing is close enough. Of equally close
    choices, the first: in their order, or by name where they have none (a set's order
    changes from run to run with the hash seed)."""
    from rapidfuzz import fuzz, process, utils

    options = [c for c in choices if c != word]
    if isinstance(choices, set | frozenset):
        options.sort()
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


def _folded(word: str) -> str:
    return word.replace("_", "").replace("-", "").casefold()


def typo_of(word: str, choices: Iterable[str]) -> str | None:
    """The choice `word` is most likely a misspelling of, or None: the same letters but for
    case and `_`/`-` (`inputschema`, `display-name`), or one or two edits away (`descripton`,
    `require`, transposed letters count once). Stricter than `closest`: an unknown key that
    is nobody's typo is some file's own metadata, not a mistake."""
    from rapidfuzz.distance import OSA

    folded = _folded(str(word))
    best: tuple[int, str] | None = None
    for choice in choices:
        if choice == word:
            continue
        other = _folded(choice)
        if folded == other:
            return choice
        allowed = 1 if min(len(folded), len(other)) <= 5 else 2
        distance = OSA.distance(folded, other, score_cutoff=allowed)
        if distance <= allowed and (best is None or distance < best[0]):
            best = (distance, choice)
    return best[1] if best else None
