"""Learned term weights: a linear classifier from words to tools, fitted on example prompts.

Each distinct example prompt is a training document labelled with its tools, and so is
each tool's own name and description. The documents are sublinear TF-IDF vectors of words
and word pairs (`features`), and one linear SVM per tool that has examples (scikit-learn's
`LinearSVC`, one-vs-rest, fixed seed; a prompt given for several tools is a positive for
each, never a negative) learns which words speak for it and which against; the other
tools get UNFITTED_BIAS, never have a learned score, and rank on their own text. This is
what lets `rank` learn that "is prod up" is asked of a health check whose description
never says "prod".

Each tool's weights below PRUNE of its largest are dropped (on the benchmarks' dev splits
this keeps about 2 % of them at a cost of under 0.1 NDCG@10), and the rest are stored by
term, like postings, so a query touches only the weights of its own words and never
imports scikit-learn. Built once per registry content, at index build time, and cached.
"""

from __future__ import annotations

import math
import warnings
from array import array
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from toolsel.ranking.fields import tokens

#: A tool's weights smaller than this share of its largest are dropped.
PRUNE = 0.02
#: Nothing is learned above this many (distinct documents x tools fitted):
#: one-vs-rest costs about 0.8 s per million on one core (ToolLens's dev split, 10.6k
#: distinct prompts for 30k examples over 464 tools, is 5.1M).
BUDGET = 10_000_000
#: The decision value of a tool without examples: far below any fitted tool's, so it
#: never has a positive decision (`taught.learned`).
UNFITTED_BIAS = -1e9
#: The SVM's stopping tolerance: 1e-4 (scikit-learn's default) gained nothing here and
#: took 10 % longer.
TOLERANCE = 1e-2
#: Features in fewer training documents than this are left out (a feature seen once says
#: little, and bigrams would otherwise triple the vocabulary).
MIN_DF = 2
#: The SVM's regularisation (C): 0.3 and 3 were 0.2-0.4 NDCG@10 lower on the dev splits.
C = 1.0


def features(text: str) -> list[str]:
    """The classifier's features of a text: its words (`fields.tokens`) and each pair of
    neighbouring words ("deploy prod"), which on the dev splits were worth +0.6 NDCG@10 on
    MetaTool and +0.8 on ToolLens over words alone."""
    return with_pairs(tokens(text))


def with_pairs(words: Sequence[str]) -> list[str]:
    return [*words, *(f"{a} {b}" for a, b in pairwise(words))]


def fit(tool_texts: Sequence[str], examples: Sequence[tuple[int, str]]) -> dict[str, Any] | None:
    """Learned weights as index fields (`lw_*`), or None when there is nothing to learn
    (fewer than two tools, no examples) or too much (over BUDGET)."""
    n_tools = len(tool_texts)
    texts: dict[str, set[int]] = {}  # a prompt given for several tools is one document
    for tool, text in [*enumerate(tool_texts), *examples]:
        texts.setdefault(text, set()).add(tool)
    fitted_tools = fitted(n_tools, len(texts), {tool for tool, _ in examples})
    if n_tools < 2 or not examples or len(texts) * len(fitted_tools) > BUDGET:
        return None
    documents = [Counter(features(text)) for text in texts]
    df = Counter(term for document in documents for term in document)
    vocabulary: dict[str, int] = {}
    for term, count in sorted(df.items()):
        if count >= MIN_DF:
            vocabulary[term] = len(vocabulary)
    if not vocabulary:  # no word is in two texts: nothing generalises
        return None
    matrix, idf = _tfidf_matrix(documents, vocabulary)
    biases, weights = _one_vs_rest(matrix, list(texts.values()), fitted_tools, n_tools)
    return {
        "lw_terms": tuple(vocabulary),
        **_by_term(weights, len(vocabulary)),
        "lw_idf": idf,
        "lw_bias": array("d", biases.tobytes()),
    }


