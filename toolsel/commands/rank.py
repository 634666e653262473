"""The work behind `toolsel rank`: search, `select:` and `--batch`. Core calls, then renderers."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from toolsel.errors import ExitCode, UsageError
from toolsel.ranking.core import RankOptions, RankResult, rank_index, validate
from toolsel.ranking.index import RankIndex
from toolsel.ranking.options import EMBEDDING_METHODS, Method
from toolsel.render.console import dumps_json, make_console
from toolsel.render.formats import EmitFormat, RankFormat


def prepare_methods(
    index: RankIndex,
    methods: Iterable[Method],
    queries: Sequence[str] = (),
    *,
    use_cache: bool,
) -> None:
    """Before ranking with `semantic` or `fusion`: check the extra is installed (exit 2 with
    the install command if not), load or embed the tool vectors (a progress bar on a
    terminal when more than 100 tools need embedding), and embed many prompts in batches."""
    wanted = [m for m in methods if m in EMBEDDING_METHODS]
    if not wanted:
        return
    from toolsel.embed.model import require
    from toolsel.ranking import semantic
    from toolsel.render.progress import embedding_progress, embedding_progress_prompts

    require(wanted[0].value)
    semantic.prepare(index, use_cache=use_cache, progress=embedding_progress)
    if len(queries) > 1:
        semantic.prepare_queries(
            index, queries, use_cache=use_cache, progress=embedding_progress_prompts
        )


def run_search(
    index: RankIndex,
    prompt: str,
    options: RankOptions,
    registry: list[Path] | None,
    output_format: RankFormat,
    emit: EmitFormat | None,
    explain: bool,
    *,
    use_cache: bool,
) -> None:
    from toolsel.render.rank import render_rank_human, render_rank_json, render_rank_jsonl

    validate(index, prompt, options)  # refuse bad input before embedding anything
    prepare_methods(index, [options.method], use_cache=use_cache)
    result = rank_index(index, prompt, options)
    if emit is not None:
        sys.stdout.write(_emit([r.name for r in result.results], registry, emit, use_cache))
    elif output_format is RankFormat.JSON:
        sys.stdout.write(render_rank_json(result, explain=explain))
    elif output_format is RankFormat.JSONL:
        sys.stdout.write(render_rank_jsonl(result))
    else:
        render_rank_human(result, make_console(), explain=explain)


def run_select(
    index: RankIndex,
    prompt: str,
    registry: list[Path] | None,
    output_format: RankFormat,
    tool_use_id: str | None,
    pending_servers: tuple[str, ...],
    with_deps: bool,
    emit: EmitFormat | None,
    *,
    use_cache: bool,
) -> int:
    """Exit 0 when every name resolved exactly, 1 when any was missing or ambiguous."""
    from dataclasses import replace

    from toolsel.render.rank import render_select_human
    from toolsel.select import resolve_select, tool_result_block

    result = resolve_select(index.tools, prompt)
    if with_deps and result.matches:
        result = replace(result, with_deps=_closure_additions(index, result.matches))
    matches = tuple(result.matches) + result.with_deps
    if emit is not None:
        sys.stdout.write(_emit(list(matches), registry, emit, use_cache))
    elif output_format is RankFormat.HUMAN:
        render_select_human(result, make_console())
    else:
        block = tool_result_block(matches, tool_use_id=tool_use_id, pending_servers=pending_servers)
        sys.stdout.write(dumps_json(block) if output_format is RankFormat.JSON else _jsonl(block))
    for warning in result.warnings:
        sys.stderr.write(f"toolsel: warning: {warning}\n")
    unresolved = [r for r in result.resolutions if r.tool is None]
    return int(ExitCode.FINDINGS) if unresolved else int(ExitCode.OK)


def _closure_additions(index: RankIndex, matches: tuple[str, ...]) -> tuple[str, ...]:
    from toolsel.graph import load_order

    graph = {t.name: list(t.requires) for t in index.tools}
    order = load_order(graph, list(matches))
    return tuple(name for name in order if name not in matches)


def _jsonl(data: Any) -> str:
    import orjson

    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS).decode() + "\n"


def _emit(names: list[str], registry: list[Path] | None, emit: EmitFormat, use_cache: bool) -> str:
    from toolsel.emit import EMITTERS
    from toolsel.registry import load_registry

    loaded = load_registry(registry or None, use_cache=use_cache)
    tools = [tool for name in names if (tool := loaded.get(name)) is not None]
    return dumps_json(EMITTERS[emit.value](tools))


def run_batch(
    batch: Path,
    registry: list[Path] | None,
    options: RankOptions,
    output_format: RankFormat,
    *,
    use_cache: bool,
) -> int:
    """Rank every `{"id", "query"}` line. A bad line is reported on stderr with its number and
    skipped; the exit code is then 1. Output: one JSON line per query (`--format jsonl`), or
    one JSON document with every result (`--format json`)."""
    import orjson

    from toolsel.ranking.store import load_index
    from toolsel.render.rank import rank_payload, render_rank_jsonl

    if output_format is RankFormat.HUMAN:
        output_format = RankFormat.JSONL
    try:
        handle = batch.open("rb")
    except OSError as exc:
        raise UsageError(f"{batch}: cannot read: {exc.strerror or exc}") from None
    index = load_index(registry or None, use_cache=use_cache)
    queries = _batch_queries(batch) if options.method in EMBEDDING_METHODS else []
    prepare_methods(index, [options.method], queries, use_cache=use_cache)
    bad = 0
    collected: list[dict[str, Any]] = []
    with handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                item = orjson.loads(raw)
                query, query_id = _batch_item(item)
                result: RankResult = rank_index(index, query, options)
            except (orjson.JSONDecodeError, ValueError, UsageError) as exc:
                bad += 1
                sys.stderr.write(f"toolsel: {batch}:{number}: skipped: {_reason(exc)}\n")
                continue
            if output_format is RankFormat.JSONL:
                sys.stdout.write(render_rank_jsonl(result, query_id))
            else:
                collected.append({"id": query_id, **rank_payload(result)})
    if output_format is RankFormat.JSON:
        sys.stdout.write(dumps_json({"schema": "toolsel.rank-batch/v1", "queries": collected}))
    return int(ExitCode.FINDINGS) if bad else int(ExitCode.OK)


def _batch_queries(batch: Path) -> list[str]:
    """Every readable query, so the embedding methods can embed them in batches up front."""
    import orjson

    queries = []
    with batch.open("rb") as handle:
        for raw in handle:
            try:
                queries.append(_batch_item(orjson.loads(raw))[0])
            except (orjson.JSONDecodeError, ValueError):
                continue  # reported with its line number by the main pass
    return queries


def _batch_item(item: Any) -> tuple[str, str | None]:
    if not isinstance(item, dict):
        raise ValueError('each line must be an object like {"id": "q1", "query": "..."}')
    query = item.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ValueError('missing or empty "query"')
    query_id = item.get("id")
    return query, None if query_id is None else str(query_id)


def _reason(exc: Exception) -> str:
    text = str(exc).split("\n")[0]
    return f"not JSON ({text})" if exc.__class__.__name__ == "JSONDecodeError" else text
