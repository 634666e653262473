"""Ranking choices, kept import-light because the CLI builds its options from them."""

from __future__ import annotations

from enum import StrEnum


class Method(StrEnum):
    HYBRID = "hybrid"
    TFIDF = "tfidf"
    BM25 = "bm25"
    FUZZY = "fuzzy"
    CC = "cc"
    SEMANTIC = "semantic"  # needs `toolsel[embed]`
    FUSION = "fusion"  # needs `toolsel[embed]`


#: Methods that need the optional embedding extra.
EMBEDDING_METHODS = frozenset({Method.SEMANTIC, Method.FUSION})
