"""The ranking index on disk: one binary file, read without numpy and without pickle.

    toolsel-index\\n | header length (8 bytes, little-endian) | header (JSON) | sections

The header holds the format, the byte order, the vocabulary, and each tool's metadata as
columns; the sections are the posting arrays (raw machine values, read with
`array.frombytes`) and the long texts (descriptions, embedding texts) as UTF-8 blobs with
offsets. Loading 10k tools takes tens of milliseconds: no JSON rows, no numpy import.
Anything that does not add up raises ValueError, and the caller rebuilds the index.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterator, Sequence
from itertools import pairwise
from typing import Any, overload

import orjson

from toolsel.ranking.fields import FIELD_NAMES
from toolsel.ranking.index import INDEX_FORMAT, RankIndex, ToolMeta

MAGIC = b"toolsel-index\n"
#: ToolMeta fields stored as header columns (the description is a blob section).
COLUMNS = (
    "name", "category", "permission", "deprecated", "deprecated_by", "always_include",
    "defer_loading", "aliases", "tags", "requires", "conflicts", "display_name", "search_hint",
)  # fmt: skip
TUPLE_COLUMNS = frozenset({"aliases", "tags", "requires", "conflicts"})
ARRAYS = ("term_ptr", "doc_ids", "bm25", "tfidf", "idf", "bm25_idf", "bm25_taught", "tfidf_taught", "ex_ptr", "ex_ids", "ex_bm25", "ex_owner", "lw_ptr", "lw_tools", "lw_weights", "lw_idf", "lw_bias")  # fmt: skip


def dumps(index: RankIndex) -> bytes:
    columns = {
        name: [
            list(v) if name in TUPLE_COLUMNS else v for v in (getattr(t, name) for t in index.tools)
        ]
        for name in COLUMNS
    }
    sections: list[tuple[str, array[Any] | bytes]] = [(n, getattr(index, n)) for n in ARRAYS]
    sections += [
        (f"field_tf/{f}", column) for f, column in zip(FIELD_NAMES, index.field_tf, strict=True)
    ]
    sections += _strings("descriptions", [t.description for t in index.tools])
    sections += _strings("texts", list(index.texts))
    sections += _strings("examples", list(index.example_texts))
    sections.append(("lw_terms", "\n".join(index.lw_terms).encode("utf-8")))
    header = orjson.dumps(
        {
            "format": INDEX_FORMAT,
            "byteorder": sys.byteorder,
            "vocabulary": list(index.vocabulary),
            "field_weights": list(index.field_weights),
            "columns": columns,
            "sections": [
                [name, value.typecode if isinstance(value, array) else "", len(bytes(value))]
                for name, value in sections
            ],
        }
    )
    body = b"".join(value.tobytes() if isinstance(value, array) else value for _, value in sections)
    return MAGIC + len(header).to_bytes(8, "little") + header + body


def loads(data: bytes) -> RankIndex:
    if not data.startswith(MAGIC):
        raise ValueError("not a toolsel index file")
    view = memoryview(data)
    start = len(MAGIC) + 8
    end = start + int.from_bytes(data[len(MAGIC) : start], "little")
    header = orjson.loads(view[start:end])
    if header.get("format") != INDEX_FORMAT or header.get("byteorder") != sys.byteorder:
        raise ValueError("an index of another format or machine")
    sections: dict[str, array[Any] | bytes] = {}
    for name, typecode, size in header["sections"]:
        if end + size > len(data):
            raise ValueError("truncated index file")
        chunk = view[end : end + size]
        if typecode:
            numbers: array[Any] = array(typecode)
            numbers.frombytes(chunk)  # a copy of the raw values; ValueError if it does not fit
            sections[name] = numbers
        else:
            sections[name] = bytes(chunk)
        end += size
    if end != len(data):
        raise ValueError("index file has trailing bytes")
    descriptions = Strings(sections, "descriptions")
    count = len(descriptions)
    values = [_expand(header["columns"][name], count, name in TUPLE_COLUMNS) for name in COLUMNS]
    tools = tuple(map(ToolMeta._make, zip(*values, descriptions, strict=True)))
    return RankIndex(
        tools=tools,
        vocabulary={term: i for i, term in enumerate(header["vocabulary"])},
        field_tf=tuple(sections[f"field_tf/{f}"] for f in FIELD_NAMES),  # type: ignore[misc]
        texts=Strings(sections, "texts"),  # decoded when embedding asks for them
        example_texts=Strings(sections, "examples"),
        lw_terms=_lines(sections["lw_terms"]),
        field_weights=_weights(header.get("field_weights")),
        **{name: sections[name] for name in ARRAYS},  # type: ignore[arg-type]
    ).checked()


def _weights(values: Any) -> tuple[float, ...]:
    if (
        not isinstance(values, list)
        or len(values) != len(FIELD_NAMES)
        or not all(isinstance(v, (int, float)) and v >= 0 for v in values)
    ):
        raise ValueError("index field weights do not add up")
    return tuple(float(v) for v in values)


def _lines(blob: array[Any] | bytes) -> tuple[str, ...]:
    """Learned features, stored one per line (a feature is words joined by spaces)."""
    if not isinstance(blob, bytes):
        raise ValueError("index section lw_terms is not text")
    return tuple(blob.decode("utf-8").split("\n")) if blob else ()


def _expand(column: Any, count: int, as_tuples: bool) -> list[Any]:
    """A header column as `dumps` writes it: a list of one value per tool."""
    if not isinstance(column, list) or len(column) != count:
        raise ValueError("index column does not add up")
    return [tuple(v) for v in column] if as_tuples else column


def _strings(name: str, values: Sequence[str]) -> list[tuple[str, array[Any] | bytes]]:
    encoded = [v.encode("utf-8", "surrogatepass") for v in values]
    offsets = array("q", [0])
    for chunk in encoded:
        offsets.append(offsets[-1] + len(chunk))
    return [(f"{name}/offsets", offsets), (name, b"".join(encoded))]


class Strings(Sequence[str]):
    """Strings stored as one UTF-8 blob and their offsets, decoded one by one on use."""

    def __init__(self, sections: dict[str, array[Any] | bytes], name: str) -> None:
        offsets, blob = sections[f"{name}/offsets"], sections[name]
        if not isinstance(blob, bytes) or not isinstance(offsets, array) or not offsets:
            raise ValueError(f"index section {name} is missing")
        if offsets[-1] != len(blob) or any(a > b for a, b in pairwise(offsets)):
            raise ValueError(f"index section {name} does not add up")
        self._offsets, self._blob = offsets, blob

    def __len__(self) -> int:
        return len(self._offsets) - 1

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        start, end = self._offsets[index], self._offsets[index + 1]
        return self._blob[start:end].decode("utf-8", "surrogatepass")

    def __iter__(self) -> Iterator[str]:
        blob = self._blob
        for start, end in pairwise(self._offsets):
            yield blob[start:end].decode("utf-8", "surrogatepass")
