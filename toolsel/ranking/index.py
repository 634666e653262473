"""The ranking index: per-term postings with field-weighted term frequencies.

Built once per registry content (fitting TF-IDF in numpy, as scikit-learn would; the learned
weights, for a registry with examples, with scikit-learn), then stored in the cache
(`persist`), so the query path never imports scikit-learn and never re-parses YAML.
"""

from __future__ import annotations

import math
import operator
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NamedTuple

from toolsel.ranking.fields import (
    FIELD_CAPS,
    FIELD_NAMES,
    FIELD_WEIGHTS,
    embed_text,
    tokens,
    tool_fields,
)

if TYPE_CHECKING:  # the query path never loads the registry model
    from toolsel.registry.model import Registry, Tool

#: 9: example values are a field of their own (`values`); conversational filler is ignored;
#: 10: over the learning budget, only tools with examples get a learned model
INDEX_FORMAT = "toolsel-rank-index/11"
BM25_K1 = 1.2
BM25_B = 0.75


class ToolMeta(NamedTuple):
    """What ranking and its output need of a tool, without the registry document (a named
    tuple: a cached 10k-tool index builds 10k of these per process)."""

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
        values = [getattr(tool, name) for name in cls._fields]
        values[2] = tool.permission.value
        return cls(*values)


#: Indexes with at least this many postings pass only their best-scoring tools on to the
#: selection pipeline (see `ranking.lexical.LARGE_CANDIDATES`).
LARGE_INDEX_POSTINGS = 50_000


@dataclass(frozen=True, slots=True, eq=False)
class RankIndex:
    """Postings by term, as plain data. For term t, entries term_ptr[t]..term_ptr[t+1] of
    the flat arrays give the documents containing t, their per-field counts, and weights.
    Everything derived from it (lookups, numpy views, vectors) lives in `PreparedIndex`."""

    tools: tuple[ToolMeta, ...]
    vocabulary: dict[str, int]
    term_ptr: array[int]
    doc_ids: array[int]  # unsigned ("I")
    field_tf: tuple[array[int], ...]  # one array per field in FIELD_NAMES, aligned with doc_ids
    bm25: array[float]  # BM25F weight of each posting (idf included)
    tfidf: array[float]  # l2-normalised sublinear TF-IDF weight of each posting
    idf: array[float]  # TF-IDF idf per term (sklearn's smoothed idf), for query vectors
    bm25_idf: array[float]
    texts: Sequence[str] = ()  # each tool's text for embedding (`toolsel[embed]`)
    #: with examples: each posting's BM25 and TF-IDF weight with its tool's examples field
    #: (the same as `bm25`/`tfidf` for a tool without examples); empty without examples.
    #: A tool with examples scores its base weight plus the gain its examples give, gated
    #: by how near the prompt is to one of them (`scorers.scored`)
    bm25_taught: array[float] = field(default_factory=lambda: array("d"))
    tfidf_taught: array[float] = field(default_factory=lambda: array("d"))
    #: example prompts, each its own small document (nearest-example votes): for term t,
    #: entries ex_ptr[t]..ex_ptr[t+1] of ex_ids/ex_bm25 are the examples holding t
    ex_ptr: array[int] = field(default_factory=lambda: array("q"))
    ex_ids: array[int] = field(default_factory=lambda: array("I"))
    ex_bm25: array[float] = field(default_factory=lambda: array("d"))
    ex_owner: array[int] = field(default_factory=lambda: array("I"))  # each example's tool
    example_texts: Sequence[str] = ()
    #: learned weights (`ranking.learned`), by feature (lw_terms: words and word pairs):
    #: for feature f, entries lw_ptr[f]..lw_ptr[f+1] of lw_tools/lw_weights; lw_idf per
    #: feature and lw_bias per tool (all empty if nothing was learned)
    lw_terms: Sequence[str] = ()
    lw_ptr: array[int] = field(default_factory=lambda: array("q"))
    lw_tools: array[int] = field(default_factory=lambda: array("I"))
    lw_weights: array[float] = field(default_factory=lambda: array("d"))
    lw_idf: array[float] = field(default_factory=lambda: array("d"))
    lw_bias: array[float] = field(default_factory=lambda: array("d"))
    #: each field's BM25F weight, in FIELD_NAMES order (`examples` ramps with how many
    #: examples tools have: see `examples_field_weight`)
    field_weights: tuple[float, ...] = tuple(FIELD_WEIGHTS.values())

    @property
    def learned(self) -> bool:
        """Whether term weights were learned from the examples."""
        return bool(self.lw_bias)

    @property
    def example_count(self) -> int:
        return len(self.ex_owner)

    @property
    def taught(self) -> bool:
        """Whether tools' examples add to their lexical weights (`bm25_taught`)."""
        return bool(self.bm25_taught)

    def example_postings(self, term: str) -> range:
        position = self.vocabulary.get(term)
        if position is None or not self.ex_owner:
            return range(0)
        return range(self.ex_ptr[position], self.ex_ptr[position + 1])

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
            and len(self.bm25_taught) == len(self.tfidf_taught)
            and len(self.bm25_taught) in (0, postings)
            and len(self.idf) == len(self.bm25_idf) == terms
            and len(self.texts) in (0, len(self.tools))
            and len(self.example_texts) == len(self.ex_owner)
            and len(self.ex_ids) == len(self.ex_bm25)
            and (not self.ex_owner or len(self.ex_ptr) == terms + 1)
            and all(owner < len(self.tools) for owner in self.ex_owner)
            and self._learned_consistent()
        ):
            raise ValueError("inconsistent index arrays")
        ordered = all(a <= b for a, b in zip(self.term_ptr, self.term_ptr[1:], strict=False))
        # unsigned ids: the largest must name a tool
        in_range = self.doc_ids.typecode == "I" and max(self.doc_ids, default=0) < len(self.tools)
        if not (ordered and in_range):
            raise ValueError("index postings out of range")
        return self

    def _learned_consistent(self) -> bool:
        if not self.lw_bias:
            return not (self.lw_terms or self.lw_ptr or self.lw_tools or self.lw_idf)
        return (
            len(self.lw_bias) == len(self.tools)
            and len(self.lw_ptr) == len(self.lw_idf) + 1 == len(self.lw_terms) + 1
            and self.lw_ptr[0] == 0
            and self.lw_ptr[-1] == len(self.lw_tools) == len(self.lw_weights)
            and all(a <= b for a, b in zip(self.lw_ptr, self.lw_ptr[1:], strict=False))
            and max(self.lw_tools, default=0) < len(self.tools)
        )