def _tfidf_matrix(
    documents: list[Counter[str]], vocabulary: dict[str, int]
) -> tuple[Any, array[float]]:
    """(the documents' sublinear, l2-normalised TF-IDF rows over `vocabulary`, its idf)."""
    import numpy as np
    from scipy.sparse import csr_matrix
    from sklearn.feature_extraction.text import TfidfTransformer

    rows: list[int] = []
    columns: list[int] = []
    counts: list[int] = []
    for row, document in enumerate(documents):
        for term, count in document.items():
            column = vocabulary.get(term)
            if column is not None:
                rows.append(row)
                columns.append(column)
                counts.append(count)
    matrix = csr_matrix(
        (np.asarray(counts, dtype=np.float64), (rows, columns)),
        shape=(len(documents), len(vocabulary)),
    )
    transformer = TfidfTransformer(sublinear_tf=True, smooth_idf=True, norm="l2")
    matrix = transformer.fit_transform(matrix)
    return matrix, array("d", np.asarray(transformer.idf_, dtype=np.float64).tobytes())


def _one_vs_rest(
    matrix: Any, labels: list[set[int]], fitted_tools: list[int], n_tools: int
) -> tuple[Any, list[tuple[Any, int, Any]]]:
    """(every tool's bias, and per fitted tool its kept feature positions, the tool and their
    weights): one linear SVM per tool in `fitted_tools`, against the documents' `labels`."""
    import numpy as np
    from sklearn.svm import LinearSVC

    members = {tool: np.zeros(len(labels), dtype=bool) for tool in fitted_tools}
    for row, tools in enumerate(labels):
        for tool in tools:
            if tool in members:
                members[tool][row] = True
    biases = np.full(n_tools, UNFITTED_BIAS)
    biases[fitted_tools] = 0.0
    kept = []
    with warnings.catch_warnings():  # a model that stops at its iteration limit is kept
        warnings.simplefilter("ignore")
        for tool, positive in members.items():  # one-vs-rest, each prompt once
            if positive.all():
                continue  # every document names this tool: nothing tells it apart
            model = LinearSVC(C=C, tol=TOLERANCE, random_state=0)
            model.fit(matrix, positive)
            coef = model.coef_[0]
            (terms,) = np.nonzero(np.abs(coef) > PRUNE * np.abs(coef).max(initial=0.0))
            kept.append((terms, tool, coef[terms]))
            biases[tool] = model.intercept_[0]
    return biases, kept


def _by_term(kept: list[tuple[Any, int, Any]], n_terms: int) -> dict[str, array[Any]]:
    """The kept weights stored term-major, like postings (`lw_ptr`, `lw_tools`,
    `lw_weights`): a query walks only its own terms."""
    import numpy as np

    terms = np.concatenate([t for t, _, _ in kept]) if kept else np.zeros(0, dtype=np.int64)
    order = np.argsort(terms, kind="stable")
    if kept:
        tool_ids = np.concatenate([np.full(len(t), tool) for t, tool, _ in kept])[order]
        values = np.concatenate([w for _, _, w in kept])[order]
    else:
        tool_ids, values = terms, np.zeros(0)
    ptr = np.searchsorted(terms[order], np.arange(n_terms + 1))
    return {
        "lw_ptr": array("q", ptr.astype(np.int64).tobytes()),
        "lw_tools": array("I", tool_ids.astype(np.uint32).tobytes()),
        "lw_weights": array("d", values.astype(np.float64).tobytes()),
    }


def fitted(n_tools: int, n_documents: int, with_examples: set[int]) -> list[int]:
    """The tools that get a model: those with examples, at every registry size. A tool's
    learned score is evidence from its examples; a tool without any has none to give (its
    own text is weighed by the lexical methods, and is a negative for the others' models)."""
    return sorted(with_examples)


def query_weights(idf: Sequence[float], positions: Sequence[int]) -> dict[int, float]:
    """Feature position -> the query's TF-IDF weight, as the training documents had them
    (sublinear tf, l2-normalised), for positions given once per occurrence."""
    raw = {p: (1.0 + math.log(n)) * idf[p] for p, n in Counter(positions).items()}
    norm = math.sqrt(sum(v * v for v in raw.values())) or 1.0
    return {p: v / norm for p, v in raw.items()}
