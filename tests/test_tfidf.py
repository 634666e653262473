"""`toolsel.tfidf` makes the vectors scikit-learn's TfidfVectorizer makes, without importing it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import TfidfVectorizer

from toolsel.tfidf import tfidf

TERMS = st.sampled_from("deploy api prod staging logs restart service read write a".split())


def by_scikit_learn(documents: list[list[str]], max_df: float) -> np.ndarray | None:
    vectorizer = TfidfVectorizer(
        analyzer=lambda terms: terms,
        sublinear_tf=True,
        max_df=max_df,  # type: ignore[arg-type]
    )
    try:
        matrix = vectorizer.fit_transform(documents)
    except ValueError:  # no term at all, or none left after max_df
        return None
    assert list(vectorizer.vocabulary_) and sorted(vectorizer.vocabulary_) == [
        t for t, _ in sorted(vectorizer.vocabulary_.items(), key=lambda item: item[1])
    ]
    return matrix.toarray()  # type: ignore[no-any-return]


@settings(max_examples=200, deadline=None)
@given(
    documents=st.lists(st.lists(TERMS, max_size=9), min_size=1, max_size=30),
    max_df=st.sampled_from([1.0, 0.5, 0.3]),
)
def test_the_vectors_are_scikit_learns(documents: list[list[str]], max_df: float) -> None:
    expected = by_scikit_learn(documents, max_df)
    got = tfidf(documents, max_df)
    if expected is None:
        assert got is None
        return
    assert got is not None
    dense = got.matrix().toarray()
    assert dense.shape == expected.shape
    assert np.allclose(dense, expected, rtol=0, atol=1e-12)
    # the non-zeros come row by row, each row's columns sorted
    assert list(got.rows) == sorted(got.rows)
    for row in range(len(documents)):
        columns = list(got.columns[got.starts[row] : got.starts[row + 1]])
        assert columns == sorted(columns) and all(
            got.rows[got.starts[row] : got.starts[row + 1]] == row
        )


def test_no_term_is_none_and_an_empty_row_stays_empty() -> None:
    assert tfidf([[], []]) is None
    assert tfidf([["a"], ["a"], ["a"]], max_df=0.5) is None  # in every document: dropped
    vectors = tfidf([["deploy"], [], ["deploy", "api"]])
    assert vectors is not None
    dense = vectors.matrix().toarray()
    assert dense.shape == (3, 2) and not dense[1].any()
    assert np.allclose(np.linalg.norm(dense[[0, 2]], axis=1), 1.0)


@pytest.mark.parametrize("max_df", [1.0, 0.5])
def test_a_term_in_more_than_max_df_of_the_documents_is_dropped(max_df: float) -> None:
    documents = [["api", "deploy"], ["api", "logs"], ["api", "read"], ["write"]]
    vectors = tfidf(documents, max_df)
    assert vectors is not None
    assert vectors.terms == (5 if max_df == 1.0 else 4)  # "api" is in 3 of 4