#: Tools need this many examples each (on average, over the tools that have any) before
#: the examples field gets its full weight; below, it is scaled down in proportion, since a
#: few examples' words match prompts by chance (two per tool made "read the config file"
#: rank a tool whose example edits config.py above read_file).
EXAMPLES_FULL_WEIGHT_AT = 3.0


def examples_field_weight(registry: Registry) -> float:
    """The share (0..1] of the examples field's weight this registry's examples earn."""
    with_examples = [n for t in registry.tools if (n := len(registry.examples_for(t.name)))]
    if not with_examples:
        return 1.0
    mean = sum(with_examples) / len(with_examples)
    return min(1.0, mean / EXAMPLES_FULL_WEIGHT_AT)


def build_index(registry: Registry, *, examples: bool = True) -> RankIndex:
    """Tokenise every tool by field and fit the weights (TF-IDF, `_fit_tfidf`); with
    `examples`, example prompts are a field of their tool and documents of their own."""
    tools = list(registry.tools)
    per_doc: list[dict[str, list[int]]] = []
    vocabulary: dict[str, int] = {}
    lengths: list[float] = []
    weights = dict(FIELD_WEIGHTS)
    if examples and registry.has_examples:
        weights["examples"] *= examples_field_weight(registry)
    for tool in tools:
        counts: dict[str, list[int]] = {}
        length = 0.0
        fields = tool_fields(tool, registry, examples=examples)
        for field_index, (field_name, words) in enumerate(fields.items()):
            weight = weights[field_name]
            cap = FIELD_CAPS.get(field_name)
            for word, n in Counter(words).items():
                n = min(n, cap) if cap else n
                counts.setdefault(word, [0] * len(FIELD_NAMES))[field_index] += n
                length += weight * n
            for word in words:
                vocabulary.setdefault(word, len(vocabulary))
        per_doc.append(counts)
        lengths.append(length)
    taught = frozenset(i for i, t in enumerate(tools) if examples and registry.examples_for(t.name))
    index = _assemble(
        tools, per_doc, vocabulary, lengths, tuple(weights[f] for f in FIELD_NAMES), taught
    )
    index = replace(index, texts=tuple(embed_text(tool) for tool in tools))
    if examples and registry.has_examples:
        index = replace(index, **_example_postings(registry, tools, vocabulary))
        from toolsel.ranking import learned

        fitted = learned.fit(
            [f"{tool.name} {tool.description}" for tool in tools],
            list(zip(index.ex_owner, index.example_texts, strict=True)),
        )
        if fitted is not None:
            index = replace(index, **fitted)
    return index


