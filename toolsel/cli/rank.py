"""`toolsel rank PROMPT`: search, `select:` lookups, and `--batch`."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from toolsel.cli.common import (
    NamespaceOption,
    NoCacheOption,
    RegistryOption,
    embedded,
    handle_errors,
    registry_paths,
    warn,
)
from toolsel.errors import ExitCode, UsageError
from toolsel.ranking.options import Method
from toolsel.registry.permission import Permission
from toolsel.render.formats import EmitFormat, RankFormat

if TYPE_CHECKING:
    from toolsel.ranking.batch import BatchLine
    from toolsel.ranking.core import RankOptions


PromptArgument = Annotated[
    str | None,
    typer.Argument(
        help='What the user asked ("read the config file"), or select:NAME,NAME for a direct lookup.'
    ),
]
MethodOption = Annotated[
    Method,
    typer.Option(
        "--method",
        "-m",
        help="Scoring method; auto is fusion with toolsel[embed] installed, else hybrid.",
    ),
]
TopOption = Annotated[
    int | None,
    typer.Option(
        "--top",
        "-n",
        help="How many tools to offer (default 8; 5 with --method cc, as Claude Code).",
        show_default=False,
    ),
]
PermissionOption = Annotated[
    Permission | None,
    typer.Option("--permission", "-p", help="Block tools that need more than this."),
]
CategoryOption = Annotated[
    list[str] | None,
    typer.Option("--category", "-c", help="Only tools in this category (repeatable)."),
]
TagOption = Annotated[
    list[str] | None, typer.Option("--tag", help="Only tools with this tag (repeatable).")
]
IncludeDeprecatedOption = Annotated[
    bool, typer.Option("--include-deprecated", help="Keep deprecated tools.")
]
MinScoreOption = Annotated[
    float,
    typer.Option(
        "--min-score",
        metavar="X",
        help="Drop tools scoring below X (0-1) of the best match: a relative cut.",
    ),
]
MinStrengthOption = Annotated[
    float,
    typer.Option(
        "--min-strength",
        metavar="X",
        help="Drop tools matching less than X (0-1) of the prompt: an absolute cut.",
    ),
]
ExplainOption = Annotated[
    bool,
    typer.Option(
        "--explain", help="Show which terms matched which fields, and why tools were dropped."
    ),
]
OutputFormatOption = Annotated[
    RankFormat,
    typer.Option("--format", "-f", help="Output format (tool-result: the bare select: block)."),
]
EmitOption = Annotated[
    EmitFormat | None,
    typer.Option("--emit", help="Print the selected tools in this provider's request shape."),
]
BatchOption = Annotated[
    Path | None,
    typer.Option("--batch", help='Rank every {"id", "query"} line of a JSONL file.'),
]
ToolUseIdOption = Annotated[
    str | None,
    typer.Option(
        "--tool-use-id",
        help="tool_use_id for the select: tool_result block (default: derived from the query).",
    ),
]
PendingServerOption = Annotated[
    list[str] | None,
    typer.Option(
        "--pending-server", help="An MCP server still connecting (select: not-found hint)."
    ),
]
NoExamplesOption = Annotated[
    bool,
    typer.Option(
        "--no-examples", help="Rank without the tools' example prompts (to compare the two)."
    ),
]
WithDepsOption = Annotated[
    bool, typer.Option("--with-deps", help="select: also add each tool's requires closure.")
]


@handle_errors
def rank(
    prompt: PromptArgument = None,
    registry: RegistryOption = None,
    namespace: NamespaceOption = False,
    method: MethodOption = Method.AUTO,
    top: TopOption = None,
    permission: PermissionOption = None,
    category: CategoryOption = None,
    tag: TagOption = None,
    include_deprecated: IncludeDeprecatedOption = False,
    min_score: MinScoreOption = 0.0,
    min_strength: MinStrengthOption = 0.0,
    explain: ExplainOption = False,
    output_format: OutputFormatOption = RankFormat.HUMAN,
    emit: EmitOption = None,
    batch: BatchOption = None,
    tool_use_id: ToolUseIdOption = None,
    pending_server: PendingServerOption = None,
    with_deps: WithDepsOption = False,
    no_examples: NoExamplesOption = False,
    no_cache: NoCacheOption = False,
) -> None:
    """Rank the registry's tools for a prompt: which tools it selects, in what order, and why."""
    from toolsel.ranking.core import rank_options
    from toolsel.text import is_select

    request = _Request(
        registry_paths(registry, namespace=namespace, example=True),
        output_format,
        emit,
        use_cache=not no_cache,
        examples=not no_examples,
    )
    options = rank_options(
        method=method,
        top=top,
        permission=permission,
        categories=category or (),
        tags=tag or (),
        include_deprecated=include_deprecated,
        min_score=min_score,
        min_strength=min_strength,
        explain=explain or output_format in (RankFormat.HUMAN, RankFormat.JSON),
    )
    if batch is not None:
        raise typer.Exit(_batch(batch, prompt, request, options))
    if prompt is None:
        raise UsageError(
            "give a prompt, or --batch FILE", hint='e.g. toolsel rank "read the config file"'
        )
    if is_select(prompt):
        pending = tuple(pending_server or ())
        raise typer.Exit(
            _select(prompt, request, tool_use_id, pending_servers=pending, with_deps=with_deps)
        )
    _search(prompt, request, options, explain=explain)


