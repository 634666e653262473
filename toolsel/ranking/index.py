"""The ranking index: per-term postings with field-weighted term frequencies.

Built once per registry content (fitting TF-IDF with scikit-learn), then stored in the cache
as npz arrays plus JSON metadata, so the query path never imports scikit-learn and never
re-parses YAML. Small indexes are scored in pure Python, large ones with numpy.
"""

from __future__ import annotations

import io
import math
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from toolsel.ranking.fields import FIELD_NAMES, FIELD_WEIGHTS, embed_text, tool_fields
from toolsel.registry.model import Registry, Tool

INDEX_FORMAT = "toolsel-rank-index/2"
BM25_K1 = 1.2
BM25_B = 0.75


@dataclass(frozen=True, slots=True)
class ToolMeta:
    """What ranking and its output need of a tool, without the registry document."""

    name: str
    category: str | None
    permission: str
    deprecated: bool
    deprecated_by: str | None
    always_include: bool
    defer_loading: bool
    aliases: tuple[str, ...]
    tags: tuple[str, ...]
    requires: tuple[str, ...]
    conflicts: tuple[str, ...]
    display_name: str | None
    search_hint: str | None
    description: str

    @classmethod
    def of(cls, tool: Tool) -> ToolMeta:
        return cls(
            tool.name,
            tool.category,
            tool.permission.value,
            tool.deprecated,
            tool.deprecated_by,
            tool.always_include,
            tool.defer_loading,
            tool.aliases,
            tool.tags,
            tool.requires,
            tool.conflicts,
            tool.display_name,
            tool.search_hint,
            tool.description,
        )

    def to_json(self) -> list[Any]:
        return [
            self.name, self.category, self.permission, self.deprecated, self.deprecated_by,
            self.always_include, self.defer_loading, list(self.aliases), list(self.tags),
            list(self.requires), list(self.conflicts), self.display_name, self.search_hint,
            self.description,
        ]  # fmt: skip

    @classmethod
    def from_json(cls, row: list[Any]) -> ToolMeta:
        (name, category, permission, deprecated, deprecated_by, always, deferred, aliases, tags,
         requires, conflicts, display, hint, description) = row  # fmt: skip
        return cls(
            name, category, permission, deprecated, deprecated_by, always, deferred,
            tuple(aliases), tuple(tags), tuple(requires), tuple(conflicts), display, hint,
            description,
        )  # fmt: skip