def _example_postings(
    registry: Registry, tools: list[Tool], vocabulary: dict[str, int]
) -> dict[str, Any]:
    """Each example prompt as a BM25 document of its own (k1 1.2, b 0.75), for the
    nearest-example vote; terms are the tool index's (every example word is in it)."""
    texts: list[str] = []
    owners: list[int] = []
    docs: list[Counter[str]] = []
    for position, tool in enumerate(tools):
        for text in registry.examples_for(tool.name):
            texts.append(text)
            owners.append(position)
            docs.append(Counter(tokens(text)))
    stats = _Stats(len(docs), [sum(doc.values()) for doc in docs])
    postings: list[list[tuple[int, int]]] = [[] for _ in vocabulary]
    for doc_id, doc in enumerate(docs):
        for term, count in doc.items():
            postings[vocabulary[term]].append((doc_id, count))
    ptr, ids, weights = [0], [], []
    for entries in postings:
        idf = stats.idf(len(entries))
        for doc_id, count in entries:
            ids.append(doc_id)
            weights.append(stats.bm25(idf, count, doc_id))
        ptr.append(len(ids))
    return {
        "ex_ptr": array("q", ptr),
        "ex_ids": array("I", ids),
        "ex_bm25": array("d", weights),
        "ex_owner": array("I", owners),
        "example_texts": tuple(texts),
    }


def _assemble(
    tools: list[Tool],
    per_doc: list[dict[str, list[int]]],
    vocabulary: dict[str, int],
    lengths: list[float],
    field_weights: tuple[float, ...] = tuple(FIELD_WEIGHTS.values()),
    taught: frozenset[int] = frozenset(),
) -> RankIndex:
    """Postings and their weights. Every tool is weighed without examples (`bm25`,
    `tfidf`), on statistics (document frequencies, average length) that do not count them:
    exactly as an index without examples weighs it. A tool with examples (`taught`) is
    also weighed with its examples field, on statistics that count them (`*_taught`). So
    examples only ever add evidence for the tools they name, and never change another
    tool's score or the order of the others."""
    n = len(tools)
    weights = list(field_weights)
    base_weights = [
        0.0 if f == "examples" else w for f, w in zip(FIELD_NAMES, weights, strict=True)
    ]
    base_lengths = _base_lengths(per_doc, lengths, base_weights, taught)
    with_stats = _Stats(n, lengths)
    base_stats = _Stats(n, base_lengths)
    built = _weigh(per_doc, vocabulary, (weights, base_weights), (with_stats, base_stats), taught)
    field_rows = built.field_rows
    field_tf = list(zip(*field_rows, strict=True)) if field_rows else [() for _ in FIELD_NAMES]
    pointers, ids = array("q", built.term_ptr), array("I", built.doc_ids)
    tfidf, idf_values = _fit_tfidf(
        n, len(vocabulary), pointers, ids, array("d", built.base_weighted)
    )
    taught_arrays: dict[str, Any] = {}
    if taught:
        with_examples, _ = _fit_tfidf(n, len(vocabulary), pointers, ids, array("d", built.weighted))
        mixed = (t if d in taught else b for b, t, d in zip(tfidf, with_examples, ids, strict=True))
        taught_arrays = {
            "bm25_taught": array("d", built.bm25_taught),
            "tfidf_taught": array("d", mixed),
        }
    return RankIndex(
        tools=tuple(ToolMeta.of(t) for t in tools),
        vocabulary=vocabulary,
        term_ptr=pointers,
        doc_ids=ids,
        field_tf=tuple(array("I", column) for column in field_tf),
        bm25=array("d", built.bm25),
        tfidf=tfidf,
        idf=idf_values,
        bm25_idf=array("d", built.bm25_idf),
        field_weights=tuple(field_weights),
        **taught_arrays,
    )


@dataclass(slots=True)
class _Weighed:
    """The postings' columns as `_weigh` builds them: lists while building (appending to a
    list is faster), arrays once built."""

    term_ptr: list[int] = field(default_factory=lambda: [0])
    doc_ids: list[int] = field(default_factory=list)
    field_rows: list[list[int]] = field(default_factory=list)  # transposed at the end
    weighted: list[float] = field(default_factory=list)
    base_weighted: list[float] = field(default_factory=list)
    bm25: list[float] = field(default_factory=list)
    bm25_taught: list[float] = field(default_factory=list)
    bm25_idf: list[float] = field(default_factory=list)


