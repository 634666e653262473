"""Sparse TF-IDF nearest neighbours: similar text pairs without an n-by-n dense matrix."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

#: Rows multiplied at once; bounds memory at roughly CHUNK x (matching documents).
CHUNK_ROWS = 512


#: A sentence found word for word in at least this share of the descriptions (and in at
#: least SHARED_MIN of them) is boilerplate: it says nothing about which tool is meant.
SHARED_SHARE = 0.2
SHARED_MIN = 3
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
#: A word, as TS209 has always read them (scikit-learn's `token_pattern` it was given).
_WORD = re.compile(r"(?u)\b[a-zA-Z][a-zA-Z0-9]+\b")


def _words(text: str) -> list[str]:
    """Words of two characters or more that do not start with a digit, in any script (a
    pair of characters of a script without spaces counts as a word)."""
    if text.isascii():
        return _WORD.findall(text.lower())
    from toolsel.text import unicode_words

    return [w for w in unicode_words(text) if len(w) >= 2 and not w[0].isdigit()]


def without_shared_sentences(texts: Sequence[str]) -> list[str]:
    """Each text without the sentences many texts share (a preamble every tool of a
    registry repeats), so that only what sets a tool apart is compared."""
    if len(texts) < SHARED_MIN:
        return list(texts)
    split = [[" ".join(part.lower().split()) for part in _SENTENCE.split(t)] for t in texts]
    counts = Counter(sentence for sentences in split for sentence in set(sentences) if sentence)
    floor = max(SHARED_MIN, math.ceil(SHARED_SHARE * len(texts)))
    shared = {s for s, n in counts.items() if n >= floor and len(s.split()) >= 3}
    if not shared:
        return list(texts)
    return [" ".join(s for s in sentences if s not in shared) for sentences in split]


def similar_pairs(texts: Sequence[str], threshold: float) -> list[tuple[int, int, float]]:
    """Pairs (i, j, cosine) with i < j and cosine >= threshold, sorted by i then j; text
    most descriptions share (`without_shared_sentences`) is left out of the comparison."""
    if len(texts) < 2:
        return []
    texts = without_shared_sentences(texts)
    from toolsel.lint.stop_words import ENGLISH_STOP_WORDS
    from toolsel.tfidf import tfidf

    # as scikit-learn's TfidfVectorizer(stop_words="english", sublinear_tf=True) did
    vectors = tfidf(
        [[w for w in _words(t) if w not in ENGLISH_STOP_WORDS] for t in texts],
        # words in more than half the documents say nothing about which tool is meant
        max_df=0.5 if len(texts) >= 20 else 1.0,
    )
    if vectors is None:  # every text was stop words only
        return []
    import numpy as np

    matrix = vectors.matrix()
    transposed = matrix.T.tocsr()
    found_i: list[np.ndarray] = []
    found_j: list[np.ndarray] = []
    found_v: list[np.ndarray] = []
    for start in range(0, matrix.shape[0], CHUNK_ROWS):
        # only columns from `start` on: the lower triangle would repeat every pair
        block = (matrix[start : start + CHUNK_ROWS] @ transposed[:, start:]).tocoo()
        rows = block.row.astype(np.int64) + start
        cols = block.col.astype(np.int64) + start
        keep = (block.data >= threshold) & (cols > rows)
        found_i.append(rows[keep])
        found_j.append(cols[keep])
        found_v.append(block.data[keep])
    if not found_i:
        return []
    i_all, j_all, v_all = np.concatenate(found_i), np.concatenate(found_j), np.concatenate(found_v)
    order = np.lexsort((j_all, i_all))
    return [(int(i_all[k]), int(j_all[k]), float(v_all[k])) for k in order]
