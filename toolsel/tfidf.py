"""TF-IDF vectors as scikit-learn's `TfidfVectorizer(sublinear_tf=True)` makes them, in numpy
alone: importing scikit-learn costs 1.5 s, more than the work itself for most registries
and tools. `learn` (choosing diverse examples) and lint's TS209 (similar descriptions) use
it; tests hold it to scikit-learn's vectors. Terms are numbered in sorted order and each
row's terms come in that order, as scikit-learn's sorted indices do, so that sums are taken
in the same order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True, slots=True)
class Vectors:
    """The non-zeros of the TF-IDF matrix, row by row: each one's row, column and weight
    (rows in order, each row's columns sorted), where each row starts in them, and the
    number of columns (terms)."""

    rows: np.ndarray[Any, Any]
    columns: np.ndarray[Any, Any]
    weights: np.ndarray[Any, Any]
    starts: list[int]
    terms: int

    def matrix(self) -> Any:
        """As a scipy CSR matrix (documents x terms)."""
        from scipy.sparse import csr_matrix

        return csr_matrix(
            (self.weights, self.columns, self.starts), shape=(len(self.starts) - 1, self.terms)
        )


def tfidf(documents: Sequence[Iterable[str]], max_df: float = 1.0) -> Vectors | None:
    """The TF-IDF vectors of `documents`, each given as its terms, without the terms in more
    than `max_df` x documents; None when no term is left (where scikit-learn raises)."""
    import numpy as np

    counted = [Counter(terms) for terms in documents]
    found = Counter(term for terms in counted for term in terms)  # documents with each term
    if max_df < 1.0:
        most = max_df * len(documents)
        found = Counter({term: n for term, n in found.items() if n <= most})
    if not found:
        return None
    vocabulary = {term: i for i, term in enumerate(sorted(found))}
    rows: list[int] = []
    columns: list[int] = []
    counts: list[int] = []
    starts = [0]
    for row, terms in enumerate(counted):
        kept = sorted((vocabulary[t], n) for t, n in terms.items() if t in vocabulary)
        for column, count in kept:
            rows.append(row)
            columns.append(column)
            counts.append(count)
        starts.append(len(columns))
    row_of, column_of = np.array(rows, dtype=np.intp), np.array(columns, dtype=np.intp)
    weights, _ = weigh(
        np.array(counts, dtype=np.float64), row_of, column_of, len(documents), len(vocabulary)
    )
    return Vectors(row_of, column_of, weights, starts, len(vocabulary))


def weigh(
    counts: np.ndarray[Any, Any],
    rows: np.ndarray[Any, Any],
    columns: np.ndarray[Any, Any],
    n_rows: int,
    n_columns: int,
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """scikit-learn's `TfidfTransformer(sublinear_tf=True)` on a matrix given by its
    non-zeros (`counts`, at `rows` and `columns`; each row's in column order, so that its
    length is summed in scikit-learn's order): each non-zero's weight, and each column's
    idf. A row whose non-zeros are all dropped, or that has none, stays empty."""
    import numpy as np

    frequency = np.bincount(columns, minlength=n_columns)  # documents with the term
    idf = np.log((1 + n_rows) / (1 + frequency)) + 1
    weights = (np.log(counts) + 1) * idf[columns]
    norms = np.sqrt(np.bincount(rows, weights * weights, minlength=n_rows))
    with np.errstate(divide="ignore", invalid="ignore"):  # a zero row: scikit-learn keeps it
        weights /= np.where(norms == 0, 1.0, norms)[rows]
    return weights, idf
