"""The ranking index: per-term postings with field-weighted term frequencies.

Built once per registry content (fitting TF-IDF with scikit-learn), then stored in the cache
as npz arrays plus JSON metadata, so the query path never imports scikit-learn and never
re-parses YAML. Small indexes are scored in pure Python, large ones with numpy.
"""

from __future__ import annotations

import io
import math
from array import array
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from toolsel.ranking.fields import FIELD_NAMES, FIELD_WEIGHTS, embed_text, tool_fields
from toolsel.registry.model import Registry, Tool

INDEX_FORMAT = "toolsel-rank-index/3"
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


#: Indexes with at least this many postings are cached as npz and scored with numpy; smaller
#: ones are cached as JSON and scored in pure Python, so a small registry never imports numpy.
LARGE_INDEX_POSTINGS = 50_000


@dataclass(frozen=True, slots=True, eq=False)
class RankIndex:
    """Postings by term, as plain data. For term t, entries term_ptr[t]..term_ptr[t+1] of
    the flat arrays give the documents containing t, their per-field counts, and weights.
    Everything derived from it (lookups, numpy views, vectors) lives in `PreparedIndex`."""

    tools: tuple[ToolMeta, ...]
    vocabulary: dict[str, int]
    term_ptr: array[int]
    doc_ids: array[int]
    field_tf: tuple[array[int], ...]  # one array per field in FIELD_NAMES, aligned with doc_ids
    bm25: array[float]  # BM25F weight of each posting (idf included)
    tfidf: array[float]  # l2-normalised sublinear TF-IDF weight of each posting
    idf: array[float]  # TF-IDF idf per term (sklearn's smoothed idf), for query vectors
    bm25_idf: array[float]
    texts: tuple[str, ...] = ()  # each tool's text for embedding (`toolsel[embed]`)

    def __len__(self) -> int:
        return len(self.tools)

    @property
    def is_large(self) -> bool:
        return len(self.doc_ids) >= LARGE_INDEX_POSTINGS

    def postings(self, term: str) -> range:
        position = self.vocabulary.get(term)
        if position is None:
            return range(0)
        return range(self.term_ptr[position], self.term_ptr[position + 1])

    # -- persistence: JSON for small indexes (no numpy import), npz for large ones --------
    def to_json(self) -> dict[str, Any]:
        return {
            "format": INDEX_FORMAT,
            "tools": [t.to_json() for t in self.tools],
            "vocabulary": list(self.vocabulary),
            "term_ptr": self.term_ptr.tolist(),
            "doc_ids": self.doc_ids.tolist(),
            "field_tf": [column.tolist() for column in self.field_tf],
            "bm25": self.bm25.tolist(),
            "tfidf": self.tfidf.tolist(),
            "idf": self.idf.tolist(),
            "bm25_idf": self.bm25_idf.tolist(),
            "texts": list(self.texts),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RankIndex:
        if data.get("format") != INDEX_FORMAT:
            raise ValueError("stale index format")
        return cls(
            tools=tuple(ToolMeta.from_json(row) for row in data["tools"]),
            vocabulary={term: i for i, term in enumerate(data["vocabulary"])},
            term_ptr=array("q", data["term_ptr"]),
            doc_ids=array("q", data["doc_ids"]),
            field_tf=tuple(array("q", column) for column in data["field_tf"]),
            bm25=array("d", data["bm25"]),
            tfidf=array("d", data["tfidf"]),
            idf=array("d", data["idf"]),
            bm25_idf=array("d", data["bm25_idf"]),
            texts=tuple(data["texts"]),
        ).checked()

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
            term_ptr=np.frombuffer(self.term_ptr, dtype=np.int64),
            doc_ids=np.frombuffer(self.doc_ids, dtype=np.int64),
            field_tf=np.stack([np.frombuffer(c, dtype=np.int64) for c in self.field_tf])
            if self.doc_ids
            else np.zeros((len(self.field_tf), 0), dtype=np.int64),
            bm25=np.frombuffer(self.bm25, dtype=np.float64),
            tfidf=np.frombuffer(self.tfidf, dtype=np.float64),
            idf=np.frombuffer(self.idf, dtype=np.float64),
            bm25_idf=np.frombuffer(self.bm25_idf, dtype=np.float64),
        )
        return buffer.getvalue()

    @classmethod
    def from_npz(cls, data: bytes) -> RankIndex:
        """Load an index saved by `to_npz` (no pickled objects allowed)."""
        import numpy as np
        import orjson

        def ints(values: Any) -> array[int]:
            return array("q", np.ascontiguousarray(values, dtype=np.int64).tobytes())

        def floats(values: Any) -> array[float]:
            return array("d", np.ascontiguousarray(values, dtype=np.float64).tobytes())

        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            meta = orjson.loads(arrays["meta"].tobytes())
            if meta.get("format") != INDEX_FORMAT:
                raise ValueError("stale index format")
            return cls(
                tools=tuple(ToolMeta.from_json(row) for row in meta["tools"]),
                vocabulary={term: i for i, term in enumerate(meta["vocabulary"])},
                term_ptr=ints(arrays["term_ptr"]),
                doc_ids=ints(arrays["doc_ids"]),
                field_tf=tuple(ints(row) for row in arrays["field_tf"]),
                bm25=floats(arrays["bm25"]),
                tfidf=floats(arrays["tfidf"]),
                idf=floats(arrays["idf"]),
                bm25_idf=floats(arrays["bm25_idf"]),
                texts=tuple(meta["texts"]),
            ).checked()

    def checked(self) -> RankIndex:
        """This index, if its arrays agree with each other (a cache entry that does not is
        refused with ValueError, and rebuilt)."""
        postings, terms = len(self.doc_ids), len(self.vocabulary)
        if not (
            len(self.term_ptr) == terms + 1
            and self.term_ptr[0] == 0
            and self.term_ptr[-1] == postings
            and len(self.field_tf) == len(FIELD_NAMES)
            and all(len(column) == postings for column in self.field_tf)
            and len(self.bm25) == len(self.tfidf) == postings
            and len(self.idf) == len(self.bm25_idf) == terms
            and len(self.texts) in (0, len(self.tools))
        ):
            raise ValueError("inconsistent index arrays")
        if self.is_large:
            import numpy as np

            ptr = np.frombuffer(self.term_ptr, dtype=np.int64)
            docs = np.frombuffer(self.doc_ids, dtype=np.int64)
            ordered = bool(np.all(ptr[1:] >= ptr[:-1]))
            in_range = not postings or (int(docs.min()) >= 0 and int(docs.max()) < len(self.tools))
        else:
            ordered = all(a <= b for a, b in zip(self.term_ptr, self.term_ptr[1:], strict=False))
            in_range = all(0 <= doc < len(self.tools) for doc in self.doc_ids)
        if not (ordered and in_range):
            raise ValueError("index postings out of range")
        return self


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
    term_ptr = array("q", [0])
    doc_ids = array("q")
    field_tf = tuple(array("q") for _ in FIELD_NAMES)
    weighted = array("d")
    bm25 = array("d")
    bm25_idf = array("d")
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
    n_docs: int, n_terms: int, term_ptr: array[int], doc_ids: array[int], weighted_tf: array[float]
) -> tuple[array[float], array[float]]:
    """scikit-learn's TfidfTransformer (sublinear tf, smoothed idf, l2 rows) on the
    field-weighted counts; returns each posting's weight and the idf per term."""
    if n_docs == 0 or n_terms == 0:
        return array("d"), array("d")
    import numpy as np
    from scipy.sparse import csc_matrix
    from sklearn.feature_extraction.text import TfidfTransformer

    counts = csc_matrix(
        (
            np.frombuffer(weighted_tf, dtype=np.float64),
            np.frombuffer(doc_ids, dtype=np.int64),
            np.frombuffer(term_ptr, dtype=np.int64),
        ),
        shape=(n_docs, n_terms),
    )
    transformer = TfidfTransformer(sublinear_tf=True, smooth_idf=True, norm="l2")
    weights = transformer.fit_transform(counts.tocsr()).tocsc()
    weights.sort_indices()
    # the transform keeps the sparsity pattern, so postings stay aligned with doc_ids
    return (
        array("d", np.ascontiguousarray(weights.data, dtype=np.float64).tobytes()),
        array("d", np.ascontiguousarray(transformer.idf_, dtype=np.float64).tobytes()),
    )