@dataclass(frozen=True, slots=True)
class _Request:
    """What every kind of query shares: the registry, how to answer, and the caches."""

    registry: list[Path] | None
    output_format: RankFormat
    emit: EmitFormat | None
    use_cache: bool
    examples: bool


def _search(prompt: str, request: _Request, options: RankOptions, *, explain: bool) -> None:
    from toolsel.ranking.core import rank_index, validate
    from toolsel.ranking.store import load_index
    from toolsel.render.rank import SEARCH_RENDERERS

    renderer = SEARCH_RENDERERS.get(request.output_format)
    if renderer is None:
        raise UsageError(
            f"--format {request.output_format} is for select: queries",
            hint="use human, json or jsonl for a search",
        )
    use_cache = request.use_cache
    index = load_index(request.registry or None, use_cache=use_cache, examples=request.examples)
    validate(index, prompt, options)  # refuse bad input before embedding anything
    embedded(index, [options.method], use_cache=use_cache)
    result = rank_index(index, prompt, options)
    if request.emit is not None:
        _emit(list(result.offered), request, request.emit)
    else:
        renderer(result, sys.stdout, explain=explain)


def _select(
    prompt: str,
    request: _Request,
    tool_use_id: str | None,
    *,
    pending_servers: tuple[str, ...],
    with_deps: bool,
) -> int:
    """Exit 0 when every name resolved exactly, 1 when any was missing or ambiguous."""
    from toolsel.cli.common import load_registry
    from toolsel.render.rank import SELECT_RENDERERS
    from toolsel.select import select_tools

    loaded = load_registry(request.registry, no_cache=not request.use_cache)
    result = select_tools(
        loaded.tools,
        prompt,
        with_deps=with_deps,
        tool_use_id=tool_use_id,
        pending_servers=pending_servers,
    )
    if request.emit is not None:
        _emit(list(result.selected), request, request.emit)
    else:
        SELECT_RENDERERS[request.output_format](result, sys.stdout)
    for warning in result.warnings:
        warn(f"warning: {warning}")
    return int(ExitCode.FINDINGS) if result.unresolved else int(ExitCode.OK)


def _emit(names: list[str], request: _Request, emit: EmitFormat) -> None:
    from toolsel.cli.common import load_registry
    from toolsel.emit import EMITTERS
    from toolsel.render.console import dumps_json

    loaded = load_registry(request.registry, no_cache=not request.use_cache)
    tools = [tool for name in names if (tool := loaded.get(name)) is not None]
    sys.stdout.write(dumps_json(EMITTERS[emit](tools)))


def _batch(batch: Path, prompt: str | None, request: _Request, options: RankOptions) -> int:
    """Rank every `{"id", "query"}` line. A bad line is reported on stderr with its number
    and skipped; the exit code is then 1."""
    from toolsel.ranking.batch import BatchQuery, rank_batch, read_batch
    from toolsel.ranking.options import EMBEDDING_METHODS
    from toolsel.ranking.store import load_index
    from toolsel.render.rank import BATCH_RENDERERS

    if prompt is not None:
        raise UsageError(
            "give a prompt or --batch FILE, not both",
            hint="a batch file holds its prompts, one per line",
        )
    renderer = BATCH_RENDERERS.get(request.output_format)
    if renderer is None:
        raise UsageError(f"--format {request.output_format} is for select: queries, not --batch")
    lines: Iterable[BatchQuery | BatchLine] = read_batch(batch)
    index = load_index(
        request.registry or None, use_cache=request.use_cache, bulk=True, examples=request.examples
    )
    vectors = {}
    if options.method in EMBEDDING_METHODS:
        lines = list(lines)  # every prompt is embedded up front, in batches
        prompts = [item.query for item in lines if isinstance(item, BatchQuery)]
        vectors = embedded(index, [options.method], prompts, use_cache=request.use_cache)
    skipped: list[int] = []
    results = _report_skipped(rank_batch(index, iter(lines), options, vectors), batch, skipped)
    renderer(results, sys.stdout)
    return int(ExitCode.FINDINGS) if skipped else int(ExitCode.OK)


def _report_skipped(
    lines: Iterator[BatchLine], batch: Path, skipped: list[int]
) -> Iterator[BatchLine]:
    for item in lines:
        if item.error is not None:
            skipped.append(item.line)
            warn(f"{batch}:{item.line}: skipped: {item.error}")
        else:
            yield item
