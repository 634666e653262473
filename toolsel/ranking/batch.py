"""`rank --batch`: rank every `{"id", "query"}` line of a JSONL file.

A line that cannot be ranked is reported with its number and the reason, never dropped
silently; the other lines are still ranked.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolsel.errors import UsageError
from toolsel.ranking.core import RankOptions, RankResult, rank_index
from toolsel.ranking.prepared import PreparedIndex


@dataclass(frozen=True, slots=True)
class BatchQuery:
    line: int
    id: str | None
    query: str


@dataclass(frozen=True, slots=True)
class BatchLine:
    """One line's outcome: a result, or the reason it was skipped."""

    line: int
    id: str | None
    result: RankResult | None = None
    error: str | None = None


def read_batch(path: Path) -> Iterator[BatchQuery | BatchLine]:
    """Each non-blank line as a query, or as a skipped line with its reason."""
    from toolsel.inputs import BadLine, InputProblem, jsonl_values

    try:
        for item in jsonl_values(path):
            if isinstance(item, BadLine):
                yield BatchLine(item.line, None, error=item.error)
                continue
            number, value = item
            try:
                yield _query(value, number)
            except ValueError as exc:
                yield BatchLine(number, None, error=str(exc))
    except InputProblem as problem:
        raise UsageError(f"{path}: cannot read: {problem}") from None


def _query(item: Any, number: int) -> BatchQuery:
    if not isinstance(item, dict):
        raise ValueError('each line must be an object like {"id": "q1", "query": "..."}')
    query = item.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ValueError('missing or empty "query"')
    query_id = item.get("id")
    return BatchQuery(number, None if query_id is None else str(query_id), query)


def rank_batch(
    prepared: PreparedIndex,
    lines: Iterator[BatchQuery | BatchLine],
    options: RankOptions,
    query_vectors: Mapping[str, Any] | None = None,
) -> Iterator[BatchLine]:
    """Rank each query as it is read; skipped lines pass through with their reason."""
    vectors = query_vectors or {}
    for item in lines:
        if isinstance(item, BatchLine):
            yield item
            continue
        try:
            result = rank_index(prepared, item.query, options, query_vector=vectors.get(item.query))
        except UsageError as exc:
            yield BatchLine(item.line, item.id, error=str(exc))
            continue
        yield BatchLine(item.line, item.id, result=result)