def _weigh(
    per_doc: list[dict[str, list[int]]],
    vocabulary: dict[str, int],
    field_weights: tuple[list[float], list[float]],
    stats: tuple[_Stats, _Stats],
    taught: frozenset[int],
) -> _Weighed:
    """The postings, term by term, each with its field-weighted tf and BM25 weight with
    and without the examples field (`field_weights` and `stats`: with them, without)."""
    postings: list[list[tuple[int, list[int]]]] = [[] for _ in vocabulary]
    for doc, counts in enumerate(per_doc):
        for word, field_counts in counts.items():
            postings[vocabulary[word]].append((doc, field_counts))
    weights, base_weights = field_weights
    with_stats, base_stats = stats
    built = _Weighed()
    term_ptr, doc_ids, field_rows = built.term_ptr, built.doc_ids, built.field_rows
    weighted, base_weighted = built.weighted, built.base_weighted
    bm25, bm25_taught, bm25_idf = built.bm25, built.bm25_taught, built.bm25_idf
    for entries in postings:
        base_df = sum(1 for doc, counts in entries if any(counts[i] for i in _BASE_FIELDS))
        idf, base_idf = with_stats.idf(len(entries)), base_stats.idf(base_df)
        bm25_idf.append(base_idf)
        for doc, field_counts in entries:
            wtf = sum(map(operator.mul, weights, field_counts))
            base_wtf = sum(map(operator.mul, base_weights, field_counts))
            doc_ids.append(doc)
            field_rows.append(field_counts)
            weighted.append(wtf)
            base_weighted.append(base_wtf)
            base = base_stats.bm25(base_idf, base_wtf, doc)
            bm25.append(base)
            bm25_taught.append(with_stats.bm25(idf, wtf, doc) if doc in taught else base)
        term_ptr.append(len(doc_ids))
    return built


#: The fields every tool has (all but `examples`): what an index without examples holds.
_BASE_FIELDS = tuple(i for i, f in enumerate(FIELD_NAMES) if f != "examples")


def _base_lengths(
    per_doc: list[dict[str, list[int]]],
    lengths: list[float],
    base_weights: list[float],
    taught: frozenset[int],
) -> list[float]:
    """Each tool's weighted length without its examples (the others' are unchanged)."""
    if not taught:
        return lengths
    return [
        sum(sum(map(operator.mul, base_weights, c)) for c in per_doc[doc].values())
        if doc in taught
        else length
        for doc, length in enumerate(lengths)
    ]


class _Stats:
    """BM25's collection statistics over one view of the tools (with or without examples)."""

    def __init__(self, n: int, lengths: Sequence[float]) -> None:
        self.n = n
        average = (sum(lengths) / n) if n else 1.0
        self.norms = [
            BM25_K1 * (1 - BM25_B + BM25_B * length / (average or 1.0)) for length in lengths
        ]

    def idf(self, df: int) -> float:
        return math.log(1 + (self.n - df + 0.5) / (df + 0.5))

    def bm25(self, idf: float, wtf: float, doc: int) -> float:
        return idf * wtf * (BM25_K1 + 1) / (wtf + self.norms[doc]) if wtf else 0.0


def _fit_tfidf(
    n_docs: int, n_terms: int, term_ptr: array[int], doc_ids: array[int], weighted_tf: array[float]
) -> tuple[array[float], array[float]]:
    """scikit-learn's TfidfTransformer (sublinear tf, smoothed idf, l2 rows) on the
    field-weighted counts (`toolsel.tfidf.weigh`, in numpy: scikit-learn's import cost the
    first `rank` of a registry a second); returns each posting's weight and the idf per
    term."""
    if n_docs == 0 or n_terms == 0:
        return array("d"), array("d")
    import numpy as np

    from toolsel.tfidf import weigh

    pointers = np.frombuffer(term_ptr, dtype=term_ptr.typecode)
    terms = np.repeat(np.arange(n_terms, dtype=np.intp), np.diff(pointers))
    counts = np.frombuffer(weighted_tf, dtype=np.float64)
    keep = counts > 0  # a posting of a field this view leaves out (examples) holds nothing
    kept, idf = weigh(
        counts[keep],
        np.frombuffer(doc_ids, dtype=doc_ids.typecode).astype(np.intp)[keep],
        terms[keep],
        n_docs,
        n_terms,
    )
    weights = np.zeros(len(counts), dtype=np.float64)
    weights[keep] = kept
    # postings come term by term, each term's documents in order: a document's terms are
    # summed in term order, as scikit-learn sums each row in column order
    return array("d", weights.tobytes()), array("d", idf.astype(np.float64).tobytes())
