"""Which prompts are written: cleaned (secrets replaced by placeholders, too long or
`--redact`ed left out) and, with `--max-per-tool`, the representative and diverse ones."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from toolsel.learn.model import Example, normalise
from toolsel.secrets import PLACEHOLDERS
from toolsel.secrets import redact as with_placeholders


@dataclass(frozen=True, slots=True)
class Cleaned:
    """One prompt as it would be written, or why it is not."""

    text: str | None  # normalised, secrets replaced; None: nothing that can be written
    key: str  # what tells duplicates apart
    placeholders: tuple[str, ...]  # the placeholders put in
    left_out: str | None  # why a new example with it is left out: a `learn` counter


def prepare(raw: str, patterns: Sequence[re.Pattern[str]], max_chars: int) -> Cleaned:
    text = normalise(raw)
    if not text:
        return Cleaned(None, "", (), None)
    redacted = with_placeholders(text)
    if redacted is None or (redacted.placeholders and only_placeholders(redacted.text)):
        return Cleaned(None, "", (), "only_secret")
    key = redacted.text.casefold()
    left_out = None
    if any(p.search(text) for p in patterns):
        left_out = "dropped"
    elif max_chars and len(text) > max_chars:
        left_out = "too_long"
    return Cleaned(redacted.text, key, redacted.placeholders, left_out)


def only_placeholders(text: str) -> bool:
    """Nothing but placeholders and punctuation: a pasted key, a bare e-mail address."""
    for placeholder in PLACEHOLDERS:
        text = text.replace(placeholder, " ")
    return not any(ch.isalnum() for ch in text)


#: Maximal marginal relevance weight: how much a chosen example must represent the others
#: (mean similarity) against how much it must differ from those already chosen.
RELEVANCE = 0.7
#: Values of the choice closer than this are a tie (cosines of unit vectors, and sums
#: that are equal but for the order they were added in).
TIE = 1e-9


def diverse(examples: Sequence[Example], n: int, relevance: float = RELEVANCE) -> list[Example]:
    """`n` examples that represent the rest and differ from one another, by maximal
    marginal relevance over TF-IDF cosine: each pick maximises 0.7 x its mean similarity
    to all the tool's examples (how typical a request it is) minus 0.3 x its similarity to
    the closest example already picked (how much it repeats one); ties (within `TIE`) go to
    the text that sorts first. So the N kept cover the common ways people asked."""
    import numpy as np

    from toolsel.ranking.fields import tokens
    from toolsel.tfidf import tfidf

    texts = [e.text for e in examples]
    # scikit-learn's TfidfVectorizer(sublinear_tf=True) vectors, in numpy (its import: 1.5 s)
    vectors = tfidf([tokens(text) for text in texts])
    if vectors is None:  # no words at all: keep the first n in text order
        return sorted(examples, key=lambda e: e.text)[:n]
    rows, columns, weights, starts = vectors.rows, vectors.columns, vectors.weights, vectors.starts
    size = len(texts)
    # mean similarity to every example, from the centroid: no n x n matrix, so a tool with
    # 100k mined prompts costs linear memory
    centroid = np.bincount(columns, weights) / size
    typical = np.bincount(rows, weights * centroid[columns], minlength=size)
    rank = {i: r for r, i in enumerate(sorted(range(size), key=lambda i: texts[i]))}
    chosen: list[int] = []
    closest = np.zeros(size)
    available = np.ones(size, dtype=bool)
    picked = np.zeros(len(centroid))
    for _ in range(n):
        value = relevance * typical - (1 - relevance) * closest
        value[~available] = -np.inf
        # ties (to rounding: the order of a sum can move its last bit) go to the first text
        best = value.max() - TIE
        pick = min((int(i) for i in np.flatnonzero(value >= best)), key=rank.__getitem__)
        chosen.append(pick)
        available[pick] = False
        own = slice(starts[pick], starts[pick + 1])
        picked[:] = 0.0
        picked[columns[own]] = weights[own]
        closest = np.maximum(closest, np.bincount(rows, weights * picked[columns], minlength=size))
    return [examples[i] for i in chosen]
