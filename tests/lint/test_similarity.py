"""TS209's similar descriptions: TF-IDF cosine pairs, computed without scikit-learn, as
scikit-learn's TfidfVectorizer computed them."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsel.lint.similarity import similar_pairs, without_shared_sentences
from toolsel.lint.stop_words import ENGLISH_STOP_WORDS


def test_the_stop_words_are_scikit_learns() -> None:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as THEIRS

    assert ENGLISH_STOP_WORDS == THEIRS


def pairs_by_scikit_learn(texts: list[str], threshold: float) -> list[tuple[int, int, float]]:
    """`similar_pairs` as it was written with scikit-learn's TfidfVectorizer: the reference."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = without_shared_sentences(texts)
    vectorizer = TfidfVectorizer(
        stop_words="english",
        sublinear_tf=True,
        max_df=0.5 if len(texts) >= 20 else 1.0,
        token_pattern=r"(?u)\b[a-zA-Z][a-zA-Z0-9]+\b",
    )
    try:
        matrix = vectorizer.fit_transform(texts)
    except ValueError:
        return []
    cosines = (matrix @ matrix.T).toarray()
    return [
        (i, j, float(cosines[i, j]))
        for i in range(len(texts))
        for j in range(i + 1, len(texts))
        if cosines[i, j] >= threshold
    ]


WORDS = st.sampled_from(
    "Deploy the API to prod staging. Check logs; restart service! read WRITE x9 9x "
    "a an of which files File_name".split()
)  # ASCII: the reference's token pattern is; words in other scripts are tested below


@settings(max_examples=150, deadline=None)
@given(
    texts=st.lists(st.lists(WORDS, max_size=12).map(" ".join), min_size=2, max_size=28),
    threshold=st.sampled_from([0.2, 0.5, 0.8]),
)
def test_the_pairs_are_scikit_learns(texts: list[str], threshold: float) -> None:
    expected = pairs_by_scikit_learn(texts, threshold)
    got = similar_pairs(texts, threshold)
    near = {(i, j) for i, j, v in pairs_by_scikit_learn(texts, 0.0) if abs(v - threshold) < 1e-9}
    got_far = [(i, j, v) for i, j, v in got if (i, j) not in near]
    expected_far = [(i, j, v) for i, j, v in expected if (i, j) not in near]
    assert [(i, j) for i, j, _ in got_far] == [(i, j) for i, j, _ in expected_far]
    assert np.allclose([v for *_, v in got_far], [v for *_, v in expected_far], rtol=0, atol=1e-12)


def test_identical_descriptions_are_a_pair_and_stop_words_alone_are_none() -> None:
    texts = ["Deploy the service to production.", "Deploy the service to production.", "a"]
    assert [(i, j) for i, j, _ in similar_pairs(texts, 0.9)] == [(0, 1)]
    assert similar_pairs(["the a an", "of which"], 0.1) == []


def test_descriptions_in_other_languages_are_compared_too() -> None:
    texts = [
        "Читает файл с диска и возвращает содержимое.",
        "Читает файл с диска и возвращает его содержимое.",
        "Отправляет письмо по электронной почте.",
        "指定したパスのファイルを読み込みます。",
        "指定したパスのファイルを読み込みます。内容を返します。",
    ]
    assert [(i, j) for i, j, _ in similar_pairs(texts, 0.8)] == [(0, 1), (3, 4)]
    # before words in every script counted, every one of these had no words at all
    assert similar_pairs(["Отправляет письмо.", "Читает файл."], 0.1) == []