@dataclass(frozen=True)
class RankIndex:
    """Postings by term. For term t, entries term_ptr[t]..term_ptr[t+1] of the flat arrays
    give the documents containing t, their per-field counts, and precomputed weights."""

    tools: tuple[ToolMeta, ...]
    vocabulary: dict[str, int]
    term_ptr: list[int]
    doc_ids: list[int]
    field_tf: list[list[int]]  # one list per field in FIELD_NAMES, aligned with doc_ids
    bm25: list[float]  # BM25F weight of each posting (idf included)
    tfidf: list[float]  # l2-normalised sublinear TF-IDF weight of each posting
    idf: list[float]  # TF-IDF idf per term (sklearn's smoothed idf), for query vectors
    bm25_idf: list[float]
    texts: tuple[str, ...] = ()  # each tool's text for embedding (`toolsel[embed]`)

    def __len__(self) -> int:
        return len(self.tools)

    def postings(self, term: str) -> range:
        position = self.vocabulary.get(term)
        if position is None:
            return range(0)
        return range(self.term_ptr[position], self.term_ptr[position + 1])

    def position(self, name: str) -> int | None:
        return self._positions.get(name)

    @property
    def _positions(self) -> dict[str, int]:
        cached = self.__dict__.get("_positions_cache")
        if cached is None:
            cached = {meta.name: i for i, meta in enumerate(self.tools)}
            self.__dict__["_positions_cache"] = cached
        return cached

    def numpy(self) -> dict[str, Any]:
        """The posting arrays as numpy arrays (converted once), for large-index scoring."""
        cached = self.__dict__.get("_numpy")
        if cached is None:
            import numpy as np

            cached = {
                "doc_ids": np.asarray(self.doc_ids, dtype=np.int64),
                "bm25": np.asarray(self.bm25, dtype=np.float64),
                "tfidf": np.asarray(self.tfidf, dtype=np.float64),
            }
            self.__dict__["_numpy"] = cached
        return cached

    # -- persistence: JSON for small indexes (no numpy import), npz for large ones --------
    def to_json(self) -> dict[str, Any]:
        return {
            "format": INDEX_FORMAT,
            "tools": [t.to_json() for t in self.tools],
            "vocabulary": list(self.vocabulary),
            "term_ptr": list(self.term_ptr),
            "doc_ids": list(self.doc_ids),
            "field_tf": [list(column) for column in self.field_tf],
            "bm25": list(self.bm25),
            "tfidf": list(self.tfidf),
            "idf": list(self.idf),
            "bm25_idf": list(self.bm25_idf),
            "texts": list(self.texts),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RankIndex:
        if data.get("format") != INDEX_FORMAT:
            raise ValueError("stale index format")
        return cls(
            tools=tuple(ToolMeta.from_json(row) for row in data["tools"]),
            vocabulary={term: i for i, term in enumerate(data["vocabulary"])},
            term_ptr=data["term_ptr"],
            doc_ids=data["doc_ids"],
            field_tf=data["field_tf"],
            bm25=data["bm25"],
            tfidf=data["tfidf"],
            idf=data["idf"],
            bm25_idf=data["bm25_idf"],
            texts=tuple(data["texts"]),
        )

    def to_npz(self) -> bytes:
        import numpy as np
        import orjson

        meta = orjson.dumps(
            {
                "format": INDEX_FORMAT,
                "tools": [t.to_json() for t in self.tools],
                "vocabulary": list(self.vocabulary),
                "texts": list(self.texts),
            }
        )
        buffer = io.BytesIO()
        np.savez(
            buffer,
            meta=np.frombuffer(meta, dtype=np.uint8),
            term_ptr=np.asarray(self.term_ptr, dtype=np.int64),
            doc_ids=np.asarray(self.doc_ids, dtype=np.int64),
            field_tf=np.asarray(self.field_tf, dtype=np.float32),
            bm25=np.asarray(self.bm25, dtype=np.float64),
            tfidf=np.asarray(self.tfidf, dtype=np.float64),
            idf=np.asarray(self.idf, dtype=np.float64),
            bm25_idf=np.asarray(self.bm25_idf, dtype=np.float64),
        )
        return buffer.getvalue()

    @classmethod
    def from_npz(cls, data: bytes) -> RankIndex:
        """Load an index saved by `to_npz`; arrays stay numpy (no pickled objects allowed)."""
        import numpy as np
        import orjson

        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            meta = orjson.loads(arrays["meta"].tobytes())
            if meta.get("format") != INDEX_FORMAT:
                raise ValueError("stale index format")
            index = cls(
                tools=tuple(ToolMeta.from_json(row) for row in meta["tools"]),
                vocabulary={term: i for i, term in enumerate(meta["vocabulary"])},
                term_ptr=arrays["term_ptr"].tolist(),
                doc_ids=arrays["doc_ids"],
                field_tf=arrays["field_tf"],
                bm25=arrays["bm25"],
                tfidf=arrays["tfidf"],
                idf=arrays["idf"].tolist(),
                bm25_idf=arrays["bm25_idf"].tolist(),
                texts=tuple(meta["texts"]),
            )
        index.__dict__["_numpy"] = {
            "doc_ids": index.doc_ids,
            "bm25": index.bm25,
            "tfidf": index.tfidf,
        }
        return index


def build_index(registry: Registry) -> RankIndex:
    """Tokenise every tool by field and fit the weights (TF-IDF with scikit-learn)."""
    tools = list(registry.tools)
    per_doc: list[dict[str, list[int]]] = []
    vocabulary: dict[str, int] = {}
    lengths: list[float] = []
    for tool in tools:
        counts: dict[str, list[int]] = {}
        length = 0.0
        for field_index, (field, words) in enumerate(tool_fields(tool, registry).items()):
            weight = FIELD_WEIGHTS[field]
            for word, n in Counter(words).items():
                counts.setdefault(word, [0] * len(FIELD_NAMES))[field_index] += n
                length += weight * n
            for word in words:
                vocabulary.setdefault(word, len(vocabulary))
        per_doc.append(counts)
        lengths.append(length)
    index = _assemble(tools, per_doc, vocabulary, lengths)
    return replace(index, texts=tuple(embed_text(tool) for tool in tools))


def _assemble(
    tools: list[Tool],
    per_doc: list[dict[str, list[int]]],
    vocabulary: dict[str, int],
    lengths: list[float],
) -> RankIndex:
    postings: list[list[tuple[int, list[int]]]] = [[] for _ in vocabulary]
    for doc, counts in enumerate(per_doc):
        for word, field_counts in counts.items():
            postings[vocabulary[word]].append((doc, field_counts))
    n = len(tools)
    average = (sum(lengths) / n) if n else 1.0
    weights = [FIELD_WEIGHTS[f] for f in FIELD_NAMES]
    term_ptr = [0]
    doc_ids: list[int] = []
    field_tf: list[list[int]] = [[] for _ in FIELD_NAMES]
    weighted: list[float] = []
    bm25: list[float] = []
    bm25_idf: list[float] = []
    for entries in postings:
        df = len(entries)
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        bm25_idf.append(idf)
        for doc, field_counts in entries:
            wtf = sum(w * c for w, c in zip(weights, field_counts, strict=True))
            norm = BM25_K1 * (1 - BM25_B + BM25_B * lengths[doc] / (average or 1.0))
            doc_ids.append(doc)
            for column, count in zip(field_tf, field_counts, strict=True):
                column.append(count)
            weighted.append(wtf)
            bm25.append(idf * wtf * (BM25_K1 + 1) / (wtf + norm))
        term_ptr.append(len(doc_ids))
    tfidf, idf_values = _fit_tfidf(n, len(vocabulary), term_ptr, doc_ids, weighted)
    return RankIndex(
        tools=tuple(ToolMeta.of(t) for t in tools),
        vocabulary=vocabulary,
        term_ptr=term_ptr,
        doc_ids=doc_ids,
        field_tf=field_tf,
        bm25=bm25,
        tfidf=tfidf,
        idf=idf_values,
        bm25_idf=bm25_idf,
    )


def _fit_tfidf(
    n_docs: int, n_terms: int, term_ptr: list[int], doc_ids: list[int], weighted_tf: list[float]
) -> tuple[list[float], list[float]]:
    """scikit-learn's TfidfTransformer (sublinear tf, smoothed idf, l2 rows) on the
    field-weighted counts; returns each posting's weight and the idf per term."""
    if n_docs == 0 or n_terms == 0:
        return [], []
    import numpy as np
    from scipy.sparse import csc_matrix
    from sklearn.feature_extraction.text import TfidfTransformer

    counts = csc_matrix(
        (np.asarray(weighted_tf, dtype=np.float64), np.asarray(doc_ids), np.asarray(term_ptr)),
        shape=(n_docs, n_terms),
    )
    transformer = TfidfTransformer(sublinear_tf=True, smooth_idf=True, norm="l2")
    weights = transformer.fit_transform(counts.tocsr()).tocsc()
    weights.sort_indices()
    # the transform keeps the sparsity pattern, so postings stay aligned with doc_ids
    return weights.data.tolist(), transformer.idf_.tolist()
